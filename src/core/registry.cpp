// The live-handle registry (see object.h). Sharded so that validating a
// handle on every API call stays cheap when many threads enqueue at once.
#include "core/object.h"

#include <array>
#include <functional>
#include <mutex>
#include <unordered_map>

namespace parasol::core::registry {
namespace {

struct Shard {
  std::mutex mutex;
  std::unordered_map<const void*, ObjectKind> live;
};

constexpr std::size_t kShards = 64;

Shard& shard_of(const void* handle) {
  // Never destroyed: handles may be released from static destructors.
  static auto* shards = new std::array<Shard, kShards>();
  auto bits = reinterpret_cast<std::uintptr_t>(handle) >> 4;
  return (*shards)[std::hash<std::uintptr_t>{}(bits) % kShards];
}

}  // namespace

void add(const void* handle, ObjectKind kind) {
  Shard& s = shard_of(handle);
  std::lock_guard lock(s.mutex);
  s.live[handle] = kind;
}

void remove(const void* handle) {
  Shard& s = shard_of(handle);
  std::lock_guard lock(s.mutex);
  s.live.erase(handle);
}

bool contains(const void* handle, ObjectKind kind) {
  if (!handle) return false;
  Shard& s = shard_of(handle);
  std::lock_guard lock(s.mutex);
  auto it = s.live.find(handle);
  return it != s.live.end() && it->second == kind;
}

}  // namespace parasol::core::registry
