// The placement of context queues' commands over ranks on its own, fed
// known times (no MPI, no OpenCL): deterministic, whatever the machine's
// load.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "schedulers/rank_placement.h"

using parasol::schedulers::RankPlacement;
using Outcome = RankPlacement::Outcome;

namespace {

constexpr std::uint64_t kMs = 1'000'000;  // ns
constexpr std::uint64_t kKey = 42;

// This process's devices (one place, width 1), and two nodes' devices.
const std::vector<RankPlacement::Place> kPlaces{{100, 100, 1}, {201, 1, 1}, {302, 2, 1}};

// Runs a command of kKey on places[at] from start, for ms, and ends it.
void run(RankPlacement& p, const RankPlacement::Ticket& t, std::uint64_t serial,
         std::uint64_t start, double ms, Outcome outcome = Outcome::Completed) {
  p.end(t, serial, start, start + static_cast<std::uint64_t>(ms * kMs), outcome);
}

// Calibrates every place, in order: kCalibrationRuns commands each, run
// one after the other, the place taking ms[i].
void calibrate(RankPlacement& p, const std::vector<double>& ms, std::uint64_t& now) {
  for (std::size_t i = 0; i < kPlaces.size(); ++i)
    for (unsigned r = 0; r < RankPlacement::kCalibrationRuns; ++r) {
      RankPlacement::Ticket t;
      const std::size_t at = p.choose(kKey, kPlaces, 0, now, t);
      REQUIRE(at == i);
      REQUIRE(t.calibrating);
      run(p, t, kPlaces[at].executor, now, ms[at]);
      now += 100 * kMs;
    }
}

}  // namespace

TEST_CASE("each place calibrates one command at a time, this process's first; then the rest "
          "stay here") {
  RankPlacement p;
  std::vector<std::size_t> chosen;
  std::vector<RankPlacement::Ticket> tickets;
  for (int i = 0; i < 6; ++i) {
    RankPlacement::Ticket t;
    chosen.push_back(p.choose(kKey, kPlaces, 0, 0, t));
    tickets.push_back(t);
  }
  CHECK(chosen == std::vector<std::size_t>{0, 1, 2, 0, 0, 0});
  CHECK(tickets[0].calibrating);
  CHECK(tickets[2].calibrating);
  CHECK_FALSE(tickets[3].calibrating);
}

TEST_CASE("the second measurement replaces the first; later ones are smoothed") {
  RankPlacement p;
  RankPlacement::Ticket t;
  REQUIRE(p.choose(kKey, kPlaces, 0, 0, t) == 0);
  CHECK(p.time_us(kKey, 100) < 0);
  run(p, t, 100, 0, 50.0);  // a first run that compiled the kernel
  CHECK(p.time_us(kKey, 100) == Approx(50'000));
  REQUIRE(p.choose(kKey, kPlaces, 0, 0, t) == 0);  // calibrates again
  run(p, t, 100, 100 * kMs, 2.0);
  CHECK(p.time_us(kKey, 100) == Approx(2'000));
  t = p.note(kKey, kPlaces[0], 0);
  run(p, t, 100, 200 * kMs, 12.0);
  CHECK(p.time_us(kKey, 100) == Approx(2'000 + RankPlacement::kSmoothing * 10'000));
}

TEST_CASE("a burst of independent commands spreads by expected end") {
  RankPlacement p;
  std::uint64_t now = 0;
  // This process takes 10 ms, node 1 12 ms (its moves included), node 2 40 ms.
  calibrate(p, {10, 12, 40}, now);
  std::vector<int> count(kPlaces.size(), 0);
  for (int i = 0; i < 12; ++i) {
    RankPlacement::Ticket t;
    ++count[p.choose(kKey, kPlaces, 0, now, t)];
  }
  // Ending by 60 ms or so: 6 here, 5 on node 1, 1 on node 2.
  CHECK(count[0] >= 5);
  CHECK(count[1] >= 4);
  CHECK(count[2] >= 1);
  CHECK(count[0] + count[1] + count[2] == 12);
  CHECK(count[0] >= count[1]);
  CHECK(count[1] > count[2]);
}

TEST_CASE("a command waiting for a long chain goes where it runs fastest") {
  RankPlacement p;
  std::uint64_t now = 0;
  calibrate(p, {10, 12, 12}, now);
  // Five commands outstanding here; the next one waits for a command
  // expected to end after all of them anyway.
  for (int i = 0; i < 5; ++i) {
    RankPlacement::Ticket t;
    REQUIRE(p.choose(kKey, kPlaces, 0, now, t) == (i % 3 == 1 ? 1 : i % 3 == 2 ? 2 : 0));
  }
  RankPlacement::Ticket t;
  CHECK(p.choose(kKey, kPlaces, now + 100 * kMs, now, t) == 0);
  CHECK(t.finish == now + 110 * kMs);
}

TEST_CASE("a command that waited behind another counts from that one's end") {
  RankPlacement p;
  std::uint64_t now = 0;
  calibrate(p, {10, 10, 10}, now);
  // Two commands sent to node 1 together: the second's start is when it
  // was sent, but it ran after the first.
  const RankPlacement::Ticket a = p.note(kKey, kPlaces[1], now);
  const RankPlacement::Ticket b = p.note(kKey, kPlaces[1], now);
  p.end(a, 1, now, now + 10 * kMs, Outcome::Completed);
  p.end(b, 1, now, now + 20 * kMs, Outcome::Completed);
  CHECK(p.time_us(kKey, 201) == Approx(10'000));
}

TEST_CASE("a lost node takes no more commands; a failure elsewhere is not measured") {
  RankPlacement p;
  std::uint64_t now = 0;
  calibrate(p, {40, 10, 40}, now);
  RankPlacement::Ticket t;
  REQUIRE(p.choose(kKey, kPlaces, 0, now, t) == 1);
  run(p, t, 1, now, 0.1, Outcome::NodeLost);
  for (int i = 0; i < 4; ++i) {
    RankPlacement::Ticket u;
    CHECK(p.choose(kKey, kPlaces, 0, now, u) != 1);
  }
  RankPlacement::Ticket f = p.note(kKey, kPlaces[2], now);
  run(p, f, 2, now + kMs, 0.5, Outcome::Failed);
  CHECK(p.time_us(kKey, 302) == Approx(40'000));
}

TEST_CASE("with no place of this process, the first remote place calibrates first") {
  RankPlacement p;
  const std::vector<RankPlacement::Place> remote{{201, 1, 1}, {302, 2, 1}};
  RankPlacement::Ticket t;
  CHECK(p.choose(kKey, remote, 0, 0, t) == 0);
  CHECK(p.choose(kKey, remote, 0, 0, t) == 1);
  CHECK(p.choose(kKey, remote, 0, 0, t) == 0);  // nothing measured: the first
}

TEST_CASE("an idle place left out for kProbePeriod commands is probed, and its new time kept") {
  RankPlacement p;
  std::uint64_t now = 0;
  calibrate(p, {10, 10, 100}, now);
  std::vector<double> ms{10, 10, 5};  // node 2 got faster since its calibration
  std::vector<std::size_t> chosen;
  for (std::uint64_t i = 0; i < RankPlacement::kProbePeriod + 4; ++i) {
    RankPlacement::Ticket t;
    const std::size_t at = p.choose(kKey, kPlaces, 0, now, t);
    chosen.push_back(at);
    run(p, t, kPlaces[at].executor, now, ms[at]);
    now += 100 * kMs;
  }
  // Left out while it looked 10x slower, probed once idle long enough,
  // then chosen for what it takes now.
  const auto first = std::find(chosen.begin(), chosen.end(), std::size_t{2});
  REQUIRE(first != chosen.end());
  CHECK(first - chosen.begin() >= static_cast<long>(RankPlacement::kProbePeriod) - 6);
  CHECK(p.time_us(kKey, 302) == Approx(5'000));
  CHECK(chosen.back() == 2);
}
