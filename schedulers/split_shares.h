// How a split launch's work-groups are shared among its devices, so that
// they finish together.
//
// Per key (kernel, NDRange, buffer sizes) each device has a speed: groups
// per second over its whole part (transfers, launch and kernel). The first
// launch shares by the speeds the caller guesses (the devices' performance
// models), or equally when one is unknown. Each launch's measured times then
// update the speeds (smoothed); for the first explore_runs launches the
// shares follow the speeds at once (converge), later only when the parts'
// predicted times differ by more than the hysteresis, so shares settle on a
// stable machine and move when it changes. A device whose share falls
// under kMinShare leaves the plan, and comes back for one measured launch
// every probe_period launches; where the context asks for splits, the plan
// keeps two devices at least.
//
// A split launch must also beat the launch run whole on one device (a
// streaming kernel's transfers can cost more than its devices save): once
// the shares were explored, the launch runs whole kWholeProbe times in a
// row, measured, and the whole launch counts at the best of its last
// kWholeProbe measurements: the first run of a probe gathers the data the
// parts left on their devices, and StarPU may place a whole launch on a
// device whose model it is still calibrating (a CPU device 900x slower
// than the GPU beside it), neither of which the next launches pay. From
// then on the launch runs whole while that is faster than split by more
// than the hysteresis, split again every probe_period launches (times how
// many times slower the split was, up to 64) to see whether it still is;
// while split wins, whole is probed again as often (times how many times
// slower whole was). The knobs are the divide functions'
// (DivideStrategyKnobs, PARASOL_DIVIDE_*).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <vector>

#include "schedulers/divide_strategy.h"

namespace parasol::schedulers {

class SplitShares {
 public:
  explicit SplitShares(DivideStrategyKnobs knobs = DivideStrategyKnobs::from_environment());

  // The groups each of n devices takes of `groups` (same order as
  // guessed_seconds: each device's modelled time for the whole launch, NaN
  // when unknown). Zero for a device left out; empty: run it whole.
  // may_run_whole false: always a split (the context asks for it).
  // measure_whole: for a launch to run whole, whether to measure it (once
  // every probe_period launches: the others go the way of any launch).
  std::vector<std::size_t> plan(std::uint64_t key, std::span<const double> guessed_seconds,
                                std::size_t groups, bool may_run_whole, bool& measure_whole);
  // A launch of key ran whole (as plan() said), or split, in seconds from
  // its start to its end.
  void record_whole(std::uint64_t key, double seconds);
  void record_split(std::uint64_t key, double seconds);
  // A launch of key ran: device i took seconds[i] for groups[i] groups
  // (devices with 0 groups are not measured).
  void record(std::uint64_t key, std::span<const std::size_t> groups,
              std::span<const double> seconds);

  // A device's share smaller than this leaves the plan.
  static constexpr double kMinShare = 0.03;
  // Whole launches in a row per probe, and measurements the estimate keeps.
  static constexpr unsigned kWholeProbe = 3;

 private:
  struct KeyState {
    std::vector<double> speed;   // groups per second, 0: not measured
    std::vector<double> share;   // fractions adopted, summing to 1
    std::uint64_t launches = 0;
    std::uint64_t measured = 0;  // launches recorded
    double split = 0;  // smoothed seconds of a split launch; 0: not yet
    // The last kWholeProbe times of the launch run whole (0: none yet).
    std::array<double, kWholeProbe> whole_times{};
    std::size_t whole_count = 0;
    unsigned whole_left = 0;  // launches of the current probe still to run whole
    bool whole_tried = false;
    std::uint64_t last_split = 0;  // the launch that split last
    std::uint64_t last_whole = 0;  // the launch run whole and measured last
  };
  void adopt_speeds(KeyState& s) const;
  // The best of the whole launch's last measurements; 0: none yet.
  static double whole_seconds(const KeyState& s);

  DivideStrategyKnobs knobs_;
  std::mutex mutex_;
  std::map<std::uint64_t, KeyState> states_;
};

// Divides `groups` by the fractions (largest remainders): whole groups
// whose sum is `groups`.
std::vector<std::size_t> apportion(std::span<const double> fractions, std::size_t groups);

// The process-wide shares every split launch uses.
SplitShares& split_shares();

}  // namespace parasol::schedulers
