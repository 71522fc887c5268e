// The access-range analysis (access_ranges.h): OpenCL C kernels in, the
// byte ranges a block of groups reads and writes, evaluated for one launch
// and compared with ranges worked out by hand; and the split decision.
#include "parasol/kernels/access_ranges.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

using namespace parasol::kernels;

namespace {

const KernelAccessRanges& analysed(const AccessAnalysis& a, const std::string& name) {
  INFO(a.log);
  REQUIRE(a.ok);
  for (const KernelAccessRanges& k : a.kernels)
    if (k.kernel == name) return k;
  FAIL("no kernel " << name);
  return a.kernels.front();
}

const ArgAccessRanges& arg(const KernelAccessRanges& k, const std::string& name) {
  for (const ArgAccessRanges& a : k.args)
    if (a.name == name) return a;
  FAIL("no argument " << name);
  return k.args.front();
}

LaunchValues launch(std::uint32_t dims, std::array<std::size_t, 3> global, std::array<std::size_t, 3> local,
                    std::vector<std::uint64_t> args = {}, std::array<std::size_t, 3> offset = {0, 0, 0}) {
  LaunchValues l;
  l.range.work_dim = dims;
  l.range.global_size = global;
  l.range.local_size = local;
  l.range.global_offset = offset;
  for (int d = 0; d < 3; ++d) l.range.num_groups[d] = global[d] / local[d];
  l.args = std::move(args);
  return l;
}

ByteRange bytes(std::int64_t lo, std::int64_t hi) { return ByteRange{false, lo, hi}; }

// The reads and writes of `name` for the groups [g0, g1) along dim.
ByteRange reads(const KernelAccessRanges& k, const std::string& name, const LaunchValues& l,
                std::size_t g0, std::size_t g1, unsigned dim) {
  return evaluate(k, arg(k, name).reads, l, g0, g1, dim);
}
ByteRange writes(const KernelAccessRanges& k, const std::string& name, const LaunchValues& l,
                 std::size_t g0, std::size_t g1, unsigned dim) {
  return evaluate(k, arg(k, name).writes, l, g0, g1, dim);
}

std::string show(const ByteRange& r) {
  return r.whole ? "whole" : "[" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + ")";
}

}  // namespace

namespace Catch {
template <>
struct StringMaker<ByteRange> {
  static std::string convert(const ByteRange& r) { return show(r); }
};
}  // namespace Catch

TEST_CASE("saxpy: a block of groups reads and writes its own elements", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void saxpy(__global const float* x, __global float* y, float a) {
      size_t i = get_global_id(0);
      y[i] = a * x[i] + y[i];
    })", "");
  const auto& k = analysed(a, "saxpy");
  INFO(describe_access_ranges(k));
  auto l = launch(1, {1024, 1, 1}, {64, 1, 1});
  // Groups 4..7: elements 256..511.
  CHECK(reads(k, "x", l, 4, 8, 0) == bytes(1024, 2048));
  CHECK(reads(k, "y", l, 4, 8, 0) == bytes(1024, 2048));
  CHECK(writes(k, "y", l, 4, 8, 0) == bytes(1024, 2048));
  CHECK(writes(k, "x", l, 4, 8, 0).empty());
  // A global offset of 32 elements moves everything by 128 bytes.
  auto shifted = launch(1, {1024, 1, 1}, {64, 1, 1}, {}, {32, 0, 0});
  CHECK(writes(k, "y", shifted, 4, 8, 0) == bytes(1152, 2176));
  CHECK(k.split[0].possible);
  CHECK(k.split[0].distinct_buffers.empty());
  CHECK(check_split(k, l, 0).ok);
  // Along dimension 1 every block would write the same elements.
  CHECK_FALSE(k.split[1].possible);
}

TEST_CASE("2D row-major: blocks of rows are contiguous, blocks of columns are not", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void twice(__global const float* a, __global float* b, int n) {
      int x = get_global_id(0), y = get_global_id(1);
      b[y * n + x] = 2.0f * a[y * n + x];
    })", "");
  const auto& k = analysed(a, "twice");
  INFO(describe_access_ranges(k));
  auto l = launch(2, {64, 32, 1}, {16, 8, 1}, {0, 0, 64});
  // Group rows 1..2: rows 8..23 of 64 floats.
  CHECK(reads(k, "a", l, 1, 3, 1) == bytes(8 * 64 * 4, 24 * 64 * 4));
  CHECK(writes(k, "b", l, 1, 3, 1) == bytes(8 * 64 * 4, 24 * 64 * 4));
  CHECK(check_split(k, l, 1).ok);
  // Group column 1: columns 16..31 of every row, a hull of rows 0..31.
  CHECK(writes(k, "b", l, 1, 2, 0) == bytes(16 * 4, (31 * 64 + 31) * 4 + 4));
  auto columns = check_split(k, l, 0);
  CHECK_FALSE(columns.ok);
  CHECK(columns.reason.find("'b'") != std::string::npos);
  // Rows of 48 elements under a global size of 64: a group's rows overlap
  // the next group's (the hull cannot see a guard), so no split.
  auto narrow = launch(2, {64, 32, 1}, {16, 8, 1}, {0, 0, 48});
  CHECK_FALSE(check_split(k, narrow, 1).ok);
}

TEST_CASE("3D: blocks of slices", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void bump(__global float* v, int nx, int ny) {
      size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
      v[(z * ny + y) * nx + x] += 1.0f;
    })", "");
  const auto& k = analysed(a, "bump");
  INFO(describe_access_ranges(k));
  auto l = launch(3, {8, 4, 6}, {4, 2, 3}, {0, 8, 4});
  // Group slice 1: z in 3..5, 32 floats a slice.
  CHECK(writes(k, "v", l, 1, 2, 2) == bytes(3 * 32 * 4, 6 * 32 * 4));
  CHECK(reads(k, "v", l, 1, 2, 2) == bytes(3 * 32 * 4, 6 * 32 * 4));
  CHECK(check_split(k, l, 2).ok);
  // Group row 1 (y in 2..3) of every slice: a hull over the slices.
  CHECK(writes(k, "v", l, 1, 2, 1) == bytes(2 * 8 * 4, (5 * 32 + 3 * 8 + 7) * 4 + 4));
  CHECK_FALSE(check_split(k, l, 1).ok);
  CHECK_FALSE(check_split(k, l, 0).ok);
}

TEST_CASE("stencil: reads reach one element past each end of the block", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void blur(__global const float* in, __global float* out) {
      int i = get_global_id(0);
      out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
    })", "");
  const auto& k = analysed(a, "blur");
  INFO(describe_access_ranges(k));
  auto l = launch(1, {256, 1, 1}, {32, 1, 1});
  // Groups 2..4: elements 64..159, reads 63..160.
  CHECK(writes(k, "out", l, 2, 5, 0) == bytes(256, 640));
  CHECK(reads(k, "in", l, 2, 5, 0) == bytes(252, 644));
  // The first block's halo starts before the buffer: the caller clamps.
  CHECK(reads(k, "in", l, 0, 1, 0) == bytes(-4, 132));
  CHECK(check_split(k, l, 0).ok);
}

TEST_CASE("in-place update: reads and writes the same elements", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void scale(__global float* a, float s) { a[get_global_id(0)] *= s; })", "");
  const auto& k = analysed(a, "scale");
  INFO(describe_access_ranges(k));
  auto l = launch(1, {100, 1, 1}, {10, 1, 1});
  CHECK(reads(k, "a", l, 3, 7, 0) == bytes(120, 280));
  CHECK(writes(k, "a", l, 3, 7, 0) == bytes(120, 280));
  CHECK(check_split(k, l, 0).ok);
}

TEST_CASE("strided writes: a block's even elements, disjoint from the next block's", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void spread(__global const float* in, __global float* out) {
      size_t i = get_global_id(0);
      out[2 * i] = in[i];
    })", "");
  const auto& k = analysed(a, "spread");
  INFO(describe_access_ranges(k));
  auto l = launch(1, {128, 1, 1}, {16, 1, 1});
  // Groups 1..2: i in 16..47, out elements 32, 34, .., 94.
  CHECK(writes(k, "out", l, 1, 3, 0) == bytes(128, 94 * 4 + 4));
  CHECK(reads(k, "in", l, 1, 3, 0) == bytes(64, 192));
  CHECK(check_split(k, l, 0).ok);
}

// out[j*n + i] with i along dimension 0: a block of groups along 0 writes a
// band of columns, one slice of every row. Its hull covers nearly the whole
// buffer and overlaps every other block's; giving a hull back would
// overwrite the other devices' results, so the split along 0 is refused
// (a strided, rectangular transfer per block could allow it later). Along
// dimension 1 the blocks are bands of rows: contiguous, split.
TEST_CASE("transposed writes: split along the rows, refused along the columns", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void transpose(__global const float* in, __global float* out, int n) {
      int i = get_global_id(0), j = get_global_id(1);
      out[j * n + i] = in[i * n + j];
    })", "");
  const auto& k = analysed(a, "transpose");
  INFO(describe_access_ranges(k));
  auto l = launch(2, {32, 32, 1}, {8, 8, 1}, {0, 0, 32});
  // Groups 1 along 0: i in 8..15; reads rows 8..15 of in, exactly.
  CHECK(reads(k, "in", l, 1, 2, 0) == bytes(8 * 32 * 4, 16 * 32 * 4));
  // ... and writes columns 8..15 of out: the hull of rows 0..31.
  CHECK(writes(k, "out", l, 1, 2, 0) == bytes(8 * 4, (31 * 32 + 15) * 4 + 4));
  auto along0 = check_split(k, l, 0);
  CHECK_FALSE(along0.ok);
  INFO(along0.reason);
  CHECK(along0.reason.find("span") != std::string::npos);
  CHECK(writes(k, "out", l, 1, 2, 1) == bytes(8 * 32 * 4, 16 * 32 * 4));
  CHECK(check_split(k, l, 1).ok);
}

TEST_CASE("matrix multiply: a block of rows reads its rows of A, all of B, writes its rows of C",
          "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void matmul(__global const float* A, __global const float* B, __global float* C, int n) {
      int row = get_global_id(1), col = get_global_id(0);
      float acc = 0.0f;
      for (int k = 0; k < n; k++) acc += A[row * n + k] * B[k * n + col];
      C[row * n + col] = acc;
    })", "");
  const auto& k = analysed(a, "matmul");
  INFO(describe_access_ranges(k));
  REQUIRE(k.loop_backedges.size() == 1);
  auto l = launch(2, {64, 64, 1}, {16, 16, 1}, {0, 0, 0, 64});
  // Groups 1..2 along 1: rows 16..47.
  CHECK(reads(k, "A", l, 1, 3, 1) == bytes(16 * 64 * 4, 48 * 64 * 4));
  CHECK(reads(k, "B", l, 1, 3, 1) == bytes(0, 64 * 64 * 4));
  CHECK(writes(k, "C", l, 1, 3, 1) == bytes(16 * 64 * 4, 48 * 64 * 4));
  CHECK(writes(k, "A", l, 1, 3, 1).empty());
  CHECK(check_split(k, l, 1).ok);
  // n = 0: the loop never runs, A and B are not read.
  auto empty = launch(2, {64, 64, 1}, {16, 16, 1}, {0, 0, 0, 0});
  CHECK(reads(k, "A", empty, 1, 3, 1).empty());
}

TEST_CASE("reduction into per-group slots: one element per group", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void sum(__global const float* in, __global float* out, __local float* tmp) {
      size_t l = get_local_id(0);
      tmp[l] = in[get_global_id(0)];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s) tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      if (l == 0) out[get_group_id(0)] = tmp[0];
    })", "");
  const auto& k = analysed(a, "sum");
  INFO(describe_access_ranges(k));
  auto l = launch(1, {256, 1, 1}, {64, 1, 1});
  CHECK(writes(k, "out", l, 1, 3, 0) == bytes(4, 12));
  CHECK(reads(k, "in", l, 1, 3, 0) == bytes(256, 768));
  CHECK(check_split(k, l, 0).ok);
}

TEST_CASE("the dimensions along which a kernel asks for launch-wide values", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    size_t rows(void) { return get_global_size(1); }
    __kernel void plain(__global float* x) { x[get_global_id(0)] += 1.0f; }
    __kernel void slots(__global float* x) { x[get_group_id(0)] = 1.0f; }
    __kernel void helper(__global float* x) {
      x[get_global_id(1) * get_global_size(0) + get_global_id(0)] = (float)rows();
    }
    __kernel void unknown(__global float* x, uint d) { x[get_global_id(0)] = get_num_groups(d); })",
                                 "");
  CHECK(analysed(a, "plain").launch_bound_dims == 0);
  CHECK(analysed(a, "slots").launch_bound_dims == 1);
  CHECK(analysed(a, "helper").launch_bound_dims == 3);
  CHECK(analysed(a, "unknown").launch_bound_dims == 7);
}

TEST_CASE("refused: global atomics", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void count(__global const int* in, __global int* total) {
      if (in[get_global_id(0)] > 0) atomic_inc(&total[get_group_id(0)]);
    })", "");
  const auto& k = analysed(a, "count");
  INFO(describe_access_ranges(k));
  CHECK(arg(k, "total").atomics);
  for (unsigned d = 0; d < 3; ++d) {
    CHECK_FALSE(k.split[d].possible);
    CHECK(k.split[d].reason.find("atomics on 'total'") != std::string::npos);
  }
  CHECK_FALSE(check_split(k, launch(1, {256, 1, 1}, {64, 1, 1}), 0).ok);
}

TEST_CASE("refused: data-dependent writes", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void scatter(__global const int* idx, __global const float* v, __global float* out) {
      size_t i = get_global_id(0);
      out[idx[i]] = v[i];
    })", "");
  const auto& k = analysed(a, "scatter");
  INFO(describe_access_ranges(k));
  auto l = launch(1, {256, 1, 1}, {64, 1, 1});
  CHECK(writes(k, "out", l, 0, 1, 0).whole);
  CHECK(reads(k, "idx", l, 0, 1, 0) == bytes(0, 256));
  CHECK_FALSE(k.split[0].possible);
  CHECK(k.split[0].reason.find("writes to 'out' cannot be bounded") != std::string::npos);
}

TEST_CASE("refused: writes whose index cannot be bounded", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void square(__global float* out) {
      size_t i = get_global_id(0);
      out[i * i] = 1.0f;
    }
    __kernel void chase(__global const int* next, __global float* out) {
      int j = get_global_id(0);
      while (j >= 0) { out[j] = 1.0f; j = next[j]; }
    }
    __kernel void upto(__global float* out, __global const int* len) {
      size_t i = get_global_id(0);
      for (int k = 0; k < len[i]; ++k) out[i * 16 + k] = 0.0f;
    })", "");
  for (const char* name : {"square", "chase", "upto"}) {
    const auto& k = analysed(a, name);
    INFO(describe_access_ranges(k));
    CHECK(arg(k, "out").writes.kind == ArgAccess::Kind::Whole);
    CHECK_FALSE(k.split[0].possible);
    CHECK(k.split[0].reason.find("writes to 'out' cannot be bounded") != std::string::npos);
  }
}

TEST_CASE("two written arguments must be distinct buffers; a write every group makes is refused",
          "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void both(__global float* p, __global const float* r, __global float* q) {
      size_t i = get_global_id(0);
      p[i] = r[i];
      q[i] = 2.0f * r[i];
    }
    __kernel void flag(__global float* out, __global int* done) {
      out[get_global_id(0)] = 1.0f;
      done[0] = 1;
    })", "");
  const auto& both = analysed(a, "both");
  INFO(describe_access_ranges(both));
  REQUIRE(both.split[0].possible);
  CHECK(both.split[0].distinct_buffers == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{0, 2}});
  const auto& flag = analysed(a, "flag");
  INFO(describe_access_ranges(flag));
  CHECK_FALSE(flag.split[0].possible);
  CHECK(flag.split[0].reason.find("'done'") != std::string::npos);
}

TEST_CASE("tiled matrix multiply: __local tiles, a loop bounded by n / 16", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    #define TS 16
    __kernel void sgemm(int n, __global const float* A, __global const float* B, __global float* C) {
      __local float As[TS][TS], Bs[TS][TS];
      int lx = get_local_id(0), ly = get_local_id(1);
      int col = get_global_id(0), row = get_global_id(1);
      float acc = 0.0f;
      for (int t = 0; t < n / TS; t++) {
        As[ly][lx] = A[row * n + t * TS + lx];
        Bs[ly][lx] = B[(t * TS + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++) acc += As[ly][k] * Bs[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      C[row * n + col] = acc;
    })", "");
  const auto& k = analysed(a, "sgemm");
  INFO(describe_access_ranges(k));
  auto l = launch(2, {64, 64, 1}, {16, 16, 1}, {64});
  CHECK(reads(k, "A", l, 1, 3, 1) == bytes(16 * 64 * 4, 48 * 64 * 4));
  CHECK(reads(k, "B", l, 1, 3, 1) == bytes(0, 64 * 64 * 4));
  CHECK(writes(k, "C", l, 1, 3, 1) == bytes(16 * 64 * 4, 48 * 64 * 4));
  CHECK(check_split(k, l, 1).ok);
  // Along dimension 0: columns, refused.
  CHECK_FALSE(check_split(k, l, 0).ok);
}

TEST_CASE("nbody: every body read, a block's own bodies written; vload/vstore", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void step(__global const float4* pos, __global float4* newpos, __global float4* vel,
                       int n, float dt) {
      uint i = get_global_id(0);
      float4 p = pos[i];
      float3 acc = (float3)(0.0f);
      for (int j = 0; j < n; j++) {
        float4 q = pos[j];
        float3 d = q.xyz - p.xyz;
        float r = rsqrt(dot(d, d) + 0.01f);
        acc += d * q.w * r * r * r;
      }
      vel[i].xyz += acc * dt;
      newpos[i] = p + (float4)(vel[i].xyz * dt, 0.0f);
    }
    __kernel void v4(__global const float* in, __global float* out) {
      size_t i = get_global_id(0);
      vstore4(vload4(i, in) * 2.0f, i, out);
    })", "");
  const auto& k = analysed(a, "step");
  INFO(describe_access_ranges(k));
  auto l = launch(1, {1024, 1, 1}, {128, 1, 1}, {0, 0, 0, 1024});
  CHECK(reads(k, "pos", l, 2, 4, 0) == bytes(0, 1024 * 16));
  CHECK(writes(k, "newpos", l, 2, 4, 0) == bytes(256 * 16, 512 * 16));
  CHECK(writes(k, "vel", l, 2, 4, 0) == bytes(256 * 16, 512 * 16));
  CHECK(check_split(k, l, 0).ok);
  CHECK(k.split[0].distinct_buffers == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1, 2}});
  const auto& v = analysed(a, "v4");
  INFO(describe_access_ranges(v));
  auto lv = launch(1, {64, 1, 1}, {16, 1, 1});
  CHECK(reads(v, "in", lv, 1, 2, 0) == bytes(16 * 16, 32 * 16));
  CHECK(writes(v, "out", lv, 1, 2, 0) == bytes(16 * 16, 32 * 16));
  CHECK(check_split(v, lv, 0).ok);
}

TEST_CASE("a struct passed by value is the kernel's own memory", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    typedef struct { int n; float s; float pad[6]; } Params;
    __kernel void scale(__global float* a, Params p) { a[get_global_id(0)] *= p.s * p.pad[p.n & 3]; })", "");
  const auto& k = analysed(a, "scale");
  INFO(describe_access_ranges(k));
  auto l = launch(1, {64, 1, 1}, {16, 1, 1});
  CHECK(writes(k, "a", l, 1, 2, 0) == bytes(64, 128));
  CHECK(check_split(k, l, 0).ok);
}

TEST_CASE("triangular loops: a prefix sum, a lower triangle", "[access-ranges]") {
  auto a = analyse_access_ranges(R"(
    __kernel void prefix(__global const float* in, __global float* out) {
      int i = get_global_id(0);
      float s = 0.0f;
      for (int k = 0; k < i; ++k) s += in[k];
      out[i] = s;
    }
    __kernel void rows(__global float* m, int n) {
      int r = get_global_id(0);
      for (int j = 0; j < r; ++j) m[r * n + j] = 0.0f;
    })", "");
  const auto& k = analysed(a, "prefix");
  INFO(describe_access_ranges(k));
  auto l = launch(1, {256, 1, 1}, {32, 1, 1});
  // Groups 2..3: i in 64..127, reads in[0..126].
  CHECK(reads(k, "in", l, 2, 4, 0) == bytes(0, 127 * 4));
  CHECK(writes(k, "out", l, 2, 4, 0) == bytes(64 * 4, 128 * 4));
  CHECK(check_split(k, l, 0).ok);
  // Row r's first r elements, rows 16..31: up to element 30 of row 31.
  // The footprint takes the count at its highest over every group (r = 63
  // of 64 rows): one group's 16 rows of 64 still fit in its stride.
  const auto& rows = analysed(a, "rows");
  INFO(describe_access_ranges(rows));
  auto lr = launch(1, {64, 1, 1}, {16, 1, 1}, {0, 64});
  CHECK(writes(rows, "m", lr, 1, 2, 0) == bytes(16 * 64 * 4, (31 * 64 + 30) * 4 + 4));
  CHECK(check_split(rows, lr, 0).ok);
}

TEST_CASE("the analysis kept in the cache reads back the same; a corrupt entry is analysed again",
          "[access-ranges]") {
  const char* dir = std::getenv("PARASOL_CACHE_DIR");
  if (!dir || std::getenv("PARASOL_NO_KERNEL_CACHE")) {
    WARN("no kernel cache (PARASOL_CACHE_DIR unset): nothing to check");
    return;
  }
  // A source no earlier run analysed: its entry is written now.
  const std::string source =
      "// " + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + R"(
    __kernel void blur(__global const float* in, __global float* out, int n) {
      size_t i = get_global_id(0);
      float s = 0.0f;
      for (int k = -2; k <= 2; ++k) s += in[i + 2 + k];
      out[i] = s / n;
    })";
  const AccessAnalysis first = analyse_access_ranges(source, "");
  const std::string described = describe_access_ranges(analysed(first, "blur"));
  namespace fs = std::filesystem;
  fs::path newest;
  for (const auto& f : fs::directory_iterator(fs::path(dir) / "access-ranges"))
    if (newest.empty() || fs::last_write_time(f) > fs::last_write_time(newest)) newest = f.path();
  REQUIRE(!newest.empty());

  const AccessAnalysis cached = analyse_access_ranges(source, "");
  const KernelAccessRanges& k = analysed(cached, "blur");
  CHECK(describe_access_ranges(k) == described);
  auto l = launch(1, {256, 1, 1}, {64, 1, 1}, {0, 0, 5});
  CHECK(reads(k, "in", l, 1, 2, 0) == bytes(256, 528));
  CHECK(check_split(k, l, 0).ok);

  for (std::uintmax_t keep : {std::uintmax_t{0}, fs::file_size(newest) / 2, std::uintmax_t{7}}) {
    fs::resize_file(newest, keep);
    const AccessAnalysis again = analyse_access_ranges(source, "");
    CHECK(describe_access_ranges(analysed(again, "blur")) == described);
  }
}
