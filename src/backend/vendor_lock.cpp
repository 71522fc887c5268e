#include "backend/vendor_lock.h"

#include <array>
#include <atomic>
#include <mutex>

#include "backend/starpu_runtime.h"
#include "backend/vendor_traits.h"

namespace parasol::backend {
namespace {

// The platform's lock, or null for a thread-safe vendor. Asked at every
// direct launch and completion: the platforms seen so far are read without
// a lock (entries are published by the count), only a new one takes it.
struct PlatformEntry {
  std::atomic<cl_platform_id> platform{nullptr};
  bool thread_unsafe = false;
  std::recursive_mutex mutex;
};
constexpr int kMaxPlatforms = 32;

std::recursive_mutex* vendor_mutex(cl_platform_id platform) {
  // Never destroyed: StarPU's threads may still launch during exit.
  static auto* entries = new std::array<PlatformEntry, kMaxPlatforms>();
  static std::atomic<int> count{0};
  static std::mutex adding;
  static std::recursive_mutex overflow;  // past kMaxPlatforms: serialised, still safe
  auto find = [&](int n) -> PlatformEntry* {
    for (int i = 0; i < n; ++i)
      if ((*entries)[i].platform.load(std::memory_order_relaxed) == platform) return &(*entries)[i];
    return nullptr;
  };
  PlatformEntry* e = find(count.load(std::memory_order_acquire));
  if (!e) {
    std::lock_guard lock(adding);
    const int n = count.load(std::memory_order_relaxed);
    e = find(n);
    if (!e) {
      if (n == kMaxPlatforms) return &overflow;
      e = &(*entries)[n];
      e->thread_unsafe = !platform_traits(platform).thread_safe;
      e->platform.store(platform, std::memory_order_relaxed);
      count.store(n + 1, std::memory_order_release);
    }
  }
  return e->thread_unsafe ? &e->mutex : nullptr;
}

}  // namespace

VendorLock lock_vendor(cl_platform_id platform) {
  std::recursive_mutex* m = platform ? vendor_mutex(platform) : nullptr;
  return m ? VendorLock(*m) : VendorLock();
}

VendorLock lock_vendor(const VendorWorker& worker) {
  return worker.traits.thread_safe ? VendorLock() : lock_vendor(worker.platform);
}

}  // namespace parasol::backend
