// RingQueue (util/ring_queue.h): the order of a lane's commands, across the
// array's wrap-around and its growth.
#include <cstddef>
#include <deque>

#include <catch2/catch.hpp>

#include "util/ring_queue.h"

using parasol::RingQueue;

TEST_CASE("RingQueue gives back what was pushed in order, across wrap-around and growth") {
  RingQueue<int> q;
  std::deque<int> want;  // the reference
  int next = 0;
  // Pushes outpace pops, then pops catch up: the front moves around the
  // array while it doubles (16, 32, 64, ...).
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < round % 7 + 1; ++i) {
      q.push_back(next);
      want.push_back(next++);
    }
    for (int i = 0; i < round % 5 && !want.empty(); ++i) {
      REQUIRE(!q.empty());
      CHECK(q.front() == want.front());
      q.pop_front();
      want.pop_front();
    }
    REQUIRE(q.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) REQUIRE(q[i] == want[i]);
    if (!want.empty()) CHECK(q.back() == want.back());
  }
  while (!want.empty()) {
    CHECK(q.front() == want.front());
    q.pop_front();
    want.pop_front();
  }
  CHECK(q.empty());
  q.push_back(-1);  // reused after emptying
  CHECK(q.front() == -1);
  CHECK(q.size() == 1);
}
