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
#include <mutex>
#include <span>
#include <vector>

#include "core/command_queue.h"
#include "core/kernel.h"

namespace parasol::schedulers {

// The factor a kernel's next divided run takes, as SOCL chooses it.
class SoclFactorChoice {
 public:
  // space: factors 1 … space−1 (SOCL's `split_space`). Below 2 there is no
  // factor to explore: every run takes factor 1.
  explicit SoclFactorChoice(cl_uint space);

  // The factor of the next run (counted as in flight until measured).
  cl_uint choose();
  // A run with `factor` took `ns` nanoseconds.
  void record(cl_uint factor, std::uint64_t ns);
  // A run with `factor` failed: nothing was measured.
  void abandon(cl_uint factor);

 private:
  const cl_uint space_;
  std::mutex mutex_;
  std::vector<std::uint64_t> ns_;  // per factor tried so far; 0: not measured
  std::vector<bool> in_flight_;
};

// Runs kernel's SOCL divide function after `waits`, once
// kernel.try_begin_socl_division() said so (it ends that state). CL_SUCCESS
// and the enqueue's event in `out`, or the divide function's error (then
// nothing is given out, as in SOCL).
cl_int enqueue_socl_divided(core::CommandQueue& queue, core::Kernel& kernel,
                            std::span<core::Event* const> waits, core::Ref<core::Event>& out);

}  // namespace parasol::schedulers
