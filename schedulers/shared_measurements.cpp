#include "schedulers/shared_measurements.h"

#include "core/platform.h"

namespace parasol::schedulers {

void record_measurement(starpu_task* task, const core::Device& device, double us) {
  starpu_perfmodel* model = task->cl->model;
  const unsigned nimpl = starpu_task_get_implementation(task);
  auto record = [&](const core::Device& d) {
    const int worker = d.worker().worker_id;
    // A plain worker's performance arch is its own whatever the scheduling
    // context (StarPU's combined workers are not used).
    starpu_perfmodel_update_history(model, task, starpu_worker_get_perf_archtype(worker, task->sched_ctx),
                                    static_cast<unsigned>(worker), nimpl, us);
  };
  record(device);
  for (const core::Device* d : core::Platform::instance().devices())
    if (d != &device && d->alike(device)) record(*d);
}

}  // namespace parasol::schedulers
