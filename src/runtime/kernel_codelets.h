// One StarPU codelet per kernel, each with its own performance model, so
// that HEFT-like policies learn how long *this* kernel takes on each device.
//
// Model: StarPU's non-linear regression (a*n^b + c over the work-item count)
// backed by per-footprint history, where the footprint is the NDRange plus
// the sizes of the buffer arguments. A footprint never seen before is
// predicted by the regression once a few sizes were measured, so a slow
// device is not handed every new size just to calibrate it.
#pragma once

#include <starpu.h>

#include <cstdint>
#include <string>

namespace parasol::runtime {

class TaskCommand;

// The codelet of the kernel whose model symbol is `symbol` (created on first
// use, alive until the process ends: StarPU saves models at shutdown).
starpu_codelet* kernel_codelet(const std::string& symbol);

// The codelet a kernel task holds while it ends on an OpenCL worker.
// StarPU times a task on the worker's clock, from the codelet's start to its
// end, and records that in the model of the codelet the task holds then. On
// a vendor queue shared with the direct path, that time includes every
// command queued before the kernel: behind other blocks' writes, a short
// kernel reads many times its own time. So the worker times the kernel
// itself (TaskCommand::run_on_opencl), records that in the kernel's model,
// and swaps this codelet in, whose model (per-architecture: never saved,
// never read) takes StarPU's sample.
starpu_codelet* wall_time_codelet();

}  // namespace parasol::runtime
