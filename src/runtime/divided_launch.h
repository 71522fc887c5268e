// Kernels whose divide function runs instead of them: Parasol's own
// (clSetKernelDivideFunctionPARASOL, granularity adaptation) and SOCL's.
//
// clEnqueueNDRangeKernel of a kernel that has a divide function, on a
// context queue: the strategy picks a factor; the kernel runs undivided or
// the divide function runs, here, on the enqueuing thread. It only enqueues
// sub-commands after `before` (a marker standing for the command's
// dependencies) and returns `after`; the caller gets an event that completes
// with `after`. Nothing waits for the sub-commands, so iterations pipeline.
//
// SOCL's divide functions (StarPU's socl/src/cl_setkernelarg.c and
// cl_enqueuendrangekernel.c, SOCL 1.3), for kernels that set one through
// clSetKernelArg's indexes -1 (the function), -2 (the partition space) and
// -3 (its user data).
//
// Every clEnqueueNDRangeKernel of such a kernel, on any queue, runs the
// divide function instead of the kernel, with a partitioning factor:
// factors 1 … space−1 are tried once each, in that order, then the one
// whose last measured run was shortest (each run updates its own factor's
// time, so the choice follows the machine). A run is measured from the end
// of `before` (a marker standing for the enqueue's wait list and queue
// order) to the end of `after`. The enqueue's event stands for that span:
// it completes with `after`, and its profiling times are `before`'s end
// (queued, submitted, started) and `after`'s end.
//
// As in SOCL, a launch of the kernel while its divide function runs (its
// own launches of the kernel, or another thread's) runs the kernel itself.
// Unlike SOCL, the enqueue does not wait for `after`: iterations pipeline,
// and a factor whose run is still in flight counts as tried.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <functional>
#include <span>

#include "core/command_queue.h"
#include "core/kernel.h"

namespace parasol::runtime {

// True while k's divide function runs on this thread: the divide function's
// own launches of k then run undivided.
bool dividing(const core::Kernel* k);

// enqueue_kernel(waits) enqueues the undivided kernel after `waits`.
// key: what the statistics are kept per (kernel, NDRange, buffer sizes).
core::Ref<core::Event> enqueue_divided(
    core::CommandQueue& queue, core::Kernel& kernel, std::uint64_t key,
    std::span<core::Event* const> waits,
    const std::function<core::Ref<core::Event>(std::span<core::Event* const>)>& enqueue_kernel);

// Runs kernel's SOCL divide function after `waits`, once
// kernel.try_begin_socl_division() said so (it ends that state). CL_SUCCESS
// and the enqueue's event in `out`, or the divide function's error (then
// nothing is given out, as in SOCL).
cl_int enqueue_socl_divided(core::CommandQueue& queue, core::Kernel& kernel,
                            std::span<core::Event* const> waits, core::Ref<core::Event>& out);

}  // namespace parasol::runtime
