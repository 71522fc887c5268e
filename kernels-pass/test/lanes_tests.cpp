// Kernels whose work-items leave their one loop at different iterations run
// in lanes (WorkItemLanes.h): each result is the one the plain lowering
// gives (the same kernel with a barrier at the top keeps it), bit for bit,
// and the CPU's. Work-group sizes that are no multiple of any strip width
// (the last strip's lanes past the local size sit out), global offsets,
// 2D ranges, several threads; loops left by break and by return, loads,
// stores and divisions inside the loop, work-items that never enter it.
#include "executor.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <string>

using namespace test;

namespace {

// The kernel as written, and with a barrier first (the plain lowering).
std::string with_barrier(const std::string& source, const std::string& kernel_open) {
  std::string s = source;
  const std::size_t at = s.find(kernel_open);
  const std::size_t brace = s.find('{', at);
  s.insert(brace + 1, "\n  barrier(CLK_LOCAL_MEM_FENCE);\n");
  return s;
}

NDRange offset_range(unsigned dims, std::array<std::size_t, 3> global, std::array<std::size_t, 3> local,
                     std::array<std::size_t, 3> offset) {
  NDRange r = range(dims, global, local);
  r.global_offset = offset;
  return r;
}

const char* kCollatz = R"(
  __kernel void collatz(__global uint* steps, __global ulong* peak, ulong first) {
    size_t i = get_global_id(0) - get_global_offset(0);
    ulong v = first + i, top = v;
    uint s = 0;
    while (v != 1) {
      v = (v & 1) ? 3 * v + 1 : v >> 1;
      top = max(top, v);
      ++s;
    }
    steps[i] = s;
    peak[i] = top;
  })";

}  // namespace

TEST_CASE("lanes: Collatz sequences, odd group sizes and an offset, as the plain lowering",
          "[e2e][lanes]") {
  // 29 items a group: strips of any width end masked; first = 1 gives a
  // work-item that never enters the loop.
  const std::size_t groups = 7, local = 29, n = groups * local, offset = 11;
  auto lanes = build_ok(kCollatz);
  auto plain = build_ok(with_barrier(kCollatz, "collatz"));
  for (unsigned long long first : {1ull, 1000ull, 837799ull}) {
    Buf<unsigned> steps(n + 3, ~0u), steps_plain(n + 3, ~0u);
    Buf<unsigned long long> peak(n + 3, 0), peak_plain(n + 3, 0);
    Args a1, a2;
    a1.ptr(steps.data()).ptr(peak.data()).value(first);
    a2.ptr(steps_plain.data()).ptr(peak_plain.data()).value(first);
    const NDRange r = offset_range(1, {n}, {local}, {offset, 0, 0});
    run(*lanes, "collatz", a1, r, 3);
    run(*plain, "collatz", a2, r, 3);
    for (std::size_t i = 0; i < n; ++i) {
      unsigned long long v = first + i, top = v;
      unsigned s = 0;
      while (v != 1) {
        v = (v & 1) ? 3 * v + 1 : v >> 1;
        top = std::max(top, v);
        ++s;
      }
      REQUIRE(steps[i] == s);
      REQUIRE(peak[i] == top);
      REQUIRE(steps_plain[i] == s);
      REQUIRE(peak_plain[i] == top);
    }
    for (std::size_t i = n; i < n + 3; ++i) REQUIRE(steps[i] == ~0u);  // no lane past the range
  }
}

TEST_CASE("lanes: an escape-time fractal in 2D, floats bit for bit", "[e2e][lanes]") {
  // Uncontracted, as the C++ reference computes it.
  const std::string source = R"(
    #pragma OPENCL FP_CONTRACT OFF
    __kernel void escape(__global uint* out, __global float* last, uint w, float scale, uint limit) {
      size_t x = get_global_id(0) - get_global_offset(0), y = get_global_id(1) - get_global_offset(1);
      if ((x * 7 + y) % 11 == 5) return;  // some work-items never reach the loop
      float cr = x * scale - 2.0f, ci = y * scale - 1.1f;
      float zr = 0.0f, zi = 0.0f;
      uint k = 0;
      while (k < limit && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++k;
      }
      out[y * w + x] = k;
      last[y * w + x] = zr / (1.0f + zi * zi);
    })";
  auto lanes = build_ok(source);
  auto plain = build_ok(with_barrier(source, "escape"));
  const std::size_t w = 45, h = 14;
  const float scale = 2.7f / w;
  const unsigned limit = 300;
  Buf<unsigned> out(w * h, 7u), out_plain(w * h, 7u);
  Buf<float> last(w * h, -1.0f), last_plain(w * h, -1.0f);
  Args a1, a2;
  a1.ptr(out.data()).ptr(last.data()).value(static_cast<unsigned>(w)).value(scale).value(limit);
  a2.ptr(out_plain.data()).ptr(last_plain.data()).value(static_cast<unsigned>(w)).value(scale).value(limit);
  const NDRange r = offset_range(2, {w, h}, {15, 7}, {5, 3, 0});
  run(*lanes, "escape", a1, r, 2);
  run(*plain, "escape", a2, r, 2);
  for (std::size_t i = 0; i < w * h; ++i) {
    REQUIRE(out[i] == out_plain[i]);
    REQUIRE(std::memcmp(&last[i], &last_plain[i], sizeof(float)) == 0);
  }
  // And the counts the CPU gives (the same float operations, in order).
  for (std::size_t y = 0; y < h; ++y)
    for (std::size_t x = 0; x < w; ++x) {
      if ((x * 7 + y) % 11 == 5) {
        REQUIRE(out[y * w + x] == 7u);
        continue;
      }
      const float cr = static_cast<float>(x) * scale - 2.0f, ci = static_cast<float>(y) * scale - 1.1f;
      float zr = 0.0f, zi = 0.0f;
      unsigned k = 0;
      while (k < limit && zr * zr + zi * zi <= 4.0f) {
        const float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++k;
      }
      REQUIRE(out[y * w + x] == k);
    }
}

TEST_CASE("lanes: break, return, loads, stores and divisions inside the loop", "[e2e][lanes]") {
  const std::string source = R"(
    __kernel void walk(__global const int* next, __global const int* div, __global int* trail,
                       __global int* out, int stop) {
      size_t i = get_global_id(0) - get_global_offset(0);
      int at = (int)i, acc = 0, steps = 0;
      while (at != stop) {
        int d = div[at];
        if (d == 0) { out[i] = -1000 - steps; return; }  // by return
        acc += 1000 / d;  // d is 0 in the lanes that returned
        trail[i * 64 + steps] = at;
        at = next[at];
        if (++steps == 64) break;  // by break
      }
      out[i] = acc * 100 + steps;
    })";
  auto lanes = build_ok(source);
  auto plain = build_ok(with_barrier(source, "walk"));
  const std::size_t n = 3 * 19;
  const int stop = 0;
  Buf<int> next(n), div(n);
  for (std::size_t j = 0; j < n; ++j) {
    next[j] = static_cast<int>((j * 37 + 11) % n);
    div[j] = (j % 13 == 6) ? 0 : static_cast<int>(j % 9) - 4;
    if (div[j] == 0 && j % 13 != 6) div[j] = 3;
  }
  Buf<int> trail(n * 64, -5), out(n, -9), trail_plain(n * 64, -5), out_plain(n, -9);
  Args a1, a2;
  a1.ptr(next.data()).ptr(div.data()).ptr(trail.data()).ptr(out.data()).value(stop);
  a2.ptr(next.data()).ptr(div.data()).ptr(trail_plain.data()).ptr(out_plain.data()).value(stop);
  const NDRange r = offset_range(1, {n}, {19}, {2, 0, 0});
  run(*lanes, "walk", a1, r, 3);
  run(*plain, "walk", a2, r, 3);
  for (std::size_t i = 0; i < n * 64; ++i) REQUIRE(trail[i] == trail_plain[i]);
  for (std::size_t i = 0; i < n; ++i) {
    int at = static_cast<int>(i), acc = 0, steps = 0, want = 0;
    bool returned = false;
    while (at != stop) {
      const int d = div[at];
      if (d == 0) {
        want = -1000 - steps;
        returned = true;
        break;
      }
      acc += 1000 / d;
      at = next[at];
      if (++steps == 64) break;
    }
    if (!returned) want = acc * 100 + steps;
    REQUIRE(out[i] == want);
    REQUIRE(out_plain[i] == want);
  }
}
