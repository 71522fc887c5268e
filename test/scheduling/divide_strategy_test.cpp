// The granularity strategy on its own, fed known costs: deterministic,
// whatever the machine's load.
#include <catch2/catch.hpp>

#include <map>

#include "schedulers/divide_strategy.h"

using parasol::schedulers::DivideStrategy;
using parasol::schedulers::DivideStrategyKnobs;

namespace {

// Runs `launches` launches of one key whose cost per factor is cost(f),
// returning the factors chosen in order.
template <typename Cost>
std::vector<unsigned> drive(DivideStrategy& s, unsigned lo, unsigned hi, int launches, Cost cost,
                            std::uint64_t key = 42) {
  std::vector<unsigned> chosen;
  for (int i = 0; i < launches; ++i) {
    unsigned f = s.choose(key, lo, hi);
    chosen.push_back(f);
    s.record(key, f, cost(f));
  }
  return chosen;
}

}  // namespace

TEST_CASE("candidates: undivided plus the range, sampled when wide") {
  auto small = DivideStrategy::candidates(2, 5, 12);
  CHECK(small == std::vector<unsigned>{0, 2, 3, 4, 5});
  auto wide = DivideStrategy::candidates(1, 1000, 12);
  CHECK(wide.front() == 0);
  CHECK(wide[1] == 1);
  CHECK(wide.back() == 1000);
  CHECK(wide.size() <= 13);
  for (unsigned f : wide) CHECK((f == 0 || (f >= 1 && f <= 1000)));
}

TEST_CASE("converges to the cheapest factor within the exploration budget and stays") {
  DivideStrategyKnobs k;
  k.explore_runs = 2;
  k.probe_period = 16;
  DivideStrategy s(k);
  auto cost = [](unsigned f) { return f == 3 ? 1.0 : 2.0 + 0.1 * f; };
  auto chosen = drive(s, 1, 6, 200, cost);
  // 7 candidates (undivided, 1..6) x 2 runs = 14 exploring launches.
  CHECK(s.best(42) == 3);
  int off = 0;
  for (std::size_t i = 14; i < chosen.size(); ++i) off += chosen[i] != 3;
  // Only the periodic probes leave factor 3: one launch in 16.
  CHECK(off <= static_cast<int>((chosen.size() - 14) / 16 + 1));
  for (unsigned f : chosen) CHECK((f == 0 || (f >= 1 && f <= 6)));
}

TEST_CASE("noise inside the hysteresis margin does not make the choice flap") {
  DivideStrategyKnobs k;
  k.hysteresis = 0.05;
  DivideStrategy s(k);
  int t = 0;
  // Factors 2 and 3 within 2% of each other, alternately ahead.
  auto cost = [&t](unsigned f) {
    ++t;
    if (f == 2) return t % 2 ? 1.00 : 1.02;
    if (f == 3) return t % 2 ? 1.02 : 1.00;
    return 3.0;
  };
  drive(s, 1, 4, 30, cost);
  unsigned settled = s.best(42);
  REQUIRE((settled == 2 || settled == 3));
  int changes = 0;
  unsigned last = settled;
  for (int i = 0; i < 100; ++i) {
    drive(s, 1, 4, 1, cost);
    changes += s.best(42) != last;
    last = s.best(42);
  }
  CHECK(changes == 0);
}

TEST_CASE("when conditions change, the choice moves to the new cheapest factor") {
  DivideStrategy s;
  bool loaded = false;
  // Before: factor 4 cheapest. After (a device busy with other work):
  // fewer, larger pieces win.
  auto cost = [&loaded](unsigned f) {
    if (!loaded) return f == 4 ? 1.0 : 2.0;
    return f == 1 ? 1.0 : 3.0;
  };
  drive(s, 1, 4, 60, cost);
  CHECK(s.best(42) == 4);
  loaded = true;
  drive(s, 1, 4, 400, cost);
  CHECK(s.best(42) == 1);
}

TEST_CASE("keys are independent: each NDRange learns its own factor") {
  DivideStrategy s;
  drive(s, 1, 4, 80, [](unsigned f) { return f == 2 ? 1.0 : 2.0; }, 1);
  drive(s, 1, 4, 80, [](unsigned f) { return f == 4 ? 1.0 : 2.0; }, 2);
  CHECK(s.best(1) == 2);
  CHECK(s.best(2) == 4);
}
