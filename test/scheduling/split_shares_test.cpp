// The shares of split launches on their own, fed known times:
// deterministic, whatever the machine's load.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

#include "schedulers/split_shares.h"

using parasol::schedulers::DivideStrategyKnobs;
using parasol::schedulers::SplitShares;

namespace {

// Groups per device of each of `launches` launches over devices whose speeds
// (groups per second) are given, the context asking for splits or not.
std::vector<std::vector<std::size_t>> drive(SplitShares& shares, const std::vector<double>& speed,
                                            std::size_t groups, int launches, bool may_run_whole) {
  std::vector<std::vector<std::size_t>> plans;
  const std::vector<double> unknown(speed.size(), 0.0);
  for (int i = 0; i < launches; ++i) {
    bool whole = false;
    auto plan = shares.plan(7, unknown, groups, may_run_whole, whole);
    if (whole || plan.empty()) {
      shares.record_whole(7, 1.0);
      plans.push_back({});
      continue;
    }
    std::vector<double> seconds(plan.size(), 0.0);
    for (std::size_t d = 0; d < plan.size(); ++d)
      seconds[d] = plan[d] ? static_cast<double>(plan[d]) / speed[d] : 0.0;
    shares.record(7, plan, seconds);
    plans.push_back(plan);
  }
  return plans;
}

std::size_t parts(const std::vector<std::size_t>& plan) {
  return static_cast<std::size_t>(std::count_if(plan.begin(), plan.end(), [](std::size_t g) { return g > 0; }));
}

}  // namespace

TEST_CASE("a split the context asks for keeps two devices however lopsided their speeds") {
  SplitShares shares(DivideStrategyKnobs{});
  // One device a thousand times faster than the two others: both fall
  // under the smallest share.
  const auto plans = drive(shares, {1000.0, 1.0, 0.5}, 211, 40, /*may_run_whole=*/false);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    INFO("launch " << i);
    REQUIRE(parts(plans[i]) >= 2);
    CHECK(std::accumulate(plans[i].begin(), plans[i].end(), std::size_t{0}) == 211);
  }
  // The device kept is the faster of the two left out.
  CHECK(plans.back()[1] > 0);
}

TEST_CASE("a split the policy may run whole drops devices under the smallest share") {
  SplitShares shares(DivideStrategyKnobs{});
  // The first launch shares equally and measures; the second follows the
  // speeds.
  const auto plans = drive(shares, {1000.0, 1.0, 0.5}, 211, 2, /*may_run_whole=*/true);
  CHECK(parts(plans[0]) == 3);
  CHECK(parts(plans[1]) == 1);
}

namespace {

// Launches of key 9 over two devices whose split takes split_seconds, the
// whole launch whole_seconds(n) at its n-th run; how many of the launches
// from `from` on ran split, and how many ran whole in all.
struct WholeOrSplit {
  int split_after = 0, whole = 0;
};
template <typename WholeTime>
WholeOrSplit run_whole_or_split(int launches, int from, double split_seconds, WholeTime whole_time) {
  SplitShares shares(DivideStrategyKnobs{});
  const std::vector<double> unknown(2, 0.0);
  WholeOrSplit out;
  for (int i = 0; i < launches; ++i) {
    bool measure = false;
    const auto plan = shares.plan(9, unknown, 64, /*may_run_whole=*/true, measure);
    if (plan.empty()) {
      if (measure) shares.record_whole(9, whole_time(out.whole));
      ++out.whole;
      continue;
    }
    const std::vector<double> seconds(2, split_seconds);
    shares.record(9, plan, seconds);
    shares.record_split(9, split_seconds);
    if (i >= from) ++out.split_after;
  }
  return out;
}

}  // namespace

TEST_CASE("a slow first run whole does not keep a launch split that whole runs faster") {
  // The first whole run gathers the parts' data, or StarPU calibrates a
  // slow device with it: 100x the launch's time whole from then on.
  const WholeOrSplit r =
      run_whole_or_split(80, 20, 5.0, [](int n) { return n == 0 ? 50.0 : 0.5; });
  CHECK(r.split_after == 0);
}

TEST_CASE("while split wins, the launch is probed whole again now and then") {
  // Whole takes twice the split's time: probed every 2 x probe_period launches.
  const WholeOrSplit r = run_whole_or_split(200, 0, 1.0, [](int) { return 2.0; });
  CHECK(r.whole >= 2 * static_cast<int>(SplitShares::kWholeProbe));
  CHECK(r.whole <= 200 / 8);
}
