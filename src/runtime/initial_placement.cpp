#include "runtime/initial_placement.h"

#include <starpu.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "backend/worker_parking.h"
#include "util/log.h"
#include "util/tsan_handover.h"

namespace parasol::runtime {
namespace {

// Placements StarPU has not granted yet. StarPU's shutdown asserts on a data
// request still queued, so the process's exit waits for them first.
struct Pending {
  std::mutex mutex;
  std::condition_variable done;
  std::size_t count = 0;
};
Pending& pending() {
  // Never destroyed: the exit's wait runs after static destructors began.
  static Pending& p = *new Pending;
  return p;
}

// A read acquisition on the device, given back as soon as StarPU grants it:
// the device keeps its copy, main RAM keeps its own.
// Counts itself in pending() while it lives.
struct PendingMark {
  PendingMark() {
    std::lock_guard lock(pending().mutex);
    ++pending().count;
  }
  ~PendingMark() {
    Pending& all = pending();
    std::lock_guard lock(all.mutex);
    if (--all.count == 0) all.done.notify_all();
  }
  PendingMark(const PendingMark&) = delete;
  PendingMark& operator=(const PendingMark&) = delete;
};

struct Placement {
  PendingMark mark;  // first: counted until everything else is gone
  std::shared_ptr<backend::BufferStorage> storage;  // alive until granted
  unsigned node;
  backend::WorkerDemand demand;  // the device's worker brings the data
};

void on_placed(void* arg) {
  tsan::acquire(arg);
  auto* p = static_cast<Placement*>(arg);
  starpu_data_release_on_node(p->storage->handle(), static_cast<int>(p->node));
  delete p;
}

}  // namespace

void place_initial_contents(const core::Context& context,
                            std::shared_ptr<backend::BufferStorage> storage) {
  const auto& devices = context.devices();
  if (devices.empty() || !storage || !storage->valid()) return;
  // One device: a sub-device shares its root's worker and memory.
  const backend::VendorWorker& w = devices.front()->worker();
  for (const core::Device* d : devices)
    if (d->worker().worker_id != w.worker_id) return;
  // A device with no StarPU worker here (another rank's) has no memory
  // node of this process to place the data on.
  if (w.worker_id < 0 || !w.traits.own_memory) return;
  auto* p = new Placement{{}, std::move(storage), w.memory_node,
                          backend::WorkerDemand::raise(backend::worker_bit(w.worker_id))};
  // Handed to a StarPU thread through StarPU's own locks (util/tsan_handover.h).
  tsan::release(p);
  if (starpu_data_acquire_on_node_cb(p->storage->handle(), static_cast<int>(p->node), STARPU_R,
                                     &on_placed, p) != 0)
    delete p;
}

void wait_for_initial_placements() {
  Pending& all = pending();
  std::unique_lock lock(all.mutex);
  // A transfer takes what its bytes take; a minute means a vendor stopped
  // answering, and the exit goes on rather than hang.
  if (!all.done.wait_for(lock, std::chrono::minutes(1), [&] { return all.count == 0; }))
    log::error(all.count, " buffer placements did not end before the exit");
}

}  // namespace parasol::runtime
