// Parasol's native CPU device against PoCL's CPU device, both through
// Parasol device queues (one-device contexts), on the same cores: the same
// kernels, the same sizes, interleaved rounds, best of the rounds. Also the
// build latency of a small program, cold (empty caches) and cached.
// Figures, never asserts: a wrong result is reported in the table.
//
//   bench_native_vs_pocl [substring...]   only the workloads whose names contain one (default: all)
// Environment (defaults in brackets):
//   BENCH_ROUNDS [5]  BENCH_WARMUP [2]
//   BENCH_SAXPY_N [4194304] BENCH_BS_N [1048576] BENCH_SGEMM_N [512] BENCH_NBODY_N [4096]
//   BENCH_REDUCE_N [16777216] BENCH_ITER [4] (launches per timed run)
// PoCL's kernel cache goes to a fresh XDG_CACHE_HOME and Parasol's to a
// fresh PARASOL_CACHE_DIR (both removed at the end), so "cold" is cold.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "bench_util.h"

extern "C" {
#include "blackscholes/blackscholes_kernels.h"
#include "matmul/matmul_kernels.h"
#include "nbody/nbody_kernels.h"
}

using namespace bench;

namespace {

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

// One workload on one device: setup() builds and fills, run() enqueues one
// timed iteration, check() reads back and compares with the reference.
struct Instance {
  std::function<void()> run;
  std::function<bool()> check;
  std::function<void()> release;
};
using Workload = std::function<Instance(Device&)>;

struct Result {
  std::string name, unit;
  double work = 0;                 // units of work per timed run
  double seconds[2] = {1e30, 1e30};  // native, PoCL
  bool ok[2] = {false, false};
};

Instance saxpy(Device& d) {
  const cl_uint n = static_cast<cl_uint>(env_int("BENCH_SAXPY_N", 1 << 22));
  const int iters = env_int("BENCH_ITER", 4);
  auto x = std::make_shared<std::vector<float>>(n), y = std::make_shared<std::vector<float>>(n);
  for (cl_uint i = 0; i < n; ++i) (*x)[i] = static_cast<float>(i % 1000) * 0.001f, (*y)[i] = 1.0f;
  cl_program p = build(d.ctx, kSaxpySource);
  cl_kernel k = kernel(p, "saxpy");
  cl_mem by = buffer(d.ctx, n * 4ul, y->data()), bx = buffer(d.ctx, n * 4ul, x->data());
  const float a = 0.5f;
  arg(k, 0, by), arg(k, 1, bx), arg(k, 2, a), arg(k, 3, n);
  auto launches = std::make_shared<long>(0);
  Instance in;
  in.run = [=, &d] {
    size_t g = n;
    for (int i = 0; i < iters; ++i) BENCH_CHECK(clEnqueueNDRangeKernel(d.q, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
    BENCH_CHECK(clFinish(d.q));
    *launches += iters;
  };
  in.check = [=, &d] {
    std::vector<float> got(n);
    BENCH_CHECK(clEnqueueReadBuffer(d.q, by, CL_TRUE, 0, n * 4ul, got.data(), 0, nullptr, nullptr));
    for (cl_uint i = 0; i < n; i += 4099) {
      double want = 1.0 + static_cast<double>(*launches) * a * (*x)[i];
      if (std::fabs(got[i] - want) > 1e-4 * want * *launches) return false;
    }
    return true;
  };
  in.release = [=] { clReleaseMemObject(by), clReleaseMemObject(bx), clReleaseKernel(k), clReleaseProgram(p); };
  return in;
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

  // Build latency of a small program (saxpy): cold = a source no cache has
  // seen, cached = the same source built again.
  double cold[2] = {1e30, 1e30}, cached[2] = {1e30, 1e30};
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < 2; ++i) {
      std::string src = std::string(kSaxpySource) + "// round " + std::to_string(r) + " " +
                        std::to_string(getpid()) + "\n";
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

  struct Named { const char* name; const char* unit; double work; Workload fn; };
  const double sgemm_n = env_int("BENCH_SGEMM_N", 512), nbody_n = env_int("BENCH_NBODY_N", 4096);
  const int iters = env_int("BENCH_ITER", 4), half = std::max(1, iters / 2);
  const Named workloads[] = {
      {"saxpy", "M elements/s", 1e-6 * env_int("BENCH_SAXPY_N", 1 << 22) * iters, saxpy},
      {"Black-Scholes", "M options/s", 1e-6 * env_int("BENCH_BS_N", 1 << 20) * iters, blackscholes},
      {"SGEMM, 16x16 local tiles + barriers", "GFLOP/s", 2e-9 * sgemm_n * sgemm_n * sgemm_n * half, sgemm},
      {"nbody (forces)", "G interactions/s", 1e-9 * nbody_n * nbody_n * half, nbody},
      {"reduction, local memory + barriers", "M elements/s", 1e-6 * env_int("BENCH_REDUCE_N", 1 << 24) * iters, reduce},
  };
  std::vector<Result> results;
  for (const auto& w : workloads) {
    bool wanted = argc < 2;
    for (int a = 1; a < argc; ++a) wanted |= std::strstr(w.name, argv[a]) != nullptr;
    if (!wanted) continue;
    Result res;
    res.name = w.name, res.unit = w.unit, res.work = w.work;
    Instance in[2] = {w.fn(devs[0]), w.fn(devs[1])};
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < warmup; ++k) in[i].run();
    for (int r = 0; r < rounds; ++r)
      for (int i = 0; i < 2; ++i) res.seconds[i] = std::min(res.seconds[i], best_of(1, in[i].run));
    for (int i = 0; i < 2; ++i) res.ok[i] = in[i].check(), in[i].release();
    std::fprintf(stderr, "%s done\n", w.name);
    results.push_back(res);
  }

  cl_uint units[2] = {};
  for (int i = 0; i < 2; ++i)
    clGetDeviceInfo(devs[i].id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units[i], &units[i], nullptr);
  std::printf("native device: %u compute units; PoCL device %s: %u compute units; best of %d rounds\n\n",
              units[0], device_name(devs[1].id).c_str(), units[1], rounds);
  std::printf("| workload | native | PoCL | native / PoCL | results (native, PoCL) |\n|---|---|---|---|---|\n");
  double log_sum = 0;
  for (const auto& r : results) {
    double tn = r.work / r.seconds[0], tp = r.work / r.seconds[1];
    log_sum += std::log(tn / tp);
    std::printf("| %s | %.2f %s | %.2f %s | %.2fx | %s, %s |\n", r.name.c_str(), tn, r.unit.c_str(), tp,
                r.unit.c_str(), tn / tp, r.ok[0] ? "ok" : "WRONG", r.ok[1] ? "ok" : "WRONG");
  }
  if (!results.empty())
    std::printf("| **geomean** | | | **%.2fx** | |\n\n", std::exp(log_sum / results.size()));
  std::printf("| build of a small program (saxpy) | native | PoCL | PoCL / native |\n|---|---|---|---|\n");
  std::printf("| cold (empty cache) | %.1f ms | %.1f ms | %.2fx |\n", cold[0], cold[1], cold[1] / cold[0]);
  std::printf("| cached | %.3f ms | %.3f ms | %.2fx |\n", cached[0], cached[1], cached[1] / cached[0]);
  std::printf("\nfiles in the caches after the builds: Parasol %zu, PoCL %zu\n", cache_files[0],
              cache_files[1]);

  for (auto& d : devs) clReleaseCommandQueue(d.q), clReleaseContext(d.ctx);
  return 0;
}
