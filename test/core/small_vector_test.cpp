// util/small_vector.h on its own: the first N values in place, the rest on
// the heap, and (since a host transfer's buffer list became one) values that
// hold references: every reference given back when cleared, moved from or
// destroyed, none left behind in the in-place slots when it grows.
#include <memory>
#include <utility>

#include <catch2/catch.hpp>

#include "util/small_vector.h"

using parasol::SmallVector;

TEST_CASE("SmallVector keeps values in order in place and past its places") {
  SmallVector<int, 2> v{1, 2};
  REQUIRE(v.size() == 2);
  for (int i = 3; i <= 9; ++i) v.push_back(i);
  REQUIRE(v.size() == 9);
  for (int i = 0; i < 9; ++i) CHECK(v[i] == i + 1);
  v.clear();
  CHECK(v.empty());
  v.push_back(7);
  CHECK(v[0] == 7);
}

TEST_CASE("SmallVector of references gives every one back: cleared, grown, moved, destroyed") {
  auto p = std::make_shared<int>(42);
  {
    SmallVector<std::shared_ptr<int>, 2> v;
    v.push_back(p);
    v.push_back(p);
    CHECK(p.use_count() == 3);
    v.clear();
    CHECK(p.use_count() == 1);

    // Past its two places: the in-place slots hand their values over.
    for (int i = 0; i < 3; ++i) v.push_back(p);
    CHECK(p.use_count() == 4);
    for (const auto& q : v) CHECK(*q == 42);
    v.clear();
    CHECK(p.use_count() == 1);

    v.push_back(p);
    v.push_back(p);
    SmallVector<std::shared_ptr<int>, 2> w(std::move(v));
    CHECK(v.empty());
    CHECK(w.size() == 2);
    CHECK(p.use_count() == 3);

    SmallVector<std::shared_ptr<int>, 2> x{p};
    x = std::move(w);  // x's own reference goes, w's two move over
    CHECK(w.empty());
    CHECK(x.size() == 2);
    CHECK(p.use_count() == 3);

    SmallVector<std::shared_ptr<int>, 2> copy = x;
    CHECK(p.use_count() == 5);
  }
  CHECK(p.use_count() == 1);
}

TEST_CASE("SmallVector takes a value pushed as a temporary without a copy, in place and past it") {
  auto p = std::make_shared<int>(7);
  SmallVector<std::shared_ptr<int>, 1> v;
  auto a = p, b = p;
  CHECK(p.use_count() == 3);
  v.push_back(std::move(a));  // in place
  v.push_back(std::move(b));  // past its one place
  CHECK(!a);
  CHECK(!b);
  CHECK(p.use_count() == 3);
  CHECK(*v[0] == 7);
  CHECK(*v[1] == 7);
}
