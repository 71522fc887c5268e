// Kernels whose work-item loop holds an inner loop that every work-item
// leaves at the same iteration run in rounds (WorkItemRounds.h: nbody, the
// 2D kernel) and give the results of one work-item after another (loops
// left apart run in lanes: lanes_tests.cpp). Work-group sizes that are no
// multiple of any vector width, global offsets, several threads.
#include "executor.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace test;

namespace {

// nbody's force kernel; `scalar` adds a barrier at the top, which keeps the
// plain lowering (a scalar work-item loop around the inner loop).
std::string nbody_source(bool scalar) {
  return std::string(R"(
    __kernel void forces(__global const float4* pos, __global float4* acc, uint n, uint count,
                         float eps2) {
  )") + (scalar ? "barrier(CLK_LOCAL_MEM_FENCE);\n" : "") + R"(
      uint i = get_global_id(0) - get_global_offset(0);
      if (i >= count) return;
      float3 p = pos[i].xyz;
      float3 a = (float3)(0.0f, 0.0f, 0.0f);
      for (uint j = 0; j < n; ++j) {
        float4 q = pos[j];
        float3 d = q.xyz - p;
        float inv = rsqrt(dot(d, d) + eps2);
        a += (q.w * inv * inv * inv) * d;
      }
      acc[i] = (float4)(a, 0.0f);
    })";
}

NDRange with_offset(NDRange r, std::size_t off) {
  r.global_offset[0] = off;
  return r;
}

}  // namespace

TEST_CASE("nbody in rounds: the scalar lowering's floats, bit for bit", "[e2e][rounds]") {
  const unsigned n = 203, count = 190;  // the last group's items past count return at once
  Buf<float> pos(4 * n);
  for (unsigned i = 0; i < n; ++i) {
    unsigned h = (i + 1) * 2654435761u;
    for (int c = 0; c < 3; ++c) {
      h = h * 1664525u + 1013904223u;
      pos[4 * i + c] = static_cast<float>(h >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f;
    }
    pos[4 * i + 3] = (0.5f + static_cast<float>(i % 11) / 10.0f) / static_cast<float>(n);
  }
  const float eps2 = 0.01f;
  const NDRange r = with_offset(range(1, {37 * 6}, {37}), 5);
  auto rounds = build_ok(nbody_source(false));
  auto scalar = build_ok(nbody_source(true));
  Buf<float> got(4 * n, -7.0f), want(4 * n, -7.0f);
  Args a1, a2;
  a1.ptr(pos.data()).ptr(got.data()).value(n).value(count).value(eps2);
  a2.ptr(pos.data()).ptr(want.data()).value(n).value(count).value(eps2);
  run(*rounds, "forces", a1, r, 3);
  run(*scalar, "forces", a2, r, 3);
  // Same operations in the same order per work-item: identical floats.
  for (unsigned i = 0; i < 4 * n; ++i) REQUIRE(got[i] == want[i]);
  // And the forces they should be (double reference; float rounding over n terms).
  for (unsigned i = 0; i < count; ++i) {
    double acc[3] = {0, 0, 0};
    for (unsigned j = 0; j < n; ++j) {
      double d[3] = {pos[4 * j] - pos[4 * i], pos[4 * j + 1] - pos[4 * i + 1], pos[4 * j + 2] - pos[4 * i + 2]};
      double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
      double f = pos[4 * j + 3] / (r2 * std::sqrt(r2));
      for (int c = 0; c < 3; ++c) acc[c] += f * d[c];
    }
    for (int c = 0; c < 3; ++c) REQUIRE(std::fabs(got[4 * i + c] - acc[c]) <= 1e-4 * (1 + std::fabs(acc[c])));
  }
  for (unsigned i = count; i < n; ++i) REQUIRE(got[4 * i] == -7.0f);
}

TEST_CASE("a uniform loop that work-items leave early, by break and by return", "[e2e][rounds]") {
  auto p = build_ok(R"(
    __kernel void find(__global const int* keys, __global const int* data, uint n,
                       __global int* where, __global int* sum) {
      size_t i = get_global_id(0);
      int key = keys[i], s = 0;
      for (uint j = 0; j < n; ++j) {
        s += data[j] ^ (int)i;
        if (data[j] == key) { where[i] = j; sum[i] = s; return; }
        if (s < -1000000) break;
      }
      where[i] = -1;
      sum[i] = s;
    })");
  const std::size_t n_items = 5 * 23, n = 300;
  Buf<int> keys(n_items), data(n), where(n_items, 7), sum(n_items, 7);
  for (std::size_t j = 0; j < n; ++j) data[j] = static_cast<int>((j * 7919) % 1000) - 500;
  for (std::size_t i = 0; i < n_items; ++i) keys[i] = static_cast<int>((i * 104729) % 1100) - 550;
  Args args;
  args.ptr(keys.data()).ptr(data.data()).value(static_cast<unsigned>(n)).ptr(where.data()).ptr(sum.data());
  run(*p, "find", args, range(1, {n_items}, {23}), 2);
  for (std::size_t i = 0; i < n_items; ++i) {
    int w = -1, s = 0;
    for (std::size_t j = 0; j < n; ++j) {
      s += data[j] ^ static_cast<int>(i);
      if (data[j] == keys[i]) {
        w = static_cast<int>(j);
        break;
      }
      if (s < -1000000) break;
    }
    REQUIRE(where[i] == w);
    REQUIRE(sum[i] == s);
  }
}

TEST_CASE("rounds in a 2D range: branches per work-item inside a uniform loop", "[e2e][rounds]") {
  auto p = build_ok(R"(
    __kernel void mix(__global const uint* data, uint n, __global uint* out) {
      size_t x = get_global_id(0), y = get_global_id(1);
      if ((x + y) % 7 == 3) return;
      uint acc = 7, key = (uint)(x * 13 + y);
      for (uint k = 0; k < n; ++k) {
        uint d = data[k];
        if ((d ^ key) & 4) acc = acc * 31 + d;
        else acc ^= d >> (key & 7);
      }
      out[(y - get_global_offset(1)) * 30 + x - get_global_offset(0)] = acc;
    })");
  const std::size_t w = 30, h = 10, n = 77, ox = 3, oy = 2;
  Buf<unsigned> data(n), out(w * h, 1);
  for (std::size_t k = 0; k < n; ++k) data[k] = static_cast<unsigned>(k * 2654435761u);
  Args args;
  args.ptr(data.data()).value(static_cast<unsigned>(n)).ptr(out.data());
  NDRange r = range(2, {w, h}, {15, 5});
  r.global_offset = {ox, oy, 0};
  run(*p, "mix", args, r, 2);
  for (std::size_t y = oy; y < oy + h; ++y)
    for (std::size_t x = ox; x < ox + w; ++x) {
      unsigned want = 1;
      if ((x + y) % 7 != 3) {
        unsigned acc = 7, key = static_cast<unsigned>(x * 13 + y);
        for (std::size_t k = 0; k < n; ++k) {
          unsigned d = data[k];
          if ((d ^ key) & 4)
            acc = acc * 31 + d;
          else
            acc ^= d >> (key & 7);
        }
        want = acc;
      }
      REQUIRE(out[(y - oy) * w + x - ox] == want);
    }
}
