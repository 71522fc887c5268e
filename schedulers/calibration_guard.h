// Calibration that cannot collapse throughput, for the model-driven
// policies (heft and the dmda family).
//
// StarPU 1.3's dmda hands a command to any device whose model has no value
// for it yet, so that the device gets measured, and it keeps doing so until
// that device has STARPU_CALIBRATE_MINIMUM measurements (Parasol's default 3,
// backend/starpu_runtime.cpp; StarPU's own 10). On cold models
// a burst of commands therefore lands on whichever device is unmeasured, and
// a device 100x slower receives a queue of large work before the policy
// knows anything. The guard changes four things, through the set of devices
// a command may run on (TaskCommand's can_execute):
//  - a device calibrates one command at a time;
//  - while every unmeasured device is busy calibrating, commands go to the
//    measured devices (the policy then weighs them by their models), or,
//    before any device is measured, to the device most likely fastest
//    (an accelerator before a CPU, then the most compute units);
//  - a device whose first two runs show it far slower than a measured
//    device is recorded as calibrated with the faster of them (a first
//    launch may pay one-time costs), so that HEFT gives it work only where
//    its real cost pays off;
//  - once every device is measured, a device far slower than the fastest
//    (kStranded) does not keep a command just because its data is there.
//    HEFT weighs one move against one run and never sees that the data
//    will be used again: work that calibration left on a slow device would
//    stay there wherever one move costs about as much as one run there,
//    though the fastest device runs it many times faster.
#pragma once

#include <starpu.h>

#include <cstdint>
#include <span>
#include <vector>

#include "core/device.h"

namespace parasol::schedulers {

struct CalibrationPlacement {
  std::vector<int> held_back;  // StarPU workers the command must not run on
  int calibrating = -1;        // the worker the command calibrates, or -1
};

// How much slower than a measured device a device's first runs must be for
// it to count as calibrated at once.
constexpr double kFarSlower = 4.0;

// How much slower than the fastest device a device holding all of a
// command's data must be for the command to be held back from it.
constexpr double kStranded = 16.0;

// task: built (codelet with a model, buffers, cl_arg) but not submitted;
// devices: those of the context that may run it; resident: the device
// holding all of the task's data alone, or null.
CalibrationPlacement place_for_calibration(starpu_task* task, std::uint32_t footprint,
                                           std::span<core::Device* const> devices,
                                           const core::Device* resident, unsigned sched_ctx);

// The command placed with `placement` ran on `device` for `measured_us`, or
// failed there (NaN). The task is still alive: this runs from its callback.
void calibration_ran(const CalibrationPlacement& placement, starpu_task* task,
                     std::uint32_t footprint, const core::Device& device,
                     std::span<core::Device* const> devices, unsigned sched_ctx,
                     double measured_us);

// The command placed with `placement` never reached StarPU.
void calibration_abandoned(const CalibrationPlacement& placement, const starpu_task* task,
                           std::uint32_t footprint);

// What StarPU's model of `codelet` expects this footprint to take on
// `worker` (us), or NaN while it has too few measurements there (persisted
// models and recorded first runs count) or before the model was first used.
double model_expected_us(starpu_codelet* codelet, std::uint32_t footprint, int worker,
                         unsigned sched_ctx);

}  // namespace parasol::schedulers
