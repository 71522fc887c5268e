// Kernels on the native CPU device and on PoCL, through Parasol device
// queues: barriers (reductions, tiles, scans, barriers in loops), vector
// types and swizzles, integer built-ins, atomics under contention,
// async_work_group_copy and __local memory up to the device's limit. Every
// result is compared with a CPU reference and between the two devices.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include "native/native_fixture.h"

using namespace parasol_test;

namespace {

const char* kBarrierKernels = R"CLC(
__kernel void reduce_local(__global const int* in, __global int* out, __local int* scratch) {
  size_t l = get_local_id(0), n = get_local_size(0);
  scratch[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = n / 2; s > 0; s >>= 1) {
    if (l < s) scratch[l] += scratch[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = scratch[0];
}

#define TILE 16
__kernel void transpose_tiled(__global const float* in, __global float* out, int rows, int cols) {
  __local float tile[TILE][TILE + 1];
  int c = get_global_id(0), r = get_global_id(1);
  int lc = get_local_id(0), lr = get_local_id(1);
  if (r < rows && c < cols) tile[lr][lc] = in[r * cols + c];
  barrier(CLK_LOCAL_MEM_FENCE);
  int oc = get_group_id(1) * TILE + lc, or = get_group_id(0) * TILE + lr;
  if (or < cols && oc < rows) out[or * rows + oc] = tile[lc][lr];
}

// Hillis-Steele inclusive scan of each work-group's slice, double buffered.
__kernel void scan_inclusive(__global const uint* in, __global uint* out, __local uint* a,
                             __local uint* b) {
  size_t l = get_local_id(0), n = get_local_size(0);
  a[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t off = 1; off < n; off <<= 1) {
    b[l] = l >= off ? a[l] + a[l - off] : a[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    __local uint* t = a; a = b; b = t;
  }
  out[get_global_id(0)] = a[l];
}

// Barriers inside a loop whose trip count is an argument, with private
// state carried across them: each round every item adds its right
// neighbour's value from the previous round.
__kernel void neighbour_rounds(__global int* data, int rounds, __local int* cur) {
  size_t l = get_local_id(0), n = get_local_size(0);
  int mine = data[get_global_id(0)];
  int history = 0;
  for (int r = 0; r < rounds; ++r) {
    cur[l] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    int right = cur[(l + 1) % n];
    barrier(CLK_LOCAL_MEM_FENCE);
    mine += right;
    history = history * 3 + (mine & 7);
  }
  data[get_global_id(0)] = mine ^ history;
}
)CLC";

}  // namespace

TEST_CASE("a local-memory reduction with a barrier in its loop matches the CPU on native and PoCL") {
  NativeAndPocl f;
  Program prog(f.ctx, kBarrierKernels);
  Kernel k(prog, "reduce_local");
  const size_t n = 1 << 16;
  std::vector<int> in(n);
  std::mt19937 rng(1);
  for (auto& x : in) x = static_cast<int>(rng() % 2001) - 1000;
  for (size_t wg : {size_t{1}, size_t{64}, size_t{256}}) {
    INFO("work-group size " << wg);
    std::vector<int> expect(n / wg, 0);
    for (size_t i = 0; i < n; ++i) expect[i / wg] += in[i];
    std::vector<std::vector<int>> got;
    for (auto [name, q] : f.queues()) {
      INFO(name);
      Mem src(make_buffer(f.ctx, in)), dst(f.ctx, CL_MEM_READ_WRITE, n / wg * sizeof(int));
      set_args(k, src.m, dst.m);
      CL_REQUIRE(clSetKernelArg(k, 2, wg * sizeof(int), nullptr));
      launch(q, k, 1, &n, &wg);
      got.push_back(read_back<int>(q, dst, n / wg));
      CHECK(got.back() == expect);
    }
    CHECK(got[0] == got[1]);
  }
}

TEST_CASE("a tiled transpose through __local tiles matches the CPU on native and PoCL") {
  NativeAndPocl f;
  Program prog(f.ctx, kBarrierKernels);
  Kernel k(prog, "transpose_tiled");
  const int rows = 200, cols = 136;  // not multiples of the tile: edge groups
  std::vector<float> in(rows * cols);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.5f;
  std::vector<float> expect(in.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) expect[c * rows + r] = in[r * cols + c];
  const size_t global[2] = {144, 208}, local[2] = {16, 16};
  std::vector<std::vector<float>> got;
  for (auto [name, q] : f.queues()) {
    INFO(name);
    Mem src(make_buffer(f.ctx, in)), dst(f.ctx, CL_MEM_READ_WRITE, in.size() * sizeof(float));
    set_args(k, src.m, dst.m, rows, cols);
    launch(q, k, 2, global, local);
    got.push_back(read_back<float>(q, dst, in.size()));
    CHECK(got.back() == expect);
  }
  CHECK(got[0] == got[1]);
}

TEST_CASE("a work-group prefix sum with swapped __local pointers matches the CPU on native and PoCL") {
  NativeAndPocl f;
  Program prog(f.ctx, kBarrierKernels);
  Kernel k(prog, "scan_inclusive");
  const size_t n = 8192, wg = 128;
  std::vector<cl_uint> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<cl_uint>((i * 37) % 101);
  std::vector<cl_uint> expect(n);
  for (size_t i = 0; i < n; ++i) expect[i] = in[i] + (i % wg ? expect[i - 1] : 0);
  std::vector<std::vector<cl_uint>> got;
  for (auto [name, q] : f.queues()) {
    INFO(name);
    Mem src(make_buffer(f.ctx, in)), dst(f.ctx, CL_MEM_READ_WRITE, n * sizeof(cl_uint));
    set_args(k, src.m, dst.m);
    CL_REQUIRE(clSetKernelArg(k, 2, wg * sizeof(cl_uint), nullptr));
    CL_REQUIRE(clSetKernelArg(k, 3, wg * sizeof(cl_uint), nullptr));
    launch(q, k, 1, &n, &wg);
    got.push_back(read_back<cl_uint>(q, dst, n));
    CHECK(got.back() == expect);
  }
  CHECK(got[0] == got[1]);
}

TEST_CASE("barriers inside a loop with state carried across them match the CPU on native and PoCL") {
  NativeAndPocl f;
  Program prog(f.ctx, kBarrierKernels);
  Kernel k(prog, "neighbour_rounds");
  const size_t n = 4096, wg = 64;
  const int rounds = 7;
  std::vector<int> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<int>(i % 13) - 6;
  std::vector<int> expect(n);
  for (size_t g = 0; g < n / wg; ++g) {
    std::vector<int> mine(in.begin() + g * wg, in.begin() + (g + 1) * wg), hist(wg, 0);
    for (int r = 0; r < rounds; ++r) {
      auto cur = mine;
      for (size_t l = 0; l < wg; ++l) {
        mine[l] += cur[(l + 1) % wg];
        hist[l] = hist[l] * 3 + (mine[l] & 7);
      }
    }
    for (size_t l = 0; l < wg; ++l) expect[g * wg + l] = mine[l] ^ hist[l];
  }
  std::vector<std::vector<int>> got;
  for (auto [name, q] : f.queues()) {
    INFO(name);
    Mem data(make_buffer(f.ctx, in));
    set_args(k, data.m, rounds);
    CL_REQUIRE(clSetKernelArg(k, 2, wg * sizeof(int), nullptr));
    launch(q, k, 1, &n, &wg);
    got.push_back(read_back<int>(q, data, n));
    CHECK(got.back() == expect);
  }
  CHECK(got[0] == got[1]);
}

TEST_CASE("vector types, swizzles, .lo/.hi/.odd/.even and conversions match the CPU on native and PoCL") {
  NativeAndPocl f;
  // Small integers in float: every operation is exact, so results compare bit for bit.
  Program prog(f.ctx, R"CLC(
__kernel void swizzle(__global const float4* a, __global float4* out, __global int8* iout,
                      __global uchar16* bout) {
  size_t i = get_global_id(0);
  float4 v = a[i];
  float4 w = v.wzyx * 2.0f + v.xxyy;
  float2 lo = w.lo, hi = w.hi;
  float4 r = (float4)(hi, lo.s10);
  r.odd += (float2)(1.0f, 2.0f);
  out[i] = r + (float4)(dot(v, w));
  int8 iv = (int8)(convert_int4(v), convert_int4(w.even.xyxy));
  iout[i] = iv.s76543210 + (int8)(1);
  uchar16 b = (uchar16)((uchar)i);
  b.s0123 = convert_uchar4_sat(v * 40.0f);
  bout[i] = b.sfedcba9876543210;
}
)CLC");
  Kernel k(prog, "swizzle");
  const size_t n = 512;
  std::vector<cl_float4> in(n);
  for (size_t i = 0; i < n; ++i)
    for (int c = 0; c < 4; ++c) in[i].s[c] = static_cast<float>(static_cast<int>((i * 7 + c * 3) % 17) - 8);
  std::vector<float> expect_f(n * 4);
  std::vector<int> expect_i(n * 8);
  std::vector<unsigned char> expect_b(n * 16);
  for (size_t i = 0; i < n; ++i) {
    const float* v = in[i].s;
    float w[4] = {v[3] * 2 + v[0], v[2] * 2 + v[0], v[1] * 2 + v[1], v[0] * 2 + v[1]};
    float r[4] = {w[2], w[3], w[1], w[0]};
    r[1] += 1;
    r[3] += 2;
    float dot = v[0] * w[0] + v[1] * w[1] + v[2] * w[2] + v[3] * w[3];
    for (int c = 0; c < 4; ++c) expect_f[i * 4 + c] = r[c] + dot;
    int iv[8] = {int(v[0]), int(v[1]), int(v[2]), int(v[3]), int(w[0]), int(w[2]), int(w[0]), int(w[2])};
    for (int c = 0; c < 8; ++c) expect_i[i * 8 + c] = iv[7 - c] + 1;
    unsigned char b[16];
    for (int c = 0; c < 16; ++c) b[c] = static_cast<unsigned char>(i);
    for (int c = 0; c < 4; ++c) b[c] = static_cast<unsigned char>(std::clamp(v[c] * 40.0f, 0.0f, 255.0f));
    for (int c = 0; c < 16; ++c) expect_b[i * 16 + c] = b[15 - c];
  }
  std::vector<std::vector<float>> got_f;
  std::vector<std::vector<int>> got_i;
  std::vector<std::vector<unsigned char>> got_b;
  for (auto [name, q] : f.queues()) {
    INFO(name);
    Mem a(make_buffer(f.ctx, in)), o(f.ctx, CL_MEM_READ_WRITE, n * 16),
        io(f.ctx, CL_MEM_READ_WRITE, n * 32), bo(f.ctx, CL_MEM_READ_WRITE, n * 16);
    set_args(k, a.m, o.m, io.m, bo.m);
    launch(q, k, 1, &n, nullptr);
    got_f.push_back(read_back<float>(q, o, n * 4));
    got_i.push_back(read_back<int>(q, io, n * 8));
    got_b.push_back(read_back<unsigned char>(q, bo, n * 16));
    CHECK(got_f.back() == expect_f);
    CHECK(got_i.back() == expect_i);
    CHECK(got_b.back() == expect_b);
  }
  CHECK(got_f[0] == got_f[1]);
  CHECK(got_i[0] == got_i[1]);
  CHECK(got_b[0] == got_b[1]);
}

TEST_CASE("add_sat, rotate, mad24, clz, mul_hi and abs_diff match the CPU on native and PoCL") {
  NativeAndPocl f;
  Program prog(f.ctx, R"CLC(
__kernel void intops(__global const int* a, __global const int* b, __global int* out) {
  size_t i = get_global_id(0);
  int x = a[i], y = b[i];
  out[i * 8 + 0] = add_sat(x, y);
  out[i * 8 + 1] = sub_sat(x, y);
  out[i * 8 + 2] = (int)rotate((uint)x, (uint)y);
  out[i * 8 + 3] = mad24(x >> 20, y >> 12, x);
  out[i * 8 + 4] = clz((uint)x);
  out[i * 8 + 5] = mul_hi(x, y);
  out[i * 8 + 6] = (int)abs_diff(x, y);
  out[i * 8 + 7] = (int)add_sat((uchar)x, (uchar)y) | ((int)rotate((ushort)x, (ushort)y) << 8);
}
)CLC");
  Kernel k(prog, "intops");
  const size_t n = 4096;
  std::vector<int> a(n), b(n);
  std::mt19937 rng(7);
  for (size_t i = 0; i < n; ++i) {
    a[i] = static_cast<int>(rng());
    b[i] = static_cast<int>(rng());
  }
  // Edge values first.
  const int edges[][2] = {{INT32_MAX, 1}, {INT32_MIN, -1}, {0, 0}, {1, 31}, {-1, 32}, {0, 33}};
  for (size_t e = 0; e < std::size(edges); ++e) {
    a[e] = edges[e][0];
    b[e] = edges[e][1];
  }
  auto sat = [](long long v) {
    return static_cast<int>(std::clamp<long long>(v, INT32_MIN, INT32_MAX));
  };
  auto rotl = [](uint32_t v, uint32_t s) {
    s &= 31;
    return s ? (v << s) | (v >> (32 - s)) : v;
  };
  std::vector<int> expect(n * 8);
  for (size_t i = 0; i < n; ++i) {
    long long x = a[i], y = b[i];
    int* e = &expect[i * 8];
    e[0] = sat(x + y);
    e[1] = sat(x - y);
    e[2] = static_cast<int>(rotl(static_cast<uint32_t>(a[i]), static_cast<uint32_t>(b[i])));
    // mad24 on operands within 24 bits whose product fits 32 bits.
    e[3] = static_cast<int>(static_cast<uint32_t>((a[i] >> 20) * (b[i] >> 12)) + static_cast<uint32_t>(a[i]));
    e[4] = a[i] == 0 ? 32 : __builtin_clz(static_cast<uint32_t>(a[i]));
    e[5] = static_cast<int>((x * y) >> 32);
    e[6] = static_cast<int>(static_cast<uint32_t>(std::llabs(x - y)));
    unsigned ua = static_cast<unsigned char>(a[i]), ub = static_cast<unsigned char>(b[i]);
    unsigned us = static_cast<uint16_t>(a[i]), sh = static_cast<uint16_t>(b[i]) & 15;
    unsigned rot16 = static_cast<uint16_t>(sh ? (us << sh) | (us >> (16 - sh)) : us);
    e[7] = static_cast<int>(std::min(ua + ub, 255u) | (rot16 << 8));
  }
  std::vector<std::vector<int>> got;
  for (auto [name, q] : f.queues()) {
    INFO(name);
    Mem ma(make_buffer(f.ctx, a)), mb(make_buffer(f.ctx, b)),
        out(f.ctx, CL_MEM_READ_WRITE, n * 8 * sizeof(int));
    set_args(k, ma.m, mb.m, out.m);
    launch(q, k, 1, &n, nullptr);
    got.push_back(read_back<int>(q, out, n * 8));
    for (size_t i = 0; i < n * 8; ++i) {
      if (got.back()[i] == expect[i]) continue;
      FAIL_CHECK("op " << i % 8 << " of a=" << a[i / 8] << " b=" << b[i / 8] << ": got "
                       << got.back()[i] << ", expected " << expect[i]);
      break;
    }
  }
  CHECK(got[0] == got[1]);
}

TEST_CASE("atomic_inc from every work-group on one counter hands out each ticket exactly once") {
  NativeAndPocl f;
  Program prog(f.ctx, R"CLC(
__kernel void tickets(volatile __global uint* counter, __global uint* ticket,
                      volatile __global int* extremes, volatile __local uint* local_count) {
  if (get_local_id(0) == 0) *local_count = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  ticket[get_global_id(0)] = atomic_inc(counter);
  atomic_inc(local_count);
  atomic_max(&extremes[0], (int)get_global_id(0));
  atomic_min(&extremes[1], -(int)get_global_id(0));
  atomic_add(&extremes[2], 2);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) atomic_add(&extremes[3], (int)*local_count);
}
)CLC");
  Kernel k(prog, "tickets");
  const size_t n = 1 << 16, wg = 32;  // 2048 work-groups on one counter
  std::vector<cl_uint> expect(n);
  std::iota(expect.begin(), expect.end(), 0u);
  for (auto [name, q] : f.queues()) {
    INFO(name);
    Mem counter(make_buffer(f.ctx, std::vector<cl_uint>{0})),
        ticket(f.ctx, CL_MEM_READ_WRITE, n * sizeof(cl_uint)),
        extremes(make_buffer(f.ctx, std::vector<int>{-1, 1, 0, 0}));
    set_args(k, counter.m, ticket.m, extremes.m);
    CL_REQUIRE(clSetKernelArg(k, 3, sizeof(cl_uint), nullptr));
    launch(q, k, 1, &n, &wg);
    CHECK(read_back<cl_uint>(q, counter, 1)[0] == n);
    auto t = read_back<cl_uint>(q, ticket, n);
    std::sort(t.begin(), t.end());
    CHECK(t == expect);
    auto e = read_back<int>(q, extremes, 4);
    CHECK(e == std::vector<int>{static_cast<int>(n - 1), -static_cast<int>(n - 1),
                                static_cast<int>(2 * n), static_cast<int>(n)});
  }
}

TEST_CASE("async_work_group_copy in and out of __local memory matches the CPU on native and PoCL") {
  NativeAndPocl f;
  Program prog(f.ctx, R"CLC(
__kernel void stencil(__global const float* in, __global float* out, __local float* tile) {
  size_t n = get_local_size(0), base = get_group_id(0) * n;
  event_t e = async_work_group_copy(tile, in + base, n, 0);
  wait_group_events(1, &e);
  size_t l = get_local_id(0);
  float left = l > 0 ? tile[l - 1] : 0.0f, right = l + 1 < n ? tile[l + 1] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  tile[l] = left + 2.0f * tile[l] + right;
  barrier(CLK_LOCAL_MEM_FENCE);
  e = async_work_group_copy(out + base, tile, n, 0);
  wait_group_events(1, &e);
}
)CLC");
  Kernel k(prog, "stencil");
  const size_t n = 16384, wg = 128;
  std::vector<float> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 97);
  std::vector<float> expect(n);
  for (size_t i = 0; i < n; ++i) {
    size_t l = i % wg;
    expect[i] = (l > 0 ? in[i - 1] : 0.0f) + 2.0f * in[i] + (l + 1 < wg ? in[i + 1] : 0.0f);
  }
  std::vector<std::vector<float>> got;
  for (auto [name, q] : f.queues()) {
    INFO(name);
    Mem src(make_buffer(f.ctx, in)), dst(f.ctx, CL_MEM_READ_WRITE, n * sizeof(float));
    set_args(k, src.m, dst.m);
    CL_REQUIRE(clSetKernelArg(k, 2, wg * sizeof(float), nullptr));
    launch(q, k, 1, &n, &wg);
    got.push_back(read_back<float>(q, dst, n));
    CHECK(got.back() == expect);
  }
  CHECK(got[0] == got[1]);
}

TEST_CASE("a __local argument as large as CL_DEVICE_LOCAL_MEM_SIZE is usable in full on native and PoCL") {
  NativeAndPocl f;
  Program prog(f.ctx, R"CLC(
__kernel void fill_all(__local uint* scratch, uint words, __global uint* sums) {
  size_t l = get_local_id(0), n = get_local_size(0);
  for (uint w = l; w < words; w += n) scratch[w] = w * 3u + get_group_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  uint s = 0;
  for (uint w = (l * 7919u) % words, c = 0; c < words / n; ++c, w = (w + n) % words) s += scratch[w];
  sums[get_global_id(0)] = s;
}
)CLC");
  Kernel k(prog, "fill_all");
  for (auto [name, q, dev] : {std::tuple{"native", f.qn.q, f.native}, std::tuple{"PoCL", f.qp.q, f.pocl}}) {
    INFO(name);
    cl_ulong bytes = device_ulong(dev, CL_DEVICE_LOCAL_MEM_SIZE);
    if (bytes > (cl_ulong{16} << 20)) bytes = cl_ulong{16} << 20;  // keep the CPU reference quick
    INFO("local memory " << bytes << " bytes");
    REQUIRE(bytes >= 32 * 1024);  // OpenCL 1.2's minimum
    const cl_uint words = static_cast<cl_uint>(bytes / sizeof(cl_uint));
    const size_t wg = 64, groups = 4, global = wg * groups;
    Mem sums(f.ctx, CL_MEM_READ_WRITE, global * sizeof(cl_uint));
    CL_REQUIRE(clSetKernelArg(k, 0, bytes, nullptr));
    CL_REQUIRE(clSetKernelArg(k, 1, sizeof words, &words));
    CL_REQUIRE(clSetKernelArg(k, 2, sizeof(cl_mem), &sums.m));
    launch(q, k, 1, &global, &wg);
    auto got = read_back<cl_uint>(q, sums, global);
    for (size_t g = 0; g < global; ++g) {
      size_t l = g % wg, grp = g / wg;
      cl_uint s = 0;
      for (cl_uint w = static_cast<cl_uint>((l * 7919u) % words), c = 0; c < words / wg;
           ++c, w = static_cast<cl_uint>((w + wg) % words))
        s += w * 3u + static_cast<cl_uint>(grp);
      if (got[g] != s) {
        FAIL_CHECK("work-item " << g << ": got " << got[g] << ", expected " << s);
        break;
      }
    }
  }
}

TEST_CASE("wide vector types in __local memory, kernel-scope and arguments, work on native and PoCL") {
  NativeAndPocl f;
  // float16 and double8 are 64-byte types: the compiler may use aligned
  // vector loads and stores on them.
  Program prog(f.ctx, R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void wide(__global const float16* in, __global float16* out, __local double8* scratch) {
  __local float16 tile[64];
  __local char pad[3];
  size_t l = get_local_id(0), n = get_local_size(0);
  if (l < 3) pad[l] = (char)l;
  tile[l] = in[get_global_id(0)];
  scratch[l] = convert_double8(tile[l].lo);
  barrier(CLK_LOCAL_MEM_FENCE);
  float16 r = tile[(l + 1) % n];
  r.lo += convert_float8(scratch[(l + 2) % n]) + (float8)(pad[l % 3]);
  out[get_global_id(0)] = r;
}
)CLC");
  Kernel k(prog, "wide");
  const size_t n = 1024, wg = 64;
  std::vector<float> in(n * 16);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 1000);
  std::vector<float> expect(n * 16);
  for (size_t i = 0; i < n; ++i) {
    size_t g = i / wg * wg, l = i % wg;
    for (int c = 0; c < 16; ++c) {
      float r = in[(g + (l + 1) % wg) * 16 + c];
      if (c < 8) r += in[(g + (l + 2) % wg) * 16 + c] + static_cast<float>(l % 3);
      expect[i * 16 + c] = r;
    }
  }
  std::vector<std::vector<float>> got;
  for (auto [name, q] : f.queues()) {
    INFO(name);
    Mem src(make_buffer(f.ctx, in)), dst(f.ctx, CL_MEM_READ_WRITE, in.size() * sizeof(float));
    set_args(k, src.m, dst.m);
    CL_REQUIRE(clSetKernelArg(k, 2, wg * 64, nullptr));
    launch(q, k, 1, &n, &wg);
    got.push_back(read_back<float>(q, dst, in.size()));
    CHECK(got.back() == expect);
  }
  CHECK(got[0] == got[1]);
}

// Inner loops in the work-item loop (kernels-pass's rounds, WorkItemRounds.h):
// nbody's loop over the bodies runs in rounds, each work-item's Collatz loop
// (work-items leaving it apart) keeps the plain lowering; both on groups of
// 37 work-items (no multiple of a vector width) with a global offset.
TEST_CASE("nbody's forces and Collatz sequences with a global offset match the CPU on native and PoCL") {
  NativeAndPocl f;
  Program prog(f.ctx, R"(
    __kernel void forces(__global const float4* pos, __global float4* acc, uint n, uint count,
                         float eps2) {
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
    }
    __kernel void collatz(__global uint* steps, ulong first) {
      size_t i = get_global_id(0);
      ulong v = first + i;
      uint s = 0;
      while (v != 1) {
        v = (v & 1) ? 3 * v + 1 : v >> 1;
        ++s;
      }
      steps[i - get_global_offset(0)] = s;
    })");
  const size_t local = 37, global = 37 * 5, offset = 13;
  const cl_uint n = 301, count = 180;
  std::vector<float> pos(4 * n);
  std::mt19937 rng(3);
  for (size_t i = 0; i < pos.size(); ++i)
    pos[i] = i % 4 == 3 ? 1.0f / n : static_cast<float>(rng() % 2001) / 1000.0f - 1.0f;
  const float eps2 = 0.01f;
  // Floats: within 1e-4 (relative) of a double reference; the devices sum
  // in float, and PoCL's rsqrt is not the native device's.
  std::vector<double> want(3 * count);
  for (cl_uint i = 0; i < count; ++i)
    for (cl_uint j = 0; j < n; ++j) {
      double d[3], r2 = eps2;
      for (int c = 0; c < 3; ++c) d[c] = pos[4 * j + c] - pos[4 * i + c], r2 += d[c] * d[c];
      for (int c = 0; c < 3; ++c) want[3 * i + c] += pos[4 * j + 3] / (r2 * std::sqrt(r2)) * d[c];
    }
  const cl_ulong first = 27;
  std::vector<cl_uint> steps(global);
  for (size_t i = 0; i < global; ++i) {
    cl_ulong v = first + offset + i;
    while (v != 1) v = (v & 1) ? 3 * v + 1 : v >> 1, ++steps[i];
  }
  Kernel forces(prog, "forces"), collatz(prog, "collatz");
  for (auto [name, q] : f.queues()) {
    INFO(name);
    Mem p(make_buffer(f.ctx, pos)), a(f.ctx, CL_MEM_READ_WRITE, 4 * n * sizeof(float));
    set_args(forces, p.m, a.m, n, count, eps2);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, forces, 1, &offset, &global, &local, 0, nullptr, nullptr));
    std::vector<float> got = read_back<float>(q, a, 4 * count);
    for (cl_uint i = 0; i < count; ++i)
      for (int c = 0; c < 3; ++c)
        REQUIRE(std::fabs(got[4 * i + c] - want[3 * i + c]) <= 1e-4 * (1 + std::fabs(want[3 * i + c])));
    Mem s(f.ctx, CL_MEM_READ_WRITE, global * sizeof(cl_uint));
    set_args(collatz, s.m, first);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, collatz, 1, &offset, &global, &local, 0, nullptr, nullptr));
    CHECK(read_back<cl_uint>(q, s, global) == steps);
  }
}
