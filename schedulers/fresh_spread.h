// Commands whose output is on no device yet, spread over alike devices.
//
// StarPU 1.3's dmda adds a command's data transfer to a device's expected
// end only where the device has no work queued yet (a transfer is hoped to
// overlap the work before it), so each further command of a burst costs a
// device its run time alone, and a burst whose data all starts in main RAM
// lands on the one device whose bus it models fastest. On two H100s every
// block of every workload went to the first GPU, and there it stayed: a
// command runs where its data is (runtime/direct_launch.h, sole_resident),
// so the second GPU idled for the whole run. Parasol therefore lets only
// one of a group of alike devices (core::Device::alike: two GPUs of one
// model) take a command whose written buffers are on none of them (in
// main RAM, or on an unlike device such as a CPU the guard moves work off:
// schedulers/calibration_guard.h), the one with the fewest such commands
// still running; the policy still weighs it against the devices unlike it. Its read-only inputs may be on one of the
// group already: they are copied to the other once, then shared (StarPU
// keeps both copies valid while nobody writes them).
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "core/device.h"
#include "util/small_vector.h"

namespace parasol::schedulers {

// The devices a command was steered toward, counted until it ends.
class FreshSteer {
 public:
  FreshSteer() = default;
  // Among candidates not in held_back, for each group of alike devices none
  // of which holds_output(device), keeps the one with the fewest steered
  // commands running and adds the others' workers to held_back; counts the
  // command toward the kept ones.
  static FreshSteer steer(std::span<core::Device* const> candidates, std::vector<int>& held_back,
                          const std::function<bool(const core::Device&)>& holds_output);

  FreshSteer(FreshSteer&& o) noexcept : toward_(std::move(o.toward_)) { o.toward_.clear(); }
  FreshSteer& operator=(FreshSteer&& o) noexcept;
  FreshSteer(const FreshSteer&) = delete;
  FreshSteer& operator=(const FreshSteer&) = delete;
  ~FreshSteer() { release(); }
  // The command ended, or never reached StarPU.
  void release();

 private:
  SmallVector<int, 2> toward_;  // StarPU workers
};

}  // namespace parasol::schedulers
