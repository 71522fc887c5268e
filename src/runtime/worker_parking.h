// Parking idle StarPU workers.
//
// Debian's StarPU 1.3 is built with STARPU_NON_BLOCKING_DRIVERS: a worker
// with nothing to do never sleeps, it polls its scheduler and its memory
// node in a loop. Every vendor device and the native CPU device has one, so
// a process with three devices burns three cores while only the direct
// path (runtime/direct_launch.h), which never involves StarPU, is working
// — cores that PoCL's own threads, the application and the vendors'
// completion threads needed (on a 2-core host the workers took 70% of the
// CPU time of bench_command_overhead).
//
// StarPU runs its progression hooks in every iteration of a worker's loop;
// Parasol's hook parks the calling worker on a condition variable while no
// work Parasol gave StarPU may need it. Whatever may need a worker raises a
// WorkerDemand first: a task until it starts (StarPU brings its data
// before), an acquisition until it is granted, a release, a registration,
// a scheduling context's creation or deletion. A raised demand wakes every
// parked worker. Workers park only once no demand has been raised for a
// grace period (streams of StarPU commands keep them spinning, as before),
// and a parked worker looks around again after a bounded time: something
// StarPU does on its own (none is known) would be slowed, never stalled.
//
// PARASOL_PARK_WORKERS=0 keeps StarPU's spinning workers.
#pragma once

namespace parasol::runtime {

// Registers the hook (once StarPU has started) / wakes every worker for good
// (before starpu_shutdown, which needs them).
void start_worker_parking();
void stop_worker_parking();

// One piece of work StarPU's workers must drive; while any is held, no
// worker parks. Raised on construction by raise(), dropped on destruction
// or by drop().
class WorkerDemand {
 public:
  WorkerDemand() = default;  // holds nothing
  [[nodiscard]] static WorkerDemand raise();
  WorkerDemand(WorkerDemand&& o) noexcept : held_(o.held_) { o.held_ = false; }
  WorkerDemand& operator=(WorkerDemand&& o) noexcept {
    if (this != &o) {
      drop();
      held_ = o.held_;
      o.held_ = false;
    }
    return *this;
  }
  WorkerDemand(const WorkerDemand&) = delete;
  WorkerDemand& operator=(const WorkerDemand&) = delete;
  ~WorkerDemand() { drop(); }
  void drop();

 private:
  bool held_ = false;
};

// How many workers are parked now (tests, debug logs).
int parked_workers();

}  // namespace parasol::runtime
