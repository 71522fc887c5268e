#include "runtime/worker_parking.h"

#include <starpu.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <mutex>

#include "util/clock.h"
#include "util/log.h"

namespace parasol::runtime {
namespace {

// Workers keep spinning this long after the last demand ended: a stream of
// StarPU commands (each one's demand ends before the next is raised) never
// pays a wake-up.
constexpr std::uint64_t kGraceNs = 1'000'000;
// A parked worker looks around again after this long.
constexpr auto kLongestPark = std::chrono::milliseconds(20);

struct Parking {
  std::atomic<bool> on{false};
  std::atomic<long> demand{0};
  std::atomic<std::uint64_t> last_demand_end{0};
  std::atomic<int> parked{0};
  std::mutex mutex;
  std::condition_variable wake;
};

Parking& parking() {
  // Never destroyed: workers run until starpu_shutdown, after static destructors may have begun.
  static auto* p = new Parking();
  return *p;
}

// The progression hook: runs on workers (and on application threads that
// help StarPU progress, which never park). Its answer only matters to
// blocking drivers, which Debian's StarPU does not have.
unsigned park_if_idle(void*) {
  Parking& p = parking();
  if (!p.on.load(std::memory_order_relaxed) || starpu_worker_get_id() < 0) return 1;
  if (p.demand.load() > 0 ||
      now_ns() - p.last_demand_end.load(std::memory_order_relaxed) < kGraceNs)
    return 1;
  std::unique_lock lock(p.mutex);
  // Sequentially consistent with raise(): it sees this worker parked, or
  // the predicate sees its demand.
  p.parked.fetch_add(1);
  p.wake.wait_for(lock, kLongestPark, [&p] { return p.demand.load() > 0 || !p.on.load(); });
  p.parked.fetch_sub(1);
  return 1;
}

}  // namespace

void start_worker_parking() {
  const char* v = std::getenv("PARASOL_PARK_WORKERS");
  if (v && *v == '0') {
    log::info("PARASOL_PARK_WORKERS=0: idle StarPU workers keep spinning");
    return;
  }
  Parking& p = parking();
  p.last_demand_end.store(now_ns());
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
  p.wake.notify_all();
}

WorkerDemand WorkerDemand::raise() {
  Parking& p = parking();
  p.demand.fetch_add(1);
  if (p.parked.load() > 0) {
    std::lock_guard lock(p.mutex);
    p.wake.notify_all();
  }
  WorkerDemand d;
  d.held_ = true;
  return d;
}

void WorkerDemand::drop() {
  if (!held_) return;
  held_ = false;
  Parking& p = parking();
  // Before the decrement: a worker that sees no demand sees this time.
  p.last_demand_end.store(now_ns(), std::memory_order_relaxed);
  p.demand.fetch_sub(1);
}

int parked_workers() { return parking().parked.load(); }

}  // namespace parasol::runtime
