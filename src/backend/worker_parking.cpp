#include "backend/worker_parking.h"

#include <starpu.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "backend/starpu_runtime.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/settings.h"

namespace parasol::backend {
namespace {

// Workers keep spinning this long after the last demand ended: a stream of
// StarPU commands (each one's demand ends before the next is raised) never
// pays a wake-up.
constexpr std::uint64_t kGraceNs = 1'000'000;
// A parked worker looks around again after this long.
constexpr auto kLongestPark = std::chrono::milliseconds(20);

struct Parking {
  std::atomic<bool> on{false};
  // Per worker: demands naming it, when the last of them ended, whether it
  // is parked (and the condition it waits on, under mutex).
  std::array<std::atomic<long>, STARPU_NMAXWORKERS> demand{};
  std::array<std::atomic<std::uint64_t>, STARPU_NMAXWORKERS> last_demand_end{};
  std::array<std::atomic<bool>, STARPU_NMAXWORKERS> is_parked{};
  std::array<std::condition_variable, STARPU_NMAXWORKERS> wake;
  std::atomic<int> parked{0};
  std::mutex mutex;
};

Parking& parking() {
  // Never destroyed: workers run until starpu_shutdown, after static destructors may have begun.
  static auto* p = new Parking();
  return *p;
}

template <typename Fn>
void for_each_worker(WorkerSet set, Fn&& fn) {
  for (int w = 0; w < STARPU_NMAXWORKERS; ++w)
    if (set & worker_bit(w)) fn(w);
}

// The progression hook: runs on workers (and on application threads that
// help StarPU progress, which never park). Its answer only matters to
// blocking drivers, which Debian's StarPU does not have.
unsigned park_if_idle(void*) {
  Parking& p = parking();
  const int w = starpu_worker_get_id();
  if (!p.on.load(std::memory_order_relaxed) || w < 0 || w >= STARPU_NMAXWORKERS) return 1;
  if (p.demand[w].load() > 0 ||
      now_ns() - p.last_demand_end[w].load(std::memory_order_relaxed) < kGraceNs)
    return 1;
  std::unique_lock lock(p.mutex);
  // Sequentially consistent with raise(): it sees this worker parked, or
  // the predicate sees its demand.
  p.is_parked[w].store(true);
  p.parked.fetch_add(1);
  p.wake[w].wait_for(lock, kLongestPark, [&p, w] { return p.demand[w].load() > 0 || !p.on.load(); });
  p.parked.fetch_sub(1);
  p.is_parked[w].store(false);
  return 1;
}

}  // namespace

void start_worker_parking() {
  if (!settings::park_workers()) {
    log::info("PARASOL_PARK_WORKERS=0: idle StarPU workers keep spinning");
    return;
  }
  Parking& p = parking();
  for (auto& t : p.last_demand_end) t.store(now_ns());
  p.on.store(true);
  if (starpu_progression_hook_register(&park_if_idle, nullptr) < 0) {
    p.on.store(false);
    log::warn("StarPU has no room for Parasol's progression hook: idle workers keep spinning");
  }
}

void stop_worker_parking() {
  Parking& p = parking();
  p.on.store(false);
  std::lock_guard lock(p.mutex);
  for (auto& cv : p.wake) cv.notify_all();
}

WorkerDemand WorkerDemand::raise(WorkerSet workers) {
  Parking& p = parking();
  bool asleep = false;
  for_each_worker(workers, [&](int w) {
    p.demand[w].fetch_add(1);
    asleep = asleep || p.is_parked[w].load();
  });
  if (asleep) {
    std::lock_guard lock(p.mutex);
    for_each_worker(workers, [&](int w) { p.wake[w].notify_one(); });
  }
  WorkerDemand d;
  d.held_ = workers;
  return d;
}

void WorkerDemand::drop() {
  if (!held_) return;
  const WorkerSet workers = held_;
  held_ = 0;
  Parking& p = parking();
  const std::uint64_t now = now_ns();
  for_each_worker(workers, [&](int w) {
    // Before the decrement: a worker that sees no demand sees this time.
    p.last_demand_end[w].store(now, std::memory_order_relaxed);
    p.demand[w].fetch_sub(1);
  });
}

WorkerSet workers_holding(std::span<const starpu_data_handle_t> handles) {
  WorkerSet set = 0;
  const StarpuRuntime* rt = StarpuRuntime::get();
  if (!rt) return set;
  const auto holds_any = [&](int worker, unsigned node) {
    if (worker < 0 || worker >= STARPU_NMAXWORKERS) return;
    for (starpu_data_handle_t h : handles)
      if (starpu_data_is_on_node(h, node)) {
        set |= worker_bit(worker);
        return;
      }
  };
  for (const VendorWorker& w : rt->vendor_workers()) holds_any(w.worker_id, w.memory_node);
  return set;
}

int parked_workers() { return parking().parked.load(); }

}  // namespace parasol::backend
