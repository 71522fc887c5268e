// Parking idle StarPU workers.
//
// Debian's StarPU 1.3 is built with STARPU_NON_BLOCKING_DRIVERS: a worker
// with nothing to do never sleeps, it polls its scheduler and its memory
// node in a loop. Every vendor device and the native CPU device has one, so
// a process with three devices burns three cores while only the direct
// path (runtime/direct_launch.h), which never involves StarPU, is working
// — cores that PoCL's own threads, the application and the vendors'
// completion threads need; on a machine of few cores the spinning workers
// take most of the CPU time.
//
// StarPU runs its progression hooks in every iteration of a worker's loop;
// Parasol's hook parks the calling worker on a condition variable while no
// work Parasol gave StarPU may need it. Whatever may need a worker raises a
// WorkerDemand first: a task until it starts (StarPU brings its data
// before), an acquisition until it is granted, a scheduling context's
// creation or deletion. Registering, unregistering and releasing data need
// none: they run on the calling thread, and what they set going (a task or
// an acquisition that may now proceed, a transfer an unregistration waits
// for) holds a demand of its own. A demand names the workers
// it needs: a task, those that may run it and those whose memory holds its
// data (they drive its transfers); a host command's acquisition, the
// holders; anything else, every worker. Only they wake: a worker spinning
// beside a busy one takes a core. A worker parks only once no demand naming
// it has been raised for a grace period (streams of StarPU commands keep
// their workers spinning), and a parked worker looks around again after a
// bounded time: a worker a demand should have named, or something StarPU
// does on its own, is slowed, never stalled.
//
// PARASOL_PARK_WORKERS=0 keeps StarPU's spinning workers.
#pragma once

#include <starpu.h>

#include <cstdint>
#include <span>

namespace parasol::backend {

// Registers the hook (once StarPU has started) / wakes every worker for good
// (before starpu_shutdown, which needs them).
void start_worker_parking();
void stop_worker_parking();

// A set of StarPU workers (ids below STARPU_NMAXWORKERS), one bit each.
using WorkerSet = std::uint64_t;
static_assert(STARPU_NMAXWORKERS <= 64, "a WorkerSet holds every StarPU worker");
constexpr WorkerSet kEveryWorker = ~WorkerSet{0};
constexpr WorkerSet worker_bit(int worker) { return WorkerSet{1} << worker; }

// The workers of the vendor devices whose memory holds a valid copy of one
// of `handles`: each drives the transfers out of its memory. StarPU 1.3
// moves data between main RAM and a vendor's device on that device's
// worker, in either direction, so a copy in main RAM names no worker (the
// native device's worker drives none of them).
WorkerSet workers_holding(std::span<const starpu_data_handle_t> handles);

// One piece of work StarPU's workers must drive; while it is held, none of
// the workers it names parks. Raised on construction by raise(), dropped on
// destruction or by drop().
class WorkerDemand {
 public:
  WorkerDemand() = default;  // holds nothing
  [[nodiscard]] static WorkerDemand raise(WorkerSet workers = kEveryWorker);
  WorkerDemand(WorkerDemand&& o) noexcept : held_(o.held_) { o.held_ = 0; }
  WorkerDemand& operator=(WorkerDemand&& o) noexcept {
    if (this != &o) {
      drop();
      held_ = o.held_;
      o.held_ = 0;
    }
    return *this;
  }
  WorkerDemand(const WorkerDemand&) = delete;
  WorkerDemand& operator=(const WorkerDemand&) = delete;
  ~WorkerDemand() { drop(); }
  void drop();

 private:
  WorkerSet held_ = 0;  // the workers it keeps awake
};

// How many workers are parked now (tests, debug logs).
int parked_workers();

}  // namespace parasol::backend
