// Commands placed among alike devices by where their output is.
//
// StarPU 1.3's dmda adds a command's data transfer to a device's expected
// end only where the device has no work queued yet (a transfer is hoped to
// overlap the work before it), so each further command of a burst costs a
// device its run time alone, and a burst whose data all starts in main RAM
// lands on the one device whose bus it models fastest. Between two alike
// GPUs every block of a burst would then go to the first and stay there: a
// command runs where its data is (runtime/direct_launch.h, sole_resident),
// so the second GPU would idle for the whole run. Within a group of alike
// devices (core::Device::alike: two GPUs of one model), Parasol therefore
// decides by the buffers the command writes:
//  - none of the group holds them (they are in main RAM, or on an unlike
//    device such as a CPU the guard moves work off:
//    schedulers/calibration_guard.h): only the member with the fewest such
//    commands still running (of those, the one chosen least recently) may
//    take it, so a burst alternates;
//  - some do: only those may take it, its read-only inputs are copied there
//    (once, then shared while nobody writes them). dmda alone weighs that
//    one move against the output's, and would bring every block reading a
//    buffer one kernel just rewrote to that kernel's GPU (all of nbody's
//    force blocks to the GPU of its position update).
// Read-only inputs never count: dmda prefetches a burst's shared input
// (SGEMM's B) to the device of its first command. The policy still weighs
// the group's remaining members against the devices unlike them.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "core/device.h"
#include "util/small_vector.h"

namespace parasol::schedulers {

// The devices a command was steered toward, counted until it ends.
class AlikeSteer {
 public:
  AlikeSteer() = default;
  // Among candidates not in held_back, for each group of alike devices:
  // where some hold_output(device), adds the others' workers to held_back;
  // where none does, keeps the one with the fewest steered commands running
  // (then the one chosen least recently), adds the others' workers to
  // held_back and counts the command toward it.
  static AlikeSteer steer(std::span<core::Device* const> candidates, std::vector<int>& held_back,
                          const std::function<bool(const core::Device&)>& holds_output);

  AlikeSteer(AlikeSteer&& o) noexcept : toward_(std::move(o.toward_)) { o.toward_.clear(); }
  AlikeSteer& operator=(AlikeSteer&& o) noexcept;
  AlikeSteer(const AlikeSteer&) = delete;
  AlikeSteer& operator=(const AlikeSteer&) = delete;
  ~AlikeSteer() { release(); }
  // The command ended, or never reached StarPU.
  void release();

 private:
  SmallVector<int, 2> toward_;  // StarPU workers
};

}  // namespace parasol::schedulers
