#include "schedulers/divide_strategy.h"

#include <algorithm>
#include <limits>

#include "util/settings.h"

namespace parasol::schedulers {

DivideStrategyKnobs DivideStrategyKnobs::from_environment() {
  DivideStrategyKnobs k;
  using settings::divide_knob;
  k.explore_runs = static_cast<unsigned>(divide_knob("EXPLORE_RUNS").value_or(k.explore_runs));
  k.probe_period = static_cast<unsigned>(divide_knob("PROBE_PERIOD").value_or(k.probe_period));
  k.smoothing = divide_knob("SMOOTHING").value_or(k.smoothing);
  k.hysteresis = divide_knob("HYSTERESIS").value_or(k.hysteresis);
  k.explore_runs = std::max(1u, k.explore_runs);
  k.probe_period = std::max(2u, k.probe_period);
  return k;
}

DivideStrategy::DivideStrategy(DivideStrategyKnobs knobs) : knobs_(knobs) {}

std::vector<unsigned> DivideStrategy::candidates(unsigned lo, unsigned hi, unsigned max_candidates) {
  std::vector<unsigned> out{0};
  if (hi - lo + 1 <= max_candidates) {
    for (unsigned f = lo; f <= hi; ++f) out.push_back(f);
    return out;
  }
  // A wide range: its ends and the powers of two between them.
  out.push_back(lo);
  for (unsigned p = 1; p && p < hi; p *= 2)
    if (p > lo) out.push_back(p);
  out.push_back(hi);
  return out;
}

DivideStrategy::KeyState& DivideStrategy::state(std::uint64_t key, unsigned lo, unsigned hi) {
  auto [it, fresh] = states_.try_emplace(key);
  if (fresh)
    for (unsigned f : candidates(lo, hi, knobs_.max_candidates)) it->second.candidates.push_back({f});
  return it->second;
}

unsigned DivideStrategy::choose(std::uint64_t key, unsigned lo, unsigned hi) {
  std::lock_guard lock(mutex_);
  KeyState& s = state(key, lo, hi);
  ++s.launches;
  // Exploration: the candidate with the fewest measurements (pending ones
  // count, so pipelined launches spread over the candidates).
  auto least = std::min_element(s.candidates.begin(), s.candidates.end(),
                                [](const Candidate& a, const Candidate& b) {
                                  return a.runs + a.pending < b.runs + b.pending;
                                });
  if (least->runs + least->pending < knobs_.explore_runs) {
    ++least->pending;
    return least->factor;
  }
  // Exploitation, with a probe of another candidate now and then.
  std::size_t pick = s.current;
  if (s.launches % knobs_.probe_period == 0 && s.candidates.size() > 1) {
    s.next_probe = (s.next_probe + 1) % s.candidates.size();
    if (s.next_probe == s.current) s.next_probe = (s.next_probe + 1) % s.candidates.size();
    pick = s.next_probe;
  }
  ++s.candidates[pick].pending;
  return s.candidates[pick].factor;
}

void DivideStrategy::record(std::uint64_t key, unsigned factor, double seconds) {
  std::lock_guard lock(mutex_);
  auto it = states_.find(key);
  if (it == states_.end()) return;
  KeyState& s = it->second;
  for (auto& c : s.candidates) {
    if (c.factor != factor) continue;
    if (c.pending) --c.pending;
    c.mean = c.runs == 0 ? seconds : (1 - knobs_.smoothing) * c.mean + knobs_.smoothing * seconds;
    ++c.runs;
  }
  update_best(s);
}

void DivideStrategy::update_best(KeyState& s) {
  auto score = [](const Candidate& c) {
    return c.runs ? c.mean : std::numeric_limits<double>::infinity();
  };
  // A challenger replaces the current choice only when clearly faster.
  const double bar = score(s.candidates[s.current]) * (1.0 - knobs_.hysteresis);
  std::size_t best = s.current;
  double best_score = score(s.candidates[s.current]);
  for (std::size_t i = 0; i < s.candidates.size(); ++i) {
    double sc = score(s.candidates[i]);
    if (sc < bar && sc < best_score) {
      best = i;
      best_score = sc;
    }
  }
  s.current = best;
}

unsigned DivideStrategy::best(std::uint64_t key) const {
  std::lock_guard lock(mutex_);
  auto it = states_.find(key);
  if (it == states_.end()) return 0;
  return it->second.candidates[it->second.current].factor;
}

DivideStrategy& divide_strategy() {
  static DivideStrategy strategy;
  return strategy;
}

}  // namespace parasol::schedulers
