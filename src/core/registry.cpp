// The live-handle registry (see object.h). Every API call looks its handles
// up, and every event handed out comes and goes, so it is sharded (threads
// enqueuing at once rarely meet) and each shard is an open-addressing
// table: no allocation per handle, one short critical section. A thread
// also remembers the last handles of each kind it found live or added: a
// stream of commands on one queue and buffer, each waiting for the event
// the one before returned, checks those without a lock until a handle of
// that kind is removed from that shard.
#include "core/object.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace parasol::core {

constinit const cl_icd_dispatch* g_dispatch_table = nullptr;
void set_dispatch_table(const cl_icd_dispatch* table) { g_dispatch_table = table; }

}  // namespace parasol::core

namespace parasol::core::registry {
namespace {

const void* const kTombstone = reinterpret_cast<const void*>(std::uintptr_t{1});
constexpr std::size_t kKinds = static_cast<std::size_t>(ObjectKind::Sampler) + 1;

struct Slot {
  const void* handle = nullptr;  // null: never used; kTombstone: removed
  ObjectKind kind{};
};

class Shard {
 public:
  void add(const void* handle, ObjectKind kind) {
    std::lock_guard lock(mutex_);
    // Grow (or clean tombstones) past half full: probes stay short.
    if ((used_ + 1) * 2 > slots_.size()) rebuild(live_ * 4 < 16 ? 16 : live_ * 4);
    Slot& s = slots_[probe(handle, /*for_insert=*/true)];
    if (s.handle != handle) {
      if (s.handle == nullptr) ++used_;
      ++live_;
      s.handle = handle;
    }
    s.kind = kind;
  }

  void remove(const void* handle, ObjectKind kind) {
    {
      std::lock_guard lock(mutex_);
      if (slots_.empty()) return;
      Slot& s = slots_[probe(handle, false)];
      if (s.handle != handle) return;
      s.handle = kTombstone;
      --live_;
    }
    // After the removal: a lookup that read the count before it and found
    // the handle remembers an older count, which no longer matches.
    removals(kind).fetch_add(1, std::memory_order_acq_rel);
  }

  // Bumped after every removal of a handle of that kind from this shard: a
  // thread's remembered handle is live only while its shard's count for its
  // kind has not moved (a handle freed and its address reused since would
  // otherwise look live). Per kind, so the events a command stream creates
  // and releases do not make its queue and kernel be looked up again under
  // a lock; per shard, so that releasing the event before does not make the
  // one just returned be looked up again.
  std::atomic<std::uint64_t>& removals(ObjectKind kind) {
    return removals_[static_cast<std::size_t>(kind)];
  }

  bool contains(const void* handle, ObjectKind kind) {
    std::lock_guard lock(mutex_);
    if (slots_.empty()) return false;
    const Slot& s = slots_[probe(handle, false)];
    return s.handle == handle && s.kind == kind;
  }

 private:
  static std::size_t hash(const void* handle) {
    return static_cast<std::size_t>((reinterpret_cast<std::uintptr_t>(handle) >> 4) *
                                    0x9e3779b97f4a7c15u);
  }

  // The slot holding handle, else (for_insert) the first free one on its
  // path, else the empty slot ending the path. A tombstone holds no handle:
  // a value equal to the marker (an integer 1 that SOCL-style argument
  // guessing asks about) is found nowhere.
  std::size_t probe(const void* handle, bool for_insert) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = (hash(handle) >> 20) & mask;
    std::size_t reuse = SIZE_MAX;
    for (;; i = (i + 1) & mask) {
      const void* h = slots_[i].handle;
      if (h == handle && h != kTombstone) return i;
      if (h == nullptr) return for_insert && reuse != SIZE_MAX ? reuse : i;
      if (h == kTombstone && reuse == SIZE_MAX) reuse = i;
    }
  }

  void rebuild(std::size_t capacity) {
    std::size_t cap = 16;
    while (cap < capacity) cap *= 2;
    std::vector<Slot> old(cap);
    old.swap(slots_);
    used_ = live_;
    for (const Slot& s : old)
      if (s.handle && s.handle != kTombstone) slots_[probe(s.handle, true)] = s;
  }

  std::mutex mutex_;
  std::array<std::atomic<std::uint64_t>, kKinds> removals_{};
  std::vector<Slot> slots_;  // a power of two in size, or empty
  std::size_t used_ = 0;     // slots not null (live + tombstones)
  std::size_t live_ = 0;
};

constexpr std::size_t kShards = 64;

Shard& shard_of(const void* handle) {
  // Never destroyed: handles may be released from static destructors.
  static auto* shards = new std::array<Shard, kShards>();
  auto bits = (reinterpret_cast<std::uintptr_t>(handle) >> 4) * 0x9e3779b97f4a7c15u;
  return (*shards)[bits >> 58];  // the top 6 bits: 64 shards
}

// The last four of each kind, newest first: a chain's enqueue looks up the
// event the one before returned, and its release the event before that; a
// stream setting a buffer argument before each launch rotates over several
// buffers. A handle found under an older count is noted again (the stale
// entry ages out).
class Remembered {
 public:
  bool has(const void* handle, std::uint64_t removals) const {
    for (const Entry& e : entries_)
      if (e.handle == handle && e.removals == removals) return true;
    return false;
  }
  void note(const void* handle, std::uint64_t removals) {
    for (std::size_t i = kEntries - 1; i > 0; --i) entries_[i] = entries_[i - 1];
    entries_[0] = {handle, removals};
  }

 private:
  struct Entry {
    const void* handle = nullptr;
    std::uint64_t removals = 0;
  };
  static constexpr std::size_t kEntries = 4;
  std::array<Entry, kEntries> entries_;
};
thread_local std::array<Remembered, kKinds> t_remembered;

}  // namespace

void add(const void* handle, ObjectKind kind) {
  Shard& shard = shard_of(handle);
  // Read before the handle is in: any removal after (its own included)
  // makes this thread look it up again.
  const std::uint64_t removals = shard.removals(kind).load(std::memory_order_acquire);
  shard.add(handle, kind);
  t_remembered[static_cast<std::size_t>(kind)].note(handle, removals);
}

void remove(const void* handle, ObjectKind kind) { shard_of(handle).remove(handle, kind); }

bool contains(const void* handle, ObjectKind kind) {
  if (!handle) return false;
  Remembered& r = t_remembered[static_cast<std::size_t>(kind)];
  Shard& shard = shard_of(handle);
  const std::uint64_t removals = shard.removals(kind).load(std::memory_order_acquire);
  if (r.has(handle, removals)) return true;
  if (!shard.contains(handle, kind)) return false;
  r.note(handle, removals);
  return true;
}

}  // namespace parasol::core::registry
