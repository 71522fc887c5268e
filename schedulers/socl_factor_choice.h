// The partitioning factor of SOCL's divide functions (StarPU's
// socl/src/cl_enqueuendrangekernel.c, SOCL 1.3): factors 1 … space−1 are
// tried once each, in that order, then the one whose last measured run was
// shortest (each run updates its own factor's time, so the choice follows
// the machine). Unlike SOCL, a factor whose run is still in flight counts as
// tried: runs pipeline (runtime/divided_launch.h).
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <mutex>
#include <vector>

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

}  // namespace parasol::schedulers
