// Parasol's native CPU device against PoCL's CPU device, both through
// Parasol device queues (one-device contexts), on the same cores: the same
// kernels, the same sizes, interleaved rounds, best of the rounds. Beside
// them, in the same process, the machine's own limits over the same cores:
// a plain C++ triad over std::thread (the bandwidth a streaming kernel can
// reach) and a plain loop-nest SGEMM compiled -O3 for the CPU it runs on.
// Also the launch overhead of an empty kernel, and the build latency of a
// small program, cold (empty caches) and cached.
// Figures, never asserts: a wrong result is reported in the table.
//
//   bench_native_vs_pocl [substring...]   only the workloads whose names contain one (default: all)
// Environment (defaults in brackets):
//   BENCH_ROUNDS [5]  BENCH_WARMUP [2]  BENCH_ITER [4] (launches per timed run)
//   BENCH_STREAM_N [half the last-level cache's bytes, within 2^24 .. 2^27]
//     (floats per array of copy, scale, saxpy, triad)
//   BENCH_REDUCE_N [16777216] BENCH_STENCIL_N [4096] (grid side) BENCH_BS_N [1048576]
//   BENCH_SGEMM_N [512] BENCH_NBODY_N [4096] BENCH_COLLATZ_N [4194304]
//   BENCH_LAUNCHES [1000] (launches of the empty kernel per timed run of a "launch" row:
//     µs per launch, native / PoCL as a time ratio, not in the geomean)
//   BENCH_REF_THREADS [every CPU the process may use] (the C++ references' threads)
//   BENCH_THREAD_STATS=1: every thread's CPU time and context switches after the tables
// PoCL's kernel cache goes to a fresh XDG_CACHE_HOME and Parasol's to a
// fresh PARASOL_CACHE_DIR (both removed at the end), so "cold" is cold.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "thread_stats.h"

extern "C" {
#include "blackscholes/blackscholes_kernels.h"
#include "matmul/matmul_kernels.h"
#include "nbody/nbody_kernels.h"
}

using namespace bench;

namespace {

// The streaming kernels, as an application writes them: one element per
// work-item; copy, scale and triad as STREAM defines them (the global size
// is the array's), saxpy with a bounds check.
const char* kStreamSource =
    "__kernel void copy(__global float* b, __global const float* a) {\n"
    "  size_t i = get_global_id(0);\n"
    "  b[i] = a[i];\n"
    "}\n"
    "__kernel void scale(__global float* b, __global const float* a, float s) {\n"
    "  size_t i = get_global_id(0);\n"
    "  b[i] = s * a[i];\n"
    "}\n"
    "__kernel void saxpy(__global float* y, __global const float* x, float a, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "__kernel void triad(__global float* a, __global const float* b, __global const float* c,\n"
    "                    float s) {\n"
    "  size_t i = get_global_id(0);\n"
    "  a[i] = b[i] + s * c[i];\n"
    "}\n";

// The small program whose build latency is measured.
const char* kSaxpySource =
    "__kernel void saxpy(__global float* y, __global const float* x, float a, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

const char* kReduceSource =
    "__kernel void reduce_sum(__global const float* in, __global float* partial,\n"
    "                         __local float* scratch, uint per_item) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  size_t base = get_group_id(0) * n * per_item;\n"
    "  float s = 0.0f;\n"
    "  for (uint k = 0; k < per_item; ++k) s += in[base + k * n + l];\n"
    "  scratch[l] = s;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t h = n / 2; h > 0; h >>= 1) {\n"
    "    if (l < h) scratch[l] += scratch[l + h];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) partial[get_group_id(0)] = scratch[0];\n"
    "}\n";

// A 5-point stencil over an n x n grid (2D NDRange, the border copied).
const char* kStencilSource =
    "__kernel void stencil5(__global float* out, __global const float* in, int n) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  size_t i = (size_t)y * n + x;\n"
    "  if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {\n"
    "    out[i] = in[i];\n"
    "    return;\n"
    "  }\n"
    "  out[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - n] + in[i + n]);\n"
    "}\n";

// Divergent control flow: each work-item's loop runs as many times as its
// number's Collatz sequence is long (from 0 to a few hundred steps).
const char* kCollatzSource =
    "__kernel void collatz(__global uint* steps, ulong first) {\n"
    "  size_t i = get_global_id(0);\n"
    "  ulong v = first + i;\n"
    "  uint s = 0;\n"
    "  while (v != 1) {\n"
    "    v = (v & 1) ? 3 * v + 1 : v >> 1;\n"
    "    ++s;\n"
    "  }\n"
    "  steps[i] = s;\n"
    "}\n";

// The launch-overhead workloads' kernel: nothing to run, no argument.
const char* kEmptySource = "__kernel void empty(void) {}\n";

struct Device {
  const char* label;
  cl_device_id id = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue q = nullptr;
};

cl_mem buffer(cl_context ctx, size_t bytes, const void* init = nullptr) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                            const_cast<void*>(init), &err);
  BENCH_CHECK(err);
  return m;
}

cl_kernel kernel(cl_program p, const char* name) {
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, name, &err);
  BENCH_CHECK(err);
  return k;
}

template <typename T>
void arg(cl_kernel k, cl_uint i, const T& v) { BENCH_CHECK(clSetKernelArg(k, i, sizeof(T), &v)); }

// `iters` launches of k over global (local: null, the device's choice), then clFinish.
void launch(Device& d, cl_kernel k, cl_uint dims, const size_t* global, const size_t* local,
            int iters) {
  for (int i = 0; i < iters; ++i)
    BENCH_CHECK(clEnqueueNDRangeKernel(d.q, k, dims, nullptr, global, local, 0, nullptr, nullptr));
  BENCH_CHECK(clFinish(d.q));
}

// One workload on one device: setup() builds and fills, run() enqueues one
// timed iteration, check() reads back and compares with the reference.
struct Instance {
  std::function<void()> run;
  std::function<bool()> check;
  std::function<void()> release;
};
using Workload = std::function<Instance(Device&)>;

enum class Ref { None, Triad, Sgemm };  // the C++ reference a workload is compared with

struct Result {
  std::string name, unit;
  double work = 0;                   // units of work per timed run
  double bytes = 0;                  // bytes per timed run (0: not a bandwidth figure)
  Ref reference = Ref::None;
  bool launch = false;               // a launch-overhead row: µs per launch, not in the geomean
  double seconds[2] = {1e30, 1e30};  // native, PoCL
  bool ok[2] = {false, false};
};

int iterations() { return env_int("BENCH_ITER", 4); }
// Floats per array of the streaming kernels: 2^24, or where the last-level
// cache is larger, half its size in bytes (each array twice the cache, at
// most 512 MiB), so that they stream from memory in the kernels and in the
// C++ triad alike.
size_t stream_n() {
  if (const int n = env_int("BENCH_STREAM_N", 0); n > 0) return static_cast<size_t>(n);
  const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  const size_t half = llc > 0 ? static_cast<size_t>(llc) / 2 : 0;
  return std::clamp<size_t>(half, size_t{1} << 24, size_t{1} << 27);
}

// A streaming kernel of kStreamSource over `buffers` arrays of stream_n()
// floats, the first one written: set_args gives the kernel its arguments
// after the buffers, want(inputs, i, launches) is element i of the first
// array after that many launches.
Instance streaming(Device& d, const char* name, int buffers,
                   std::function<void(cl_kernel, cl_uint first)> set_args,
                   std::function<double(const std::vector<std::vector<float>>&, size_t, long)> want) {
  const size_t n = stream_n();
  const int iters = iterations();
  auto data = std::make_shared<std::vector<std::vector<float>>>(buffers, std::vector<float>(n));
  for (int b = 0; b < buffers; ++b)
    for (size_t i = 0; i < n; ++i)
      (*data)[b][i] = static_cast<float>((i * (b + 3)) % 1000) * 0.001f + static_cast<float>(b);
  cl_program p = build(d.ctx, kStreamSource);
  cl_kernel k = kernel(p, name);
  auto mems = std::make_shared<std::vector<cl_mem>>();
  for (int b = 0; b < buffers; ++b) {
    mems->push_back(buffer(d.ctx, n * 4, (*data)[b].data()));
    arg(k, b, mems->back());
  }
  set_args(k, buffers);
  auto launches = std::make_shared<long>(0);
  Instance in;
  in.run = [=, &d] {
    launch(d, k, 1, &n, nullptr, iters);
    *launches += iters;
  };
  in.check = [=, &d] {
    std::vector<float> got(n);
    BENCH_CHECK(clEnqueueReadBuffer(d.q, mems->front(), CL_TRUE, 0, n * 4, got.data(), 0, nullptr,
                                    nullptr));
    for (size_t i = 0; i < n; i += 4099) {
      const double w = want(*data, i, *launches);
      if (std::fabs(got[i] - w) > 1e-5 * (1 + std::fabs(w)) * (1 + *launches)) return false;
    }
    return true;
  };
  in.release = [=] {
    for (cl_mem m : *mems) clReleaseMemObject(m);
    clReleaseKernel(k), clReleaseProgram(p);
  };
  return in;
}

constexpr float kScalar = 3.0f;

Instance copy(Device& d) {
  return streaming(d, "copy", 2, [](cl_kernel, cl_uint) {},
                   [](const auto& in, size_t i, long) { return double(in[1][i]); });
}

Instance scale(Device& d) {
  return streaming(d, "scale", 2, [](cl_kernel k, cl_uint a) { arg(k, a, kScalar); },
                   [](const auto& in, size_t i, long) { return double(kScalar * in[1][i]); });
}

Instance saxpy(Device& d) {
  const cl_uint n = static_cast<cl_uint>(stream_n());
  return streaming(
      d, "saxpy", 2, [n](cl_kernel k, cl_uint a) { arg(k, a, kScalar), arg(k, a + 1, n); },
      [](const auto& in, size_t i, long launches) {
        return double(in[0][i]) + double(launches) * kScalar * in[1][i];
      });
}

Instance triad(Device& d) {
  return streaming(d, "triad", 3, [](cl_kernel k, cl_uint a) { arg(k, a, kScalar); },
                   [](const auto& in, size_t i, long) {
                     return double(in[1][i]) + kScalar * double(in[2][i]);
                   });
}

Instance stencil(Device& d) {
  const int n = env_int("BENCH_STENCIL_N", 4096);
  const int iters = iterations();
  auto grid = std::make_shared<std::vector<float>>(size_t(n) * n);
  for (size_t i = 0; i < grid->size(); ++i) (*grid)[i] = static_cast<float>((i * 7) % 101) * 0.01f;
  cl_program p = build(d.ctx, kStencilSource);
  cl_kernel k = kernel(p, "stencil5");
  cl_mem out = buffer(d.ctx, grid->size() * 4), in_mem = buffer(d.ctx, grid->size() * 4, grid->data());
  arg(k, 0, out), arg(k, 1, in_mem), arg(k, 2, n);
  Instance in;
  in.run = [=, &d] {
    size_t g[2] = {size_t(n), size_t(n)};
    launch(d, k, 2, g, nullptr, iters);
  };
  in.check = [=, &d] {
    std::vector<float> got(grid->size());
    BENCH_CHECK(clEnqueueReadBuffer(d.q, out, CL_TRUE, 0, got.size() * 4, got.data(), 0, nullptr, nullptr));
    const auto& g = *grid;
    for (int y = 0; y < n; y += 31)
      for (int x = 0; x < n; ++x) {
        const size_t i = size_t(y) * n + x;
        const bool border = x == 0 || y == 0 || x == n - 1 || y == n - 1;
        const double w = border ? g[i]
                                : 0.5 * g[i] + 0.125 * (double(g[i - 1]) + g[i + 1] + g[i - n] + g[i + n]);
        if (std::fabs(got[i] - w) > 1e-5 * (1 + std::fabs(w))) return false;
      }
    return true;
  };
  in.release = [=] { clReleaseMemObject(out), clReleaseMemObject(in_mem), clReleaseKernel(k), clReleaseProgram(p); };
  return in;
}

unsigned collatz_steps(std::uint64_t v) {
  unsigned s = 0;
  for (; v != 1; ++s) v = (v & 1) ? 3 * v + 1 : v >> 1;
  return s;
}

Instance collatz(Device& d) {
  const size_t n = static_cast<size_t>(env_int("BENCH_COLLATZ_N", 1 << 22));
  const int iters = iterations();
  const cl_ulong first = 1;
  cl_program p = build(d.ctx, kCollatzSource);
  cl_kernel k = kernel(p, "collatz");
  cl_mem steps = buffer(d.ctx, n * 4);
  arg(k, 0, steps), arg(k, 1, first);
  Instance in;
  in.run = [=, &d] { launch(d, k, 1, &n, nullptr, iters); };
  in.check = [=, &d] {
    std::vector<cl_uint> got(n);
    BENCH_CHECK(clEnqueueReadBuffer(d.q, steps, CL_TRUE, 0, n * 4, got.data(), 0, nullptr, nullptr));
    for (size_t i = 0; i < n; i += 1009)
      if (got[i] != collatz_steps(first + i)) return false;
    return true;
  };
  in.release = [=] { clReleaseMemObject(steps), clReleaseKernel(k), clReleaseProgram(p); };
  return in;
}

// Launches of an empty kernel: `launches` enqueued, then clFinish (or a
// clFinish after each one), over `global` work-items in groups of `local`.
int launches() { return env_int("BENCH_LAUNCHES", 1000); }

Workload empty_launches(size_t global, size_t local, bool finish_each) {
  return [=](Device& d) {
    cl_program p = build(d.ctx, kEmptySource);
    cl_kernel k = kernel(p, "empty");
    const int n = launches();
    Instance in;
    in.run = [=, &d] {
      for (int i = 0; i < n; ++i) {
        BENCH_CHECK(clEnqueueNDRangeKernel(d.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
        if (finish_each) BENCH_CHECK(clFinish(d.q));
      }
      BENCH_CHECK(clFinish(d.q));
    };
    in.check = [] { return true; };
    in.release = [=] { clReleaseKernel(k), clReleaseProgram(p); };
    return in;
  };
}

Instance blackscholes(Device& d) {
  const cl_uint n = static_cast<cl_uint>(env_int("BENCH_BS_N", 1 << 20));
  const int iters = env_int("BENCH_ITER", 4);
  std::vector<float> s(n), x(n), t(n);
  for (cl_uint i = 0; i < n; ++i) blackscholes_input(i, &s[i], &x[i], &t[i]);
  cl_program p = build(d.ctx, kBlackScholesSource);
  cl_kernel k = kernel(p, "black_scholes");
  cl_mem call = buffer(d.ctx, n * 4ul), put = buffer(d.ctx, n * 4ul), bs = buffer(d.ctx, n * 4ul, s.data()),
         bx = buffer(d.ctx, n * 4ul, x.data()), bt = buffer(d.ctx, n * 4ul, t.data());
  const float r = blackscholes_rate(0), v = BLACKSCHOLES_VOLATILITY;
  arg(k, 0, call), arg(k, 1, put), arg(k, 2, bs), arg(k, 3, bx), arg(k, 4, bt), arg(k, 5, r), arg(k, 6, v), arg(k, 7, n);
  Instance in;
  in.run = [=, &d] {
    size_t g = n;
    for (int i = 0; i < iters; ++i) BENCH_CHECK(clEnqueueNDRangeKernel(d.q, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
    BENCH_CHECK(clFinish(d.q));
  };
  in.check = [=, &d] {
    std::vector<float> got(n);
    BENCH_CHECK(clEnqueueReadBuffer(d.q, call, CL_TRUE, 0, n * 4ul, got.data(), 0, nullptr, nullptr));
    for (cl_uint i = 0; i < n; i += 997) {
      double c, pu;
      blackscholes_reference(s[i], x[i], t[i], r, v, &c, &pu);
      if (!blackscholes_close(got[i], c)) return false;
    }
    return true;
  };
  in.release = [=] {
    for (cl_mem m : {call, put, bs, bx, bt}) clReleaseMemObject(m);
    clReleaseKernel(k), clReleaseProgram(p);
  };
  return in;
}

Instance sgemm(Device& d) {
  const int n = env_int("BENCH_SGEMM_N", 512);
  const int iters = std::max(1, env_int("BENCH_ITER", 4) / 2);
  std::vector<float> a(n * n), b(n * n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) a[r * n + c] = matmul_a(r, c), b[r * n + c] = matmul_b(r, c);
  cl_program p = build(d.ctx, kMatmulSource);
  cl_kernel k = kernel(p, "sgemm_tiled");
  cl_mem ba = buffer(d.ctx, a.size() * 4, a.data()), bb = buffer(d.ctx, b.size() * 4, b.data()),
         bc = buffer(d.ctx, a.size() * 4);
  arg(k, 0, ba), arg(k, 1, bb), arg(k, 2, bc), arg(k, 3, n), arg(k, 4, n), arg(k, 5, n);
  Instance in;
  in.run = [=, &d] {
    size_t g[2] = {matmul_round_up(n), matmul_round_up(n)}, l[2] = {MATMUL_TILE, MATMUL_TILE};
    for (int i = 0; i < iters; ++i) BENCH_CHECK(clEnqueueNDRangeKernel(d.q, k, 2, nullptr, g, l, 0, nullptr, nullptr));
    BENCH_CHECK(clFinish(d.q));
  };
  in.check = [=, &d] {
    std::vector<float> got(a.size());
    BENCH_CHECK(clEnqueueReadBuffer(d.q, bc, CL_TRUE, 0, got.size() * 4, got.data(), 0, nullptr, nullptr));
    std::vector<double> row(n);
    for (int r = 0; r < n; r += 37) {
      matmul_reference_row(a.data(), b.data(), r, n, n, row.data());
      for (int c = 0; c < n; ++c)
        if (!matmul_close(got[r * n + c], row[c], n)) return false;
    }
    return true;
  };
  in.release = [=] {
    for (cl_mem m : {ba, bb, bc}) clReleaseMemObject(m);
    clReleaseKernel(k), clReleaseProgram(p);
  };
  return in;
}

Instance nbody(Device& d) {
  const cl_uint n = static_cast<cl_uint>(env_int("BENCH_NBODY_N", 4096));
  const int iters = std::max(1, env_int("BENCH_ITER", 4) / 2);
  std::vector<float> pos(4 * n);
  for (cl_uint i = 0; i < n; ++i) nbody_initial(i, n, &pos[4 * i]);
  cl_program p = build(d.ctx, kNbodySource);
  cl_kernel k = kernel(p, "nbody_forces");
  cl_mem bp = buffer(d.ctx, pos.size() * 4, pos.data()), ba = buffer(d.ctx, pos.size() * 4);
  const cl_uint first = 0;
  const float eps2 = NBODY_EPS2;
  arg(k, 0, bp), arg(k, 1, ba), arg(k, 2, n), arg(k, 3, first), arg(k, 4, n), arg(k, 5, eps2);
  Instance in;
  in.run = [=, &d] {
    size_t g = n;
    for (int i = 0; i < iters; ++i) BENCH_CHECK(clEnqueueNDRangeKernel(d.q, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
    BENCH_CHECK(clFinish(d.q));
  };
  in.check = [=, &d] {
    std::vector<float> got(pos.size());
    BENCH_CHECK(clEnqueueReadBuffer(d.q, ba, CL_TRUE, 0, got.size() * 4, got.data(), 0, nullptr, nullptr));
    for (cl_uint i = 0; i < n; i += 101) {
      double acc[3] = {0, 0, 0};
      for (cl_uint j = 0; j < n; ++j) {
        double dd[3] = {pos[4 * j] - pos[4 * i], pos[4 * j + 1] - pos[4 * i + 1], pos[4 * j + 2] - pos[4 * i + 2]};
        double r2 = dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2] + eps2;
        double f = pos[4 * j + 3] / (r2 * std::sqrt(r2));
        for (int c = 0; c < 3; ++c) acc[c] += f * dd[c];
      }
      for (int c = 0; c < 3; ++c)
        if (std::fabs(got[4 * i + c] - acc[c]) > 1e-3 * (1 + std::fabs(acc[c]))) return false;
    }
    return true;
  };
  in.release = [=] { clReleaseMemObject(bp), clReleaseMemObject(ba), clReleaseKernel(k), clReleaseProgram(p); };
  return in;
}

Instance reduce(Device& d) {
  const cl_uint n = static_cast<cl_uint>(env_int("BENCH_REDUCE_N", 1 << 24));
  const int iters = env_int("BENCH_ITER", 4);
  const size_t wg = 128;
  const cl_uint per_item = 16;
  const size_t groups = n / (wg * per_item);
  std::vector<float> in_data(n);
  for (cl_uint i = 0; i < n; ++i) in_data[i] = static_cast<float>(i % 17) - 8.0f;
  cl_program p = build(d.ctx, kReduceSource);
  cl_kernel k = kernel(p, "reduce_sum");
  cl_mem bi = buffer(d.ctx, n * 4ul, in_data.data()), bo = buffer(d.ctx, groups * 4);
  arg(k, 0, bi), arg(k, 1, bo), arg(k, 3, per_item);
  BENCH_CHECK(clSetKernelArg(k, 2, wg * sizeof(float), nullptr));
  Instance in;
  in.run = [=, &d] {
    size_t g = groups * wg, l = wg;
    for (int i = 0; i < iters; ++i) BENCH_CHECK(clEnqueueNDRangeKernel(d.q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr));
    BENCH_CHECK(clFinish(d.q));
  };
  in.check = [=, &d] {
    std::vector<float> got(groups);
    BENCH_CHECK(clEnqueueReadBuffer(d.q, bo, CL_TRUE, 0, groups * 4, got.data(), 0, nullptr, nullptr));
    double total = 0, want = 0;
    for (float v : got) total += v;
    for (float v : in_data) want += v;
    return std::fabs(total - want) < 1e-3 * (1 + std::fabs(want));
  };
  in.release = [=] { clReleaseMemObject(bi), clReleaseMemObject(bo), clReleaseKernel(k), clReleaseProgram(p); };
  return in;
}

// The machine's own figures over the same cores, in plain C++: the
// processors the process may run on (or BENCH_REF_THREADS), one thread each.
unsigned reference_threads() {
  if (int t = env_int("BENCH_REF_THREADS", 0); t > 0) return static_cast<unsigned>(t);
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// Runs body(t) on `threads` threads together: seconds from the moment every
// thread is ready until the last one ends.
template <typename Fn>
double on_threads(unsigned threads, Fn&& body) {
  std::atomic<unsigned> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      body(t);
    });
  while (ready.load() < threads) std::this_thread::yield();
  auto t0 = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  for (auto& t : pool) t.join();
  return seconds_since(t0);
}

// Thread t's share [first, second) of n items.
std::pair<size_t, size_t> share(size_t n, unsigned t, unsigned threads) {
  return {n * t / threads, n * (t + 1) / threads};
}

// Compiled -O3 for the CPU that runs it (the widest of AVX-512, AVX2+FMA,
// the baseline that it has), as -O3 -march=native would: the bench itself
// is built for any x86-64 and runs on another machine than the one that built it.
#define BENCH_REFERENCE_VARIANTS(name, params, args)                                     \
  [[gnu::target("avx512f,avx512vl,avx2,fma"), gnu::optimize("O3"), gnu::noinline]] void \
      name##_avx512 params { name args; }                                                \
  [[gnu::target("avx2,fma"), gnu::optimize("O3"), gnu::noinline]] void name##_avx2 params { \
    name args;                                                                           \
  }                                                                                      \
  [[gnu::optimize("O3"), gnu::noinline]] void name##_base params { name args; }          \
  void name##_native params {                                                            \
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"))         \
      name##_avx512 args;                                                                \
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))            \
      name##_avx2 args;                                                                  \
    else                                                                                 \
      name##_base args;                                                                  \
  }

[[gnu::always_inline]] inline void triad_loop(float* __restrict a, const float* __restrict b,
                                             const float* __restrict c, size_t n, float s) {
  for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}
BENCH_REFERENCE_VARIANTS(triad_loop, (float* a, const float* b, const float* c, size_t n, float s),
                         (a, b, c, n, s))

// C rows [r0, r1) = A.B, n x n, row major; i-k-j, so the inner loop is unit stride.
[[gnu::always_inline]] inline void sgemm_rows(const float* __restrict a, const float* __restrict b,
                                             float* __restrict c, size_t n, size_t r0, size_t r1) {
  for (size_t i = r0; i < r1; ++i) {
    float* __restrict ci = c + i * n;
    for (size_t j = 0; j < n; ++j) ci[j] = 0.0f;
    for (size_t k = 0; k < n; ++k) {
      const float aik = a[i * n + k];
      const float* __restrict bk = b + k * n;
      for (size_t j = 0; j < n; ++j) ci[j] += aik * bk[j];
    }
  }
}
BENCH_REFERENCE_VARIANTS(sgemm_rows,
                         (const float* a, const float* b, float* c, size_t n, size_t r0, size_t r1),
                         (a, b, c, n, r0, r1))

struct Reference {
  double rate = 0;  // GB/s (triad), GFLOP/s (SGEMM)
  bool ok = false;
};

// A STREAM triad over n floats per array, the pages first touched by the
// thread that streams them; bytes counted as STREAM does (3 arrays a pass).
Reference triad_reference(size_t n, unsigned threads, int iters, int rounds) {
  std::unique_ptr<float[]> a(new float[n]), b(new float[n]), c(new float[n]);
  on_threads(threads, [&](unsigned t) {
    auto [lo, hi] = share(n, t, threads);
    for (size_t i = lo; i < hi; ++i) a[i] = 0.0f, b[i] = float(i % 7), c[i] = float(i % 5);
  });
  double best = 1e30;
  for (int r = 0; r <= rounds; ++r) {  // the first round warms up
    const double s = on_threads(threads, [&](unsigned t) {
      auto [lo, hi] = share(n, t, threads);
      for (int it = 0; it < iters; ++it) triad_loop_native(&a[lo], &b[lo], &c[lo], hi - lo, kScalar);
    });
    if (r > 0) best = std::min(best, s);
  }
  Reference ref;
  ref.rate = 3.0 * sizeof(float) * double(n) * iters / best * 1e-9;
  ref.ok = true;
  for (size_t i = 0; i < n; i += 4099) ref.ok &= a[i] == float(i % 7) + kScalar * float(i % 5);
  return ref;
}

// The plain loop-nest SGEMM over the same matrices as the SGEMM workload, rows split over the threads.
Reference sgemm_reference(size_t n, unsigned threads, int rounds) {
  std::vector<float> a(n * n), b(n * n), c(n * n);
  for (size_t r = 0; r < n; ++r)
    for (size_t col = 0; col < n; ++col) a[r * n + col] = matmul_a(r, col), b[r * n + col] = matmul_b(r, col);
  double best = 1e30;
  for (int r = 0; r <= rounds; ++r) {
    const double s = on_threads(threads, [&](unsigned t) {
      auto [lo, hi] = share(n, t, threads);
      sgemm_rows_native(a.data(), b.data(), c.data(), n, lo, hi);
    });
    if (r > 0) best = std::min(best, s);
  }
  Reference ref;
  ref.rate = 2.0 * double(n) * n * n / best * 1e-9;
  ref.ok = true;
  std::vector<double> row(n);
  for (size_t r = 0; r < n; r += 37) {
    matmul_reference_row(a.data(), b.data(), r, n, n, row.data());
    for (size_t col = 0; col < n; ++col) ref.ok &= matmul_close(c[r * n + col], row[col], n) != 0;
  }
  return ref;
}

// Milliseconds of clCreateProgramWithSource + clBuildProgram of source.
double build_ms(cl_context ctx, const std::string& source) {
  auto t0 = std::chrono::steady_clock::now();
  cl_program p = build(ctx, source.c_str());
  double ms = seconds_since(t0) * 1e3;
  clReleaseProgram(p);
  return ms;
}

std::string temp_dir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "parasol-bench-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) std::exit(1);
  return tmpl;
}

}  // namespace

// The fresh caches, removed at exit after Parasol and StarPU have shut down
// (StarPU saves its performance models under XDG_CACHE_HOME then): this
// handler is registered before the first OpenCL call loads Parasol, so it
// runs after Parasol's own.
namespace {
std::string g_pocl_cache, g_parasol_cache;
void remove_caches() {
  std::error_code ec;
  std::filesystem::remove_all(g_pocl_cache, ec);
  std::filesystem::remove_all(g_parasol_cache, ec);
}
}  // namespace

int main(int argc, char** argv) {
  // Fresh caches for both compilers, before PoCL reads its environment.
  const std::string pocl_cache = g_pocl_cache = temp_dir(),
                    parasol_cache = g_parasol_cache = temp_dir();
  std::atexit(remove_caches);
  setenv("XDG_CACHE_HOME", pocl_cache.c_str(), 1);
  setenv("PARASOL_CACHE_DIR", parasol_cache.c_str(), 1);
  unsetenv("PARASOL_NO_KERNEL_CACHE");
  unsetenv("POCL_KERNEL_CACHE");

  cl_platform_id parasol = find_platform("Parasol");
  Device devs[2] = {{"Parasol native"}, {"PoCL"}};
  for (cl_device_id d : devices(parasol)) {
    std::string v = vendor_of(d);
    if (v == "Parasol" && !devs[0].id) devs[0].id = d;
    if (v.rfind("Portable Computing Language", 0) == 0 && !devs[1].id) devs[1].id = d;
  }
  if (!devs[0].id || !devs[1].id) {
    std::fprintf(stderr, "needs Parasol's native device and a PoCL device through Parasol\n");
    return 1;
  }
  for (auto& d : devs) {
    cl_int err = CL_SUCCESS;
    d.ctx = clCreateContext(nullptr, 1, &d.id, nullptr, nullptr, &err);
    BENCH_CHECK(err);
    d.q = clCreateCommandQueue(d.ctx, d.id, 0, &err);
    BENCH_CHECK(err);
  }
  const int rounds = env_int("BENCH_ROUNDS", 5), warmup = env_int("BENCH_WARMUP", 2);

  // Build latency of a small program (saxpy): cold = a program no cache has
  // seen, cached = the same program built again.
  double cold[2] = {1e30, 1e30}, cached[2] = {1e30, 1e30};
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < 2; ++i) {
      // A kernel of its own per round and process: a comment would not do,
      // Parasol's cache is keyed on the preprocessed source.
      std::string src = std::string(kSaxpySource) + "__kernel void round_" + std::to_string(r) +
                        "_" + std::to_string(getpid()) + "(void) {}\n";
      cold[i] = std::min(cold[i], build_ms(devs[i].ctx, src));
      cached[i] = std::min(cached[i], build_ms(devs[i].ctx, src));
    }

  auto files_in = [](const std::string& dir) {
    size_t n = 0;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
      n += it->is_regular_file();
    return n;
  };
  const size_t cache_files[2] = {files_in(parasol_cache), files_in(pocl_cache)};

  struct Named {
    const char* name;
    const char* unit;
    double work;   // units per timed run
    double bytes;  // bytes a timed run must move at least (0: not a bandwidth figure)
    Ref reference;
    Workload fn;
    bool launch = false;
  };
  const int iters = iterations(), half = std::max(1, iters / 2);
  const double sn = double(stream_n()), mega = 1e-6 * iters;
  const double reduce_n = env_int("BENCH_REDUCE_N", 1 << 24), stencil_n = env_int("BENCH_STENCIL_N", 4096);
  const double sgemm_n = env_int("BENCH_SGEMM_N", 512), nbody_n = env_int("BENCH_NBODY_N", 4096);
  const Named workloads[] = {
      {"copy", "M elements/s", mega * sn, 8.0 * sn * iters, Ref::Triad, copy},
      {"scale", "M elements/s", mega * sn, 8.0 * sn * iters, Ref::Triad, scale},
      {"saxpy", "M elements/s", mega * sn, 12.0 * sn * iters, Ref::Triad, saxpy},
      {"triad", "M elements/s", mega * sn, 12.0 * sn * iters, Ref::Triad, triad},
      {"reduction, local memory + barriers", "M elements/s", mega * reduce_n, 4.0 * reduce_n * iters,
       Ref::Triad, reduce},
      {"stencil, 5 points, 2D", "M points/s", mega * stencil_n * stencil_n,
       8.0 * stencil_n * stencil_n * iters, Ref::Triad, stencil},
      {"Black-Scholes", "M options/s", mega * env_int("BENCH_BS_N", 1 << 20), 0, Ref::None, blackscholes},
      {"SGEMM, 16x16 local tiles + barriers", "GFLOP/s", 2e-9 * sgemm_n * sgemm_n * sgemm_n * half, 0,
       Ref::Sgemm, sgemm},
      {"nbody (forces)", "G interactions/s", 1e-9 * nbody_n * nbody_n * half, 0, Ref::None, nbody},
      {"divergent loops (Collatz)", "M items/s", mega * env_int("BENCH_COLLATZ_N", 1 << 22), 0,
       Ref::None, collatz},
      {"launch: empty kernel, 1 work-item", "", double(launches()), 0, Ref::None,
       empty_launches(1, 1, false), true},
      {"launch: empty kernel, 1024 work-items in groups of 64", "", double(launches()), 0,
       Ref::None, empty_launches(1024, 64, false), true},
      {"launch: empty kernel, 1 work-item, clFinish after each", "", double(launches()), 0,
       Ref::None, empty_launches(1, 1, true), true},
  };
  std::vector<Result> results;
  for (const auto& w : workloads) {
    bool wanted = argc < 2;
    for (int a = 1; a < argc; ++a) wanted |= std::strstr(w.name, argv[a]) != nullptr;
    if (!wanted) continue;
    Result res;
    res.name = w.name, res.unit = w.unit, res.work = w.work, res.bytes = w.bytes;
    res.reference = w.reference, res.launch = w.launch;
    Instance in[2] = {w.fn(devs[0]), w.fn(devs[1])};
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < warmup; ++k) in[i].run();
    for (int r = 0; r < rounds; ++r)
      for (int i = 0; i < 2; ++i) res.seconds[i] = std::min(res.seconds[i], best_of(1, in[i].run));
    for (int i = 0; i < 2; ++i) res.ok[i] = in[i].check(), in[i].release();
    std::fprintf(stderr, "%s done\n", w.name);
    results.push_back(res);
  }

  // The machine's own limits, over as many threads as the native device has.
  const unsigned threads = reference_threads();
  const Reference triad_ref = triad_reference(stream_n(), threads, iters, rounds);
  const Reference sgemm_ref = sgemm_reference(size_t(sgemm_n), threads, rounds);

  cl_uint units[2] = {};
  for (int i = 0; i < 2; ++i)
    clGetDeviceInfo(devs[i].id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units[i], &units[i], nullptr);
  size_t numa_nodes = 0;
  for (std::error_code ec; numa_nodes < 1024 &&
                           std::filesystem::exists("/sys/devices/system/node/node" + std::to_string(numa_nodes), ec);)
    ++numa_nodes;
  std::printf("native device: %u compute units; PoCL device %s: %u compute units; best of %d rounds;"
              " %zu NUMA node(s)\n",
              units[0], device_name(devs[1].id).c_str(), units[1], rounds, numa_nodes);
  std::printf("C++ references on %u threads: triad %.1f GB/s (%zu floats per array), %s;"
              " loop-nest SGEMM -O3 %.1f GFLOP/s (n = %d), %s\n\n",
              threads, triad_ref.rate, stream_n(), triad_ref.ok ? "ok" : "WRONG", sgemm_ref.rate,
              int(sgemm_n), sgemm_ref.ok ? "ok" : "WRONG");
  std::printf("| workload | native | PoCL | native / PoCL | GB/s native, PoCL | native / C++ reference |"
              " results (native, PoCL) |\n|---|---|---|---|---|---|---|\n");
  double log_sum = 0;
  size_t kernels = 0;
  for (const auto& r : results) {
    if (r.launch) continue;
    ++kernels;
    double tn = r.work / r.seconds[0], tp = r.work / r.seconds[1];
    log_sum += std::log(tn / tp);
    char bandwidth[64] = "", versus[64] = "";
    if (r.bytes > 0)
      std::snprintf(bandwidth, sizeof bandwidth, "%.1f, %.1f", r.bytes / r.seconds[0] * 1e-9,
                    r.bytes / r.seconds[1] * 1e-9);
    if (r.reference == Ref::Triad && r.bytes > 0)
      std::snprintf(versus, sizeof versus, "%.2fx of triad", r.bytes / r.seconds[0] * 1e-9 / triad_ref.rate);
    if (r.reference == Ref::Sgemm)
      std::snprintf(versus, sizeof versus, "%.2fx of loop nest", tn / sgemm_ref.rate);
    std::printf("| %s | %.2f %s | %.2f %s | %.2fx | %s | %s | %s, %s |\n", r.name.c_str(), tn,
                r.unit.c_str(), tp, r.unit.c_str(), tn / tp, bandwidth, versus,
                r.ok[0] ? "ok" : "WRONG", r.ok[1] ? "ok" : "WRONG");
  }
  if (kernels)
    std::printf("| **geomean** | | | **%.2fx** | | | |\n", std::exp(log_sum / kernels));
  std::printf("\n");
  if (kernels < results.size()) {
    std::printf("| launch overhead (%d launches) | native | PoCL | native / PoCL (time) | results |\n"
                "|---|---|---|---|---|\n", launches());
    for (const auto& r : results)
      if (r.launch)
        std::printf("| %s | %.2f µs | %.2f µs | %.2fx | %s, %s |\n", r.name.c_str(),
                    r.seconds[0] / r.work * 1e6, r.seconds[1] / r.work * 1e6, r.seconds[0] / r.seconds[1],
                    r.ok[0] ? "ok" : "WRONG", r.ok[1] ? "ok" : "WRONG");
    std::printf("\n");
  }
  std::printf("| build of a small program (saxpy) | native | PoCL | PoCL / native |\n|---|---|---|---|\n");
  std::printf("| cold (empty cache) | %.1f ms | %.1f ms | %.2fx |\n", cold[0], cold[1], cold[1] / cold[0]);
  std::printf("| cached | %.3f ms | %.3f ms | %.2fx |\n", cached[0], cached[1], cached[1] / cached[0]);
  std::printf("\nfiles in the caches after the builds: Parasol %zu, PoCL %zu\n", cache_files[0],
              cache_files[1]);

  if (env_int("BENCH_THREAD_STATS", 0)) {
    std::printf("\n");
    print_thread_stats(stdout);
  }
  for (auto& d : devs) clReleaseCommandQueue(d.q), clReleaseContext(d.ctx);
  return 0;
}
