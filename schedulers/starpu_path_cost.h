// What a command costs beyond its kernel when it goes through StarPU, on a
// device only StarPU's path reaches: from its task's submission to its
// start, plus from its kernel's end to its completion callback, averaged.
//
// StarPU's models hold a kernel's own time, and HEFT places by them. A
// device that only StarPU's path reaches (Parasol's native CPU device,
// Oclgrind) then wins every small kernel it runs faster, though each of its
// commands pays StarPU's submission, scheduling and worker hand-off, which
// the direct path to a vendor skips: for a tiny kernel that cost is several
// times the kernel's own, and more than a vendor's direct path takes for
// the whole command. Weighing that cost keeps such commands on a device the
// direct path reaches (runtime/kernel_command.cpp, policy_keeps_on) and
// holds the StarPU-only devices back from them (TaskCommand::submit).
#pragma once

#include <starpu.h>

#include <span>
#include <vector>

#include "core/device.h"

namespace parasol::schedulers {

// A command on `worker` spent `us` in StarPU's path beside its kernel.
void note_starpu_path(int worker, double us);

// The average of those (us); 0 before the first, and for every device the
// direct path reaches (TaskCommand notes only the others).
double starpu_path_us(int worker);

// Among `devices` (those not in held_back), the ones `direct` says no to whose
// model time for the task plus their StarPU path cost exceeds the best model
// time of a device `direct` says yes to: added to held_back. Nothing while
// a device lacks a model for the task.
void hold_back_slow_paths(starpu_task* task, std::span<core::Device* const> devices,
                          std::vector<int>& held_back, unsigned sched_ctx,
                          bool (*direct)(const core::Device&));

}  // namespace parasol::schedulers
