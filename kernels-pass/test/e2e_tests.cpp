// End-to-end kernels, each checked against a CPU reference.
#include "executor.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

using namespace test;

TEST_CASE("vector add", "[e2e]") {
  auto p = build_ok(R"(
    __kernel void vadd(__global const float* a, __global const float* b, __global float* c) {
      size_t i = get_global_id(0);
      c[i] = a[i] + b[i];
    })");
  const size_t n = 4096;
  Buf<float> a(n), b(n), c(n, -1);
  for (size_t i = 0; i < n; ++i) a[i] = i * 0.5f, b[i] = 1000.0f - i;
  Args args;
  args.ptr(a.data()).ptr(b.data()).ptr(c.data());
  run(*p, "vadd", args, range(1, {n}, {64}), 4);
  for (size_t i = 0; i < n; ++i) REQUIRE(c[i] == a[i] + b[i]);
  REQUIRE(p->kernels().size() == 1);
  auto& k = p->kernels()[0];
  CHECK(k.args.size() == 3);
  CHECK(k.args[0].name == "a");
  CHECK(k.args[0].type_name == "float*");
  CHECK(k.args[0].kind == parasol::kernels::ArgKind::GlobalPointer);
  CHECK(k.args[0].type_qualifier == CL_KERNEL_ARG_TYPE_CONST);
}

TEST_CASE("local-memory reduction with barriers", "[e2e][barrier]") {
  auto p = build_ok(R"(
    __kernel void reduce(__global const int* in, __global int* out, __local int* scratch) {
      size_t lid = get_local_id(0), lsz = get_local_size(0);
      scratch[lid] = in[get_global_id(0)];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (size_t s = lsz / 2; s > 0; s >>= 1) {
        if (lid < s) scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      if (lid == 0) out[get_group_id(0)] = scratch[0];
    })");
  const size_t n = 1 << 14, wg = 128;
  Buf<int> in(n), out(n / wg, 0);
  std::iota(in.begin(), in.end(), -500);
  Args args;
  args.ptr(in.data()).ptr(out.data()).local(wg * sizeof(int));
  run(*p, "reduce", args, range(1, {n}, {wg}), 3);
  for (size_t g = 0; g < n / wg; ++g) {
    long ref = 0;
    for (size_t i = 0; i < wg; ++i) ref += in[g * wg + i];
    REQUIRE(out[g] == ref);
  }
}

TEST_CASE("tiled transpose with a __local tile", "[e2e][barrier]") {
  auto p = build_ok(R"(
    #define T 16
    __kernel void transpose(__global const float* in, __global float* out, int w, int h) {
      __local float tile[T][T + 1];
      int gx = get_group_id(0) * T, gy = get_group_id(1) * T;
      int lx = get_local_id(0), ly = get_local_id(1);
      tile[ly][lx] = in[(gy + ly) * w + gx + lx];
      barrier(CLK_LOCAL_MEM_FENCE);
      out[(gx + ly) * h + gy + lx] = tile[lx][ly];
    })");
  REQUIRE(p->kernels()[0].static_local_bytes == 16 * 17 * sizeof(float));
  const int w = 96, h = 64;
  Buf<float> in(w * h), out(w * h, 0);
  for (int i = 0; i < w * h; ++i) in[i] = float(i);
  Args args;
  args.ptr(in.data()).ptr(out.data()).value(w).value(h);
  run(*p, "transpose", args, range(2, {size_t(w), size_t(h)}, {16, 16}), 2);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) REQUIRE(out[x * h + y] == in[y * w + x]);
}

TEST_CASE("prefix sum: barriers inside loops", "[e2e][barrier]") {
  // Hillis-Steele inclusive scan in local memory, double-buffered.
  auto p = build_ok(R"(
    __kernel void scan(__global const uint* in, __global uint* out) {
      __local uint buf[2][256];
      uint lid = get_local_id(0), n = get_local_size(0);
      int cur = 0;
      buf[0][lid] = in[get_global_id(0)];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (uint off = 1; off < n; off <<= 1) {
        uint v = buf[cur][lid];
        if (lid >= off) v += buf[cur][lid - off];
        buf[1 - cur][lid] = v;
        cur = 1 - cur;
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      out[get_global_id(0)] = buf[cur][lid];
    })");
  const size_t n = 2048, wg = 256;
  Buf<unsigned> in(n), out(n);
  for (size_t i = 0; i < n; ++i) in[i] = (i * 7) % 13;
  Args args;
  args.ptr(in.data()).ptr(out.data());
  run(*p, "scan", args, range(1, {n}, {wg}));
  for (size_t g = 0; g < n / wg; ++g) {
    unsigned acc = 0;
    for (size_t i = 0; i < wg; ++i) {
      acc += in[g * wg + i];
      REQUIRE(out[g * wg + i] == acc);
    }
  }
}

TEST_CASE("barrier in a conditional and private arrays across barriers", "[e2e][barrier]") {
  auto p = build_ok(R"(
    __kernel void k(__global int* out, int flag) {
      __local int sh[64];
      int priv[4];
      int lid = get_local_id(0);
      for (int i = 0; i < 4; ++i) priv[i] = lid * 10 + i;
      sh[lid] = lid;
      if (flag) {   // uniform condition
        barrier(CLK_LOCAL_MEM_FENCE);
        int t = sh[63 - lid] + priv[3];
        barrier(CLK_LOCAL_MEM_FENCE);
        sh[lid] = t;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      out[get_global_id(0)] = sh[lid] + priv[lid & 3];
    })");
  for (int flag : {0, 1}) {
    Buf<int> out(128);
    Args args;
    args.ptr(out.data()).value(flag);
    run(*p, "k", args, range(1, {128}, {64}));
    for (int g = 0; g < 2; ++g)
      for (int l = 0; l < 64; ++l) {
        int sh = flag ? (63 - l) + l * 10 + 3 : l;
        REQUIRE(out[g * 64 + l] == sh + l * 10 + (l & 3));
      }
  }
}

TEST_CASE("vector types and swizzles", "[e2e]") {
  auto p = build_ok(R"(
    __kernel void v(__global float4* a, __global int8* b, __global float* c) {
      size_t i = get_global_id(0);
      float4 x = a[i];
      a[i] = x.wzyx * (float4)(1.0f, 2.0f, 3.0f, 4.0f) + x.xxyy;
      int8 y = b[i];
      b[i] = y.s76543210 + (int8)(y.lo, y.hi) * 2;
      float3 t = vload3(i, c);
      vstore3(t.zxy + dot(x, x), i, c);
    })");
  const size_t n = 64;
  Buf<float> a(n * 4), c(n * 3);
  Buf<int> b(n * 8);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 17) - 3;
  for (size_t i = 0; i < b.size(); ++i) b[i] = int(i) * 3 - 40;
  for (size_t i = 0; i < c.size(); ++i) c[i] = float(i) * 0.25f;
  auto a0 = a, c0 = c;
  auto b0 = b;
  Args args;
  args.ptr(a.data()).ptr(b.data()).ptr(c.data());
  run(*p, "v", args, range(1, {n}, {16}));
  for (size_t i = 0; i < n; ++i) {
    float* x = &a0[i * 4];
    float m[4] = {1, 2, 3, 4};
    float xx[4] = {x[0], x[0], x[1], x[1]};
    for (int k = 0; k < 4; ++k) REQUIRE(a[i * 4 + k] == x[3 - k] * m[k] + xx[k]);
    for (int k = 0; k < 8; ++k) REQUIRE(b[i * 8 + k] == b0[i * 8 + 7 - k] + b0[i * 8 + k] * 2);
    float d = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3];
    float* t = &c0[i * 3];
    REQUIRE(c[i * 3 + 0] == Approx(t[2] + d));
    REQUIRE(c[i * 3 + 1] == Approx(t[0] + d));
    REQUIRE(c[i * 3 + 2] == Approx(t[1] + d));
  }
}

namespace {

// shuffle and shuffle2 for element type T (OpenCL name `name`, mask
// element U of the same size), every input width m and result width n of
// 2, 4, 8 and 16, with masks whose unused high bits are random.
template <class T, class U>
void check_shuffles(const std::string& name, const std::string& mask_name, std::mt19937_64& rng) {
  static_assert(sizeof(T) == sizeof(U));
  const int widths[] = {2, 4, 8, 16};
  std::string src = std::is_same_v<T, double> ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "";
  for (int m : widths)
    for (int n : widths) {
      std::string tm = name + std::to_string(m), tn = name + std::to_string(n), un = mask_name + std::to_string(n);
      src += "__kernel void s" + std::to_string(m) + "_" + std::to_string(n) + "(__global const " + tm +
             "* x, __global const " + tm + "* y, __global const " + un + "* mask, __global " + tn + "* one, __global " +
             tn + "* two) { size_t i = get_global_id(0); one[i] = shuffle(x[i], mask[i]); two[i] = shuffle2(x[i], y[i], mask[i]); }\n";
    }
  auto p = build_ok(src);
  const size_t items = 64;
  for (int m : widths)
    for (int n : widths) {
      Buf<T> x(items * m), y(items * m), one(items * n), two(items * n);
      Buf<U> mask(items * n);
      for (size_t i = 0; i < x.size(); ++i) x[i] = T(i * 3 + 1), y[i] = T(i * 5 + 2);
      for (auto& k : mask) k = U(rng());
      Args args;
      args.ptr(x.data()).ptr(y.data()).ptr(mask.data()).ptr(one.data()).ptr(two.data());
      run(*p, "s" + std::to_string(m) + "_" + std::to_string(n), args, range(1, {items}, {16}));
      for (size_t i = 0; i < items; ++i)
        for (int j = 0; j < n; ++j) {
          const U k = mask[i * n + j];
          const size_t pick = size_t(k % U(m)), pick2 = size_t(k % U(2 * m));
          const T want1 = x[i * m + pick];
          const T want2 = pick2 < size_t(m) ? x[i * m + pick2] : y[i * m + pick2 - m];
          INFO(name << m << " -> " << name << n << ", item " << i << " element " << j << ", mask " << +k);
          REQUIRE(one[i * n + j] == want1);
          REQUIRE(two[i * n + j] == want2);
        }
    }
}

}  // namespace

TEST_CASE("shuffle and shuffle2 for every element type and width use only the mask's low bits", "[e2e]") {
  std::mt19937_64 rng(5);
  check_shuffles<int8_t, uint8_t>("char", "uchar", rng);
  check_shuffles<uint8_t, uint8_t>("uchar", "uchar", rng);
  check_shuffles<int16_t, uint16_t>("short", "ushort", rng);
  check_shuffles<uint16_t, uint16_t>("ushort", "ushort", rng);
  check_shuffles<int32_t, uint32_t>("int", "uint", rng);
  check_shuffles<uint32_t, uint32_t>("uint", "uint", rng);
  check_shuffles<int64_t, uint64_t>("long", "ulong", rng);
  check_shuffles<uint64_t, uint64_t>("ulong", "ulong", rng);
  check_shuffles<float, uint32_t>("float", "uint", rng);
  check_shuffles<double, uint64_t>("double", "ulong", rng);
}

TEST_CASE("integer built-ins", "[e2e][integer]") {
  auto p = build_ok(R"(
    __kernel void ints(__global const int* a, __global const int* b, __global int* out) {
      size_t i = get_global_id(0);
      int x = a[i], y = b[i];
      out[i * 8 + 0] = add_sat(x, y);
      out[i * 8 + 1] = sub_sat(x, y);
      out[i * 8 + 2] = rotate(x, y);
      out[i * 8 + 3] = mad24(x & 0x7fffff, y & 0x7fff, 7);
      out[i * 8 + 4] = clz(x);
      out[i * 8 + 5] = popcount(x);
      out[i * 8 + 6] = mul_hi(x, y);
      out[i * 8 + 7] = (int)abs(x) + hadd(x, y) + clamp(x, -5, 5) + max(x, y);
    }
    __kernel void uchars(__global const uchar4* a, __global uchar4* out) {
      size_t i = get_global_id(0);
      out[i] = add_sat(a[i], (uchar4)(200)) ^ popcount(a[i]) ^ rotate(a[i], (uchar4)(3));
    })");
  std::mt19937 rng(42);
  const size_t n = 512;
  Buf<int> a(n), b(n), out(n * 8);
  for (size_t i = 0; i < n; ++i) a[i] = int(rng()), b[i] = int(rng());
  a[0] = 0, a[1] = INT32_MAX, b[1] = 5, a[2] = INT32_MIN, b[2] = 7, a[3] = -1;
  Args args;
  args.ptr(a.data()).ptr(b.data()).ptr(out.data());
  run(*p, "ints", args, range(1, {n}, {64}));
  for (size_t i = 0; i < n; ++i) {
    long long x = a[i], y = b[i];
    auto sat = [](long long v) { return int(std::min<long long>(INT32_MAX, std::max<long long>(INT32_MIN, v))); };
    unsigned ux = unsigned(x), r = unsigned(y) & 31;
    int rot = int(r ? (ux << r) | (ux >> (32 - r)) : ux);
    REQUIRE(out[i * 8 + 0] == sat(x + y));
    REQUIRE(out[i * 8 + 1] == sat(x - y));
    REQUIRE(out[i * 8 + 2] == rot);
    REQUIRE(out[i * 8 + 3] == int((x & 0x7fffff) * (y & 0x7fff) + 7));
    REQUIRE(out[i * 8 + 4] == (x == 0 ? 32 : __builtin_clz(unsigned(x))));
    REQUIRE(out[i * 8 + 5] == __builtin_popcount(unsigned(x)));
    REQUIRE(out[i * 8 + 6] == int((x * y) >> 32));
    long long absx = x < 0 ? -x : x;
    int h = int((x + y) >> 1);
    int expect = int(unsigned(absx) + unsigned(h) + unsigned(std::clamp<long long>(x, -5, 5)) + unsigned(std::max(x, y)));
    REQUIRE(out[i * 8 + 7] == expect);
  }
  Buf<unsigned char> ua(n * 4), uo(n * 4);
  for (auto& v : ua) v = rng() & 255;
  Args a2;
  a2.ptr(ua.data()).ptr(uo.data());
  run(*p, "uchars", a2, range(1, {n}, {32}));
  for (size_t i = 0; i < ua.size(); ++i) {
    unsigned v = ua[i];
    unsigned s = std::min(255u, v + 200);
    unsigned rot = ((v << 3) | (v >> 5)) & 255;
    REQUIRE(uo[i] == ((s ^ __builtin_popcount(v) ^ rot) & 255));
  }
}

TEST_CASE("scalar char and short saturating arithmetic saturates at their own limits", "[e2e][integer]") {
  // Clang 19 promotes scalar arguments of __builtin_elementwise_add_sat.
  auto p = build_ok(R"(
    __kernel void sats(__global int* out) {
      out[0] = add_sat((uchar)255, (uchar)1);
      out[1] = sub_sat((uchar)0, (uchar)1);
      out[2] = add_sat((char)127, (char)1);
      out[3] = sub_sat((char)-128, (char)1);
      out[4] = add_sat((short)32767, (short)1);
      out[5] = sub_sat((ushort)1, (ushort)2);
      out[6] = mad_sat((uchar)100, (uchar)3, (uchar)1);
      out[7] = add_sat((uchar)200, (uchar)50);
    })");
  Buf<int> out(8, -99);
  Args args;
  args.ptr(out.data());
  run(*p, "sats", args, range(1, {1}, {1}));
  CHECK(std::vector<int>(out.begin(), out.end()) ==
        std::vector<int>{255, 0, 127, -128, 32767, 0, 255, 250});
}

namespace {

// OpenCL C's name for the integer type T.
template <class T>
std::string cl_int_name() {
  std::string base = sizeof(T) == 1 ? "char" : sizeof(T) == 2 ? "short" : sizeof(T) == 4 ? "int" : "long";
  return (std::is_signed_v<T> ? "" : "u") + base;
}

// Inputs for a saturating built-in: the limits and their neighbours, values
// whose products sit near the limits, and random bits.
template <class T>
std::vector<T> edgy_values(std::mt19937_64& rng, size_t n) {
  using L = std::numeric_limits<T>;
  const T root = T(T(1) << (L::digits / 2));
  const std::vector<T> edges = {L::min(), T(L::min() + 1), T(-1), T(0), T(1), T(2), T(L::max() - 1),
                                L::max(), root, T(root - 1), T(root + 1), T(L::max() / 2), T(L::min() / 2)};
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = rng() % 3 ? edges[rng() % edges.size()] : T(rng());
  return v;
}

// mad_sat over every width of T, against a*b+c computed exactly in 128 bits.
template <class T>
void check_mad_sat(std::mt19937_64& rng) {
  __extension__ typedef __int128 Wide;
  __extension__ typedef unsigned __int128 UWide;
  const std::string t = cl_int_name<T>();
  std::string src;
  for (int w : {1, 2, 3, 4, 8, 16}) {
    std::string n = w == 1 ? "" : std::to_string(w), k = "k" + std::to_string(w);
    src += "__kernel void " + k + "(__global const " + t + "* a, __global const " + t + "* b, __global const " + t +
           "* c, __global " + t + "* out) { size_t i = get_global_id(0); ";
    if (w == 1)
      src += "out[i] = mad_sat(a[i], b[i], c[i]); }\n";
    else
      src += "vstore" + n + "(mad_sat(vload" + n + "(i, a), vload" + n + "(i, b), vload" + n + "(i, c)), i, out); }\n";
  }
  auto p = build_ok(src);
  const size_t items = 256;
  for (int w : {1, 2, 3, 4, 8, 16}) {
    const size_t n = items * size_t(w);
    auto av = edgy_values<T>(rng, n), bv = edgy_values<T>(rng, n), cv = edgy_values<T>(rng, n);
    Buf<T> a(av.begin(), av.end()), b(bv.begin(), bv.end()), c(cv.begin(), cv.end()), out(n);
    Args args;
    args.ptr(a.data()).ptr(b.data()).ptr(c.data()).ptr(out.data());
    run(*p, "k" + std::to_string(w), args, range(1, {items}, {16}));
    for (size_t i = 0; i < n; ++i) {
      // Signed products fit a signed 128-bit integer, unsigned ones an unsigned one.
      T want;
      if constexpr (std::is_signed_v<T>) {
        const Wide exact = Wide(a[i]) * Wide(b[i]) + Wide(c[i]);
        want = exact > Wide(std::numeric_limits<T>::max())   ? std::numeric_limits<T>::max()
               : exact < Wide(std::numeric_limits<T>::min()) ? std::numeric_limits<T>::min()
                                                             : T(exact);
      } else {
        const UWide exact = UWide(a[i]) * UWide(b[i]) + UWide(c[i]);
        want = exact > UWide(std::numeric_limits<T>::max()) ? std::numeric_limits<T>::max() : T(exact);
      }
      INFO("mad_sat(" << t << (w == 1 ? "" : std::to_string(w)) << ") of " << +a[i] << " * " << +b[i] << " + "
                      << +c[i]);
      REQUIRE(+out[i] == +want);
    }
  }
}

}  // namespace

TEST_CASE("mad_sat saturates the exact a * b + c for every integer type and width", "[e2e][integer]") {
  std::mt19937_64 rng(11);
  check_mad_sat<int8_t>(rng);
  check_mad_sat<uint8_t>(rng);
  check_mad_sat<int16_t>(rng);
  check_mad_sat<uint16_t>(rng);
  check_mad_sat<int32_t>(rng);
  check_mad_sat<uint32_t>(rng);
  check_mad_sat<int64_t>(rng);
  check_mad_sat<uint64_t>(rng);
}

TEST_CASE("vector conversions carry the width in their names", "[e2e][convert]") {
  auto p = build_ok(R"(
    __kernel void conv(__global const float4* in, __global int4* i4, __global uchar8* u8,
                       __global short16* s16, __global float2* f2) {
      i4[0] = convert_int4(in[0]);
      u8[0] = convert_uchar8_sat((float8)(in[0], in[1]));
      s16[0] = convert_short16_sat_rte((float16)(in[0], in[1], in[0], in[1]));
      f2[0] = convert_float2(convert_int2(in[1].xy));
    })");
  Buf<float> in{1.5f, -2.5f, 300.0f, -7.9f, 2.5f, 70000.0f, 0.4f, 255.6f};
  Buf<int> i4(4);
  Buf<unsigned char> u8(8);
  Buf<short> s16(16);
  Buf<float> f2(2);
  Args args;
  args.ptr(in.data()).ptr(i4.data()).ptr(u8.data()).ptr(s16.data()).ptr(f2.data());
  run(*p, "conv", args, range(1, {1}, {1}));
  CHECK(std::vector<int>(i4.begin(), i4.end()) == std::vector<int>{1, -2, 300, -7});
  CHECK(std::vector<unsigned char>(u8.begin(), u8.end()) ==
        std::vector<unsigned char>{1, 0, 255, 0, 2, 255, 0, 255});
  CHECK(s16[0] == 2);     // 1.5 rounds to even
  CHECK(s16[1] == -2);    // -2.5 rounds to even
  CHECK(s16[5] == 32767); // saturated
  CHECK(s16[7] == 256);
  CHECK(f2[0] == 2.0f);
  CHECK(f2[1] == 70000.0f);
}

TEST_CASE("atomics under contention", "[e2e][atomic]") {
  auto p = build_ok(R"(
    __kernel void count(__global int* counter, __global uint* maxv, __global long* sum64) {
      __local int local_count;
      if (get_local_id(0) == 0) local_count = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      atomic_inc(counter);
      atomic_inc(&local_count);
      atomic_max(maxv, (uint)get_global_id(0));
      atom_add(sum64, (long)get_global_id(0));
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) == 0) atomic_add(counter + 1, local_count);
    })");
  int counter[2] = {0, 0};
  unsigned maxv = 0;
  long long sum = 0;
  const size_t n = 64 * 1024;
  Args args;
  args.ptr(counter).ptr(&maxv).ptr(&sum);
  run(*p, "count", args, range(1, {n}, {64}), 8);
  REQUIRE(counter[0] == int(n));
  REQUIRE(counter[1] == int(n));
  REQUIRE(maxv == n - 1);
  REQUIRE(sum == (long long)(n * (n - 1) / 2));
}

TEST_CASE("async_work_group_copy", "[e2e]") {
  auto p = build_ok(R"(
    __kernel void k(__global const float* in, __global float* out) {
      __local float tile[128];
      event_t e = async_work_group_copy(tile, in + get_group_id(0) * 128, 128, 0);
      wait_group_events(1, &e);
      tile[get_local_id(0)] *= 2.0f;
      barrier(CLK_LOCAL_MEM_FENCE);
      e = async_work_group_copy(out + get_group_id(0) * 128, tile, 128, 0);
      wait_group_events(1, &e);
    })");
  Buf<float> in(1024), out(1024);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(i) + 0.5f;
  Args args;
  args.ptr(in.data()).ptr(out.data());
  run(*p, "k", args, range(1, {1024}, {128}));
  for (size_t i = 0; i < in.size(); ++i) REQUIRE(out[i] == in[i] * 2);
}

TEST_CASE("printf", "[e2e]") {
  auto p = build_ok(R"(
    __kernel void hello(int x) {
      if (get_global_id(0) == 2) printf("hello %d from %d, %.2f\n", x, (int)get_global_id(0), 1.5f);
    })");
  std::fflush(stdout);
  char buf[256] = {};
  std::FILE* tmp = std::tmpfile();
  int saved = dup(fileno(stdout));
  dup2(fileno(tmp), fileno(stdout));
  Args args;
  args.value(42);
  run(*p, "hello", args, range(1, {4}, {4}));
  std::fflush(stdout);
  dup2(saved, fileno(stdout));
  close(saved);
  std::rewind(tmp);
  size_t got = std::fread(buf, 1, sizeof buf - 1, tmp);
  std::fclose(tmp);
  REQUIRE(std::string(buf, got) == "hello 42 from 2, 1.50\n");
}

// What the kernel printed on stdout while `launch` ran.
template <typename Launch>
std::string printed(Launch launch) {
  std::fflush(stdout);
  std::FILE* tmp = std::tmpfile();
  int saved = dup(fileno(stdout));
  dup2(fileno(tmp), fileno(stdout));
  launch();
  std::fflush(stdout);
  dup2(saved, fileno(stdout));
  close(saved);
  std::rewind(tmp);
  char buf[1024] = {};
  size_t got = std::fread(buf, 1, sizeof buf - 1, tmp);
  std::fclose(tmp);
  return std::string(buf, got);
}

TEST_CASE("printf vector conversions print every element, comma separated", "[e2e]") {
  // Every way the calling convention passes a vector: as a vector (float4,
  // float3), as an integer or a double of its bits (char2, short4, float2),
  // in memory (float8, int16).
  auto p = build_ok(R"(
    __kernel void k(float f) {
      printf("[%v4hlf] [%v3hlf] [%v2hlf] [%5.1v8hlf]\n", (float4)(f, 2.0f, -3.0f, 4.5f),
             (float3)(1.0f, f, 3.0f), (float2)(f, -f), (float8)(f));
      printf("[%v2hhd] [%#v4hx] [%v16hld] [%v3hhu] %d%%v\n", (char2)(-1, 2), (short4)(1, 2, 255, -1),
             (int16)(7), (uchar3)(250, 251, 252), 9);
      printf("[%v2ld] [%v2lx]\n", (long2)(-5, 6), (ulong2)(0x10, 0xffffffffff));
    })");
  Args args;
  args.value(1.5f);
  const std::string out = printed([&] { run(*p, "k", args, range(1, {1}, {1})); });
  CHECK(out ==
        "[1.500000,2.000000,-3.000000,4.500000] [1.000000,1.500000,3.000000] [1.500000,-1.500000] "
        "[  1.5,  1.5,  1.5,  1.5,  1.5,  1.5,  1.5,  1.5]\n"
        "[-1,2] [0x1,0x2,0xff,0xffff] [7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7] [250,251,252] 9%v\n"
        "[-5,6] [10,ffffffffff]\n");
}

TEST_CASE("kernel-scope __local arrays and a __local pointer argument", "[e2e]") {
  auto p = build_ok(R"(
    __kernel void k(__global int* out, __local int* arg_scratch) {
      __local int a[32];
      __local short b[3];
      int l = get_local_id(0);
      a[l] = l * 2;
      arg_scratch[l] = l * 3;
      if (l < 3) b[l] = (short)(100 + l);
      barrier(CLK_LOCAL_MEM_FENCE);
      out[get_global_id(0)] = a[31 - l] + arg_scratch[(l + 1) % 32] + b[l % 3];
    })");
  CHECK(p->kernels()[0].static_local_bytes >= 32 * 4 + 3 * 2);
  CHECK(p->kernels()[0].args[1].kind == parasol::kernels::ArgKind::LocalPointer);
  Buf<int> out(96);
  Args args;
  args.ptr(out.data()).local(32 * sizeof(int));
  run(*p, "k", args, range(1, {96}, {32}), 3);
  for (int i = 0; i < 96; ++i) {
    int l = i % 32;
    REQUIRE(out[i] == (31 - l) * 2 + ((l + 1) % 32) * 3 + 100 + l % 3);
  }
}

TEST_CASE("OpenCL 2.0 atomics", "[e2e][atomic]") {
  auto p = build_ok(R"(
    __kernel void k(__global atomic_int* counter, __global atomic_uint* mx, __global int* old) {
      int prev = atomic_fetch_add_explicit(counter, 2, memory_order_relaxed, memory_scope_device);
      atomic_fetch_max(mx, (uint)get_global_id(0));
      int expected = 0;
      if (atomic_compare_exchange_strong(counter + 1, &expected, 5)) old[0] = 1;
    })", "-cl-std=CL2.0");
  int counter[2] = {0, 0}, old = 0;
  unsigned mx = 0;
  Args args;
  args.ptr(counter).ptr(&mx).ptr(&old);
  run(*p, "k", args, range(1, {4096}, {64}), 4);
  REQUIRE(counter[0] == 8192);
  REQUIRE(counter[1] == 5);
  REQUIRE(mx == 4095);
  REQUIRE(old == 1);
}

TEST_CASE("by-value arguments", "[e2e]") {
  auto p = build_ok(R"(
    typedef struct { int a; float b; double c; char d[24]; } Params;  // > 16 bytes: passed by reference
    typedef struct { int x, y; } Small;                               // coerced by the x86-64 ABI
    __kernel void k(__global double* out, Params p, float3 v, char c, double d, Small s, ulong u) {
      out[0] = p.a + p.b + p.c + p.d[23];
      out[1] = v.x + v.y * 10 + v.z * 100;
      out[2] = c + d;
      out[3] = s.x - s.y;
      out[4] = (double)u;
    })");
  struct Params { int a; float b; double c; char d[24]; } prm{3, 0.5f, 0.25, {}};
  prm.d[23] = 9;
  struct Small { int x, y; } sm{10, 3};
  cl_float3 v;
  v.s[0] = 1, v.s[1] = 2, v.s[2] = 3;
  double out[5] = {};
  Args args;
  args.ptr(out).value(prm).value(v).value(char(-4)).value(2.5).value(sm).value(uint64_t(1) << 40);
  auto& info = p->kernels()[0];
  CHECK(info.args[1].size == sizeof(Params));
  CHECK(info.args[2].size == 16);
  CHECK(info.args[3].size == 1);
  CHECK(info.args[5].size == sizeof(Small));
  run(*p, "k", args, range(1, {1}, {1}));
  REQUIRE(out[0] == 3 + 0.5 + 0.25 + 9);
  REQUIRE(out[1] == 321);
  REQUIRE(out[2] == -1.5);
  REQUIRE(out[3] == 7);
  REQUIRE(out[4] == double(uint64_t(1) << 40));
}

TEST_CASE("3D range and work-item functions", "[e2e]") {
  auto p = build_ok(R"(
    __kernel void k(__global uint* out) {
      size_t gx = get_global_id(0), gy = get_global_id(1), gz = get_global_id(2);
      size_t lin = (gz * get_global_size(1) + gy) * get_global_size(0) + gx;
      out[lin] = get_local_linear_id() + 1000 * get_group_id(2) + 100000 * get_work_dim()
                 + (get_global_linear_id() == lin ? 0 : 1u << 31);
    })", "-cl-std=CL2.0");
  Buf<unsigned> out(8 * 6 * 4);
  Args args;
  args.ptr(out.data());
  run(*p, "k", args, range(3, {8, 6, 4}, {4, 3, 2}), 2);
  for (unsigned z = 0; z < 4; ++z)
    for (unsigned y = 0; y < 6; ++y)
      for (unsigned x = 0; x < 8; ++x) {
        unsigned lid = ((z % 2) * 3 + y % 3) * 4 + x % 4;
        REQUIRE(out[(z * 6 + y) * 8 + x] == lid + 1000 * (z / 2) + 300000);
      }
}

TEST_CASE("barriers in called functions, kernels calling kernels, __constant data", "[e2e][barrier]") {
  auto p = build_ok(R"(
    __constant int weights[4] = {1, 10, 100, 1000};
    void stage(__local int* s, int lid) {      // a barrier inside a helper
      int v = s[(lid + 1) % 64];
      barrier(CLK_LOCAL_MEM_FENCE);
      s[lid] = v * weights[lid & 3];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    __kernel void inner(__global int* out) {
      __local int s[64];
      int lid = get_local_id(0);
      s[lid] = lid;
      barrier(CLK_LOCAL_MEM_FENCE);
      int n = out[get_group_id(0) * 64];   // uniform trip count read from memory
      for (int i = 0; i < n; ++i) stage(s, lid);
      out[get_global_id(0)] = s[lid];
    }
    __kernel void outer(__global int* out) { inner(out); }
  )");
  for (const char* k : {"inner", "outer"}) {
    Buf<int> out(128, 0);
    out[0] = 1;   // group 0: one stage
    out[64] = 2;  // group 1: two stages
    Args args;
    args.ptr(out.data());
    run(*p, k, args, range(1, {128}, {64}), 2);
    int w[4] = {1, 10, 100, 1000};
    for (int l = 0; l < 64; ++l) {
      REQUIRE(out[l] == ((l + 1) % 64) * w[l & 3]);
      int once_next = ((l + 2) % 64) * w[((l + 1) % 64) & 3];
      REQUIRE(out[64 + l] == once_next * w[l & 3]);
    }
  }
}

TEST_CASE("large work-group with private arrays across a barrier", "[e2e][barrier]") {
  auto p = build_ok(R"(
    __kernel void k(__global float* out) {
      float priv[16];
      __local float sh[1024];
      int l = get_local_id(0);
      for (int i = 0; i < 16; ++i) priv[i] = l + i;
      sh[l] = priv[l & 15];
      barrier(CLK_LOCAL_MEM_FENCE);
      float acc = 0;
      for (int i = 0; i < 16; ++i) acc += priv[i] * sh[1023 - l];
      out[get_global_id(0)] = acc;
    })");
  Buf<float> out(2048);
  Args args;
  args.ptr(out.data());
  run(*p, "k", args, range(1, {2048}, {1024}), 2);
  for (int g = 0; g < 2048; ++g) {
    int l = g % 1024, r = 1023 - l;
    float sh = float(r + (r & 15)), acc = 0;
    for (int i = 0; i < 16; ++i) acc += float(l + i) * sh;
    REQUIRE(out[g] == Approx(acc));
  }
}
