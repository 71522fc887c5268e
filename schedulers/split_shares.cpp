#include "schedulers/split_shares.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace parasol::schedulers {

SplitShares::SplitShares(DivideStrategyKnobs knobs) : knobs_(knobs) {}

std::vector<std::size_t> apportion(std::span<const double> fractions, std::size_t groups) {
  std::vector<std::size_t> out(fractions.size(), 0);
  const double total = std::accumulate(fractions.begin(), fractions.end(), 0.0);
  if (fractions.empty() || !(total > 0)) {
    if (!out.empty()) out[0] = groups;
    return out;
  }
  std::vector<std::pair<double, std::size_t>> remainders;
  std::size_t given = 0;
  for (std::size_t i = 0; i < fractions.size(); ++i) {
    const double exact = fractions[i] / total * static_cast<double>(groups);
    out[i] = static_cast<std::size_t>(std::floor(exact));
    given += out[i];
    if (fractions[i] > 0) remainders.emplace_back(exact - std::floor(exact), i);
  }
  std::sort(remainders.begin(), remainders.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; given < groups && !remainders.empty(); ++k, ++given)
    ++out[remainders[k % remainders.size()].second];
  return out;
}

void SplitShares::adopt_speeds(KeyState& s) const {
  const double total = std::accumulate(s.speed.begin(), s.speed.end(), 0.0);
  if (!(total > 0)) return;
  for (std::size_t i = 0; i < s.speed.size(); ++i) {
    const double f = s.speed[i] / total;
    s.share[i] = f < kMinShare ? 0.0 : f;
  }
}

std::vector<std::size_t> SplitShares::plan(std::uint64_t key,
                                           std::span<const double> guessed_seconds,
                                           std::size_t groups, bool may_run_whole,
                                           bool& measure_whole) {
  measure_whole = false;
  std::lock_guard lock(mutex_);
  const std::size_t n = guessed_seconds.size();
  KeyState& s = states_[key];
  if (s.share.size() != n) {
    s = KeyState{};
    s.speed.assign(n, 0.0);
    s.share.assign(n, 1.0);  // equal, unless every model knows the launch
    if (std::all_of(guessed_seconds.begin(), guessed_seconds.end(),
                    [](double t) { return std::isfinite(t) && t > 0; })) {
      for (std::size_t i = 0; i < n; ++i) s.share[i] = 1.0 / guessed_seconds[i];
      const double total = std::accumulate(s.share.begin(), s.share.end(), 0.0);
      for (double& f : s.share) f = f / total < kMinShare ? 0.0 : f / total;
    }
  }
  ++s.launches;
  // Whole or split: once the shares were explored, probe the launch whole;
  // keep it whole while it is faster, with a split now and then, and probe
  // it whole again now and then while split wins. A probe that loses by far
  // is made as much less often (up to 64 times), so that probing costs
  // about 1/probe_period of the launches' time.
  if (may_run_whole && s.measured >= knobs_.explore_runs && !s.whole_tried) {
    s.whole_tried = true;
    s.whole_left = kWholeProbe;
  }
  const double whole = whole_seconds(s);
  if (may_run_whole && s.whole_left == 0 && whole > 0 && s.split > 0 &&
      s.split * (1 + knobs_.hysteresis) < whole) {
    const double period = knobs_.probe_period * std::min(64.0, std::ceil(whole / s.split));
    if (static_cast<double>(s.launches - s.last_whole) >= period) s.whole_left = kWholeProbe;
  }
  if (may_run_whole && s.whole_left > 0) {
    --s.whole_left;
    measure_whole = true;
    s.last_whole = s.launches;
    return {};
  }
  if (may_run_whole && whole > 0 && s.split > 0 && whole * (1 + knobs_.hysteresis) < s.split) {
    const double period = knobs_.probe_period * std::min(64.0, std::ceil(s.split / whole));
    if (static_cast<double>(s.launches - s.last_split) < period) {
      measure_whole = s.launches - s.last_whole >= knobs_.probe_period;
      if (measure_whole) s.last_whole = s.launches;
      return {};
    }
  }
  s.last_split = s.launches;
  std::vector<double> fractions = s.share;
  // A device left out comes back for one launch now and then, with a small
  // share, so that a change of speed is seen.
  if (s.launches % knobs_.probe_period == 0)
    for (double& f : fractions)
      if (f == 0.0) f = kMinShare;
  // A split the context asks for has two parts at least: the fastest of
  // the devices left out comes back with the smallest share.
  if (!may_run_whole) {
    while (n >= 2 && std::count_if(fractions.begin(), fractions.end(),
                                   [](double f) { return f > 0.0; }) < 2) {
      std::size_t back = n;
      for (std::size_t i = 0; i < n; ++i)
        if (fractions[i] == 0.0 && (back == n || s.speed[i] > s.speed[back])) back = i;
      fractions[back] = kMinShare;
    }
  }
  return apportion(fractions, groups);
}

void SplitShares::record(std::uint64_t key, std::span<const std::size_t> groups,
                         std::span<const double> seconds) {
  std::lock_guard lock(mutex_);
  auto it = states_.find(key);
  if (it == states_.end() || it->second.speed.size() != groups.size()) return;
  KeyState& s = it->second;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (!groups[i] || !(seconds[i] > 0)) continue;
    const double v = static_cast<double>(groups[i]) / seconds[i];
    s.speed[i] = s.speed[i] > 0 ? (1 - knobs_.smoothing) * s.speed[i] + knobs_.smoothing * v : v;
  }
  ++s.measured;
  // A device never measured yet keeps its share until it is.
  for (std::size_t i = 0; i < s.speed.size(); ++i)
    if (s.speed[i] == 0 && s.share[i] > 0) return;
  if (s.measured <= knobs_.explore_runs) {
    adopt_speeds(s);
    return;
  }
  // Predicted times of the parts as shared now: move only if they differ
  // by more than the hysteresis.
  double lo = INFINITY, hi = 0;
  for (std::size_t i = 0; i < s.speed.size(); ++i) {
    if (s.share[i] == 0 || s.speed[i] == 0) continue;
    const double t = s.share[i] / s.speed[i];
    lo = std::min(lo, t);
    hi = std::max(hi, t);
  }
  // A probed device faster than its absence suggests also moves them.
  bool probe_wins = false;
  const double total = std::accumulate(s.speed.begin(), s.speed.end(), 0.0);
  for (std::size_t i = 0; i < s.speed.size(); ++i)
    if (s.share[i] == 0 && total > 0 && s.speed[i] / total >= kMinShare) probe_wins = true;
  if (probe_wins || (lo > 0 && hi > lo * (1 + knobs_.hysteresis))) adopt_speeds(s);
}

namespace {
void smooth(double& mean, double v, double weight) {
  if (v > 0) mean = mean > 0 ? (1 - weight) * mean + weight * v : v;
}
}  // namespace

double SplitShares::whole_seconds(const KeyState& s) {
  const std::size_t n = std::min<std::size_t>(s.whole_count, kWholeProbe);
  if (n == 0) return 0;
  return *std::min_element(s.whole_times.begin(), s.whole_times.begin() + static_cast<std::ptrdiff_t>(n));
}

void SplitShares::record_whole(std::uint64_t key, double seconds) {
  std::lock_guard lock(mutex_);
  auto it = states_.find(key);
  if (it == states_.end() || !(seconds > 0)) return;
  KeyState& s = it->second;
  s.whole_times[s.whole_count++ % kWholeProbe] = seconds;
}

void SplitShares::record_split(std::uint64_t key, double seconds) {
  std::lock_guard lock(mutex_);
  auto it = states_.find(key);
  if (it != states_.end()) smooth(it->second.split, seconds, knobs_.smoothing);
}

SplitShares& split_shares() {
  static SplitShares shares;
  return shares;
}

}  // namespace parasol::schedulers
