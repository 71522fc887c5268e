// Granularity adaptation: which partitioning factor a divisible kernel runs
// with next.
//
// Per key (kernel, NDRange, buffer sizes) every candidate is tried a few
// times (exploration), then the candidate with the lowest smoothed duration
// is used (exploitation). Statistics keep updating: every `probe_period`
// launches one other candidate is measured again, and the choice moves only
// when another candidate is faster by more than `hysteresis`, so on a stable
// machine the factor settles and stays, and when conditions change it moves.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace parasol::schedulers {

struct DivideStrategyKnobs {
  unsigned explore_runs = 2;     // measurements per candidate before exploiting
  unsigned probe_period = 16;    // launches between two probes of another candidate
  double smoothing = 0.3;        // weight of a new measurement in the average
  double hysteresis = 0.05;      // relative margin a challenger must win by
  unsigned max_candidates = 12;  // wide ranges are sampled (powers of two, ends)
  static DivideStrategyKnobs from_environment();  // PARASOL_DIVIDE_* overrides
};

class DivideStrategy {
 public:
  explicit DivideStrategy(DivideStrategyKnobs knobs = DivideStrategyKnobs::from_environment());

  // Candidates for a range: 0 stands for "the kernel itself, undivided".
  static std::vector<unsigned> candidates(unsigned min_factor, unsigned max_factor,
                                          unsigned max_candidates);

  // The factor the next launch of `key` uses.
  unsigned choose(std::uint64_t key, unsigned min_factor, unsigned max_factor);
  // A launch of `key` with `factor` took `seconds`.
  void record(std::uint64_t key, unsigned factor, double seconds);
  // The factor currently believed best (for tests and logs); 0 if unknown.
  unsigned best(std::uint64_t key) const;

 private:
  struct Candidate {
    unsigned factor;
    unsigned runs = 0;
    unsigned pending = 0;  // chosen, not measured yet
    double mean = 0.0;
  };
  struct KeyState {
    std::vector<Candidate> candidates;
    std::size_t current = 0;  // index of the exploited candidate
    std::uint64_t launches = 0;
    std::size_t next_probe = 0;
  };
  KeyState& state(std::uint64_t key, unsigned min_factor, unsigned max_factor);
  void update_best(KeyState& s);

  DivideStrategyKnobs knobs_;
  mutable std::mutex mutex_;
  std::map<std::uint64_t, KeyState> states_;
};

// The process-wide strategy every divisible kernel uses.
DivideStrategy& divide_strategy();

}  // namespace parasol::schedulers
