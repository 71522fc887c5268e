// One unchanged program, one clEnqueueNDRangeKernel per step, on a context
// queue whose context holds every CPU device (PoCL's and Parasol's native
// one) so that Parasol splits each launch across them, against the same
// program on each device alone (a one-device context and its device queue),
// in the same process. A compute-bound kernel (a long loop of arithmetic per
// work-item, one float read and one written) and a streaming one (saxpy).
// Figures, never asserts: a wrong result is reported in the table.
//
// Environment (defaults in brackets):
//   BENCH_N [1048576] work-items (Parasol splits from 2^20 on)   BENCH_ITERS [400] the compute kernel's loop
//   BENCH_STEPS [6] launches per timed run   BENCH_ROUNDS [3]   BENCH_WARMUP [25] (calibration: 3 launches per device through StarPU)
//   BENCH_DEVICES ["Portable Computing Language,Parasol"] the vendor platforms
//     whose devices take part (every device of each; Parasol: the native one)
//   BENCH_ALWAYS [0] 1: the split context splits every launch, never runs one whole
//   bench_split_launch [burn|saxpy]: one workload only (default: both)
#include <CL/cl_parasol.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"

using namespace bench;

namespace {

const char* kSource =
    "__kernel void burn(__global const float* in, __global float* out, int iters) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float x = in[i], y = 0.0f;\n"
    "  for (int k = 0; k < iters; ++k) {\n"
    "    x = x * 0.9999f + 0.0001f;\n"
    "    y = y * 0.5f + x;\n"
    "  }\n"
    "  out[i] = y;\n"
    "}\n"
    "__kernel void saxpy(__global const float* x, __global float* y, float a) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + y[i];\n"
    "}\n";

struct Workload {
  const char* kernel;
  bool compute;
};

struct Setup {
  std::string name;
  std::vector<cl_device_id> devices;
  bool split;  // a context queue over every device; else a device queue on the one
};

struct Result {
  double seconds = 0;  // per step, best round
  bool right = true;
  std::string shares;  // the split's groups per device, last step
};

Result run(const Setup& s, const Workload& w, size_t n, int iters, int steps, int rounds,
           int warmup) {
  cl_int err = CL_SUCCESS;
  // The split context as an application makes it: Parasol splits launches
  // of 2^20 work-items or more, or runs them whole where that is faster;
  // BENCH_ALWAYS=1 asks it to split every launch (CL_CONTEXT_SPLIT_PARASOL).
  const cl_context_properties always[] = {CL_CONTEXT_SPLIT_PARASOL, CL_TRUE, 0};
  cl_context ctx = clCreateContext(s.split && env_int("BENCH_ALWAYS", 0) ? always : nullptr,
                                   static_cast<cl_uint>(s.devices.size()), s.devices.data(),
                                   nullptr, nullptr, &err);
  BENCH_CHECK(err);
  cl_command_queue q =
      clCreateCommandQueue(ctx, s.split ? nullptr : s.devices[0], 0, &err);
  BENCH_CHECK(err);
  cl_program p = build(ctx, kSource);
  cl_kernel k = clCreateKernel(p, w.kernel, &err);
  BENCH_CHECK(err);
  std::vector<float> in(n), out(n, 1.0f);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 1000) * 0.001f;
  cl_mem a = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), in.data(), &err);
  BENCH_CHECK(err);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), out.data(), &err);
  BENCH_CHECK(err);
  clSetKernelArg(k, 0, sizeof a, &a);
  clSetKernelArg(k, 1, sizeof b, &b);
  const float alpha = 0.5f;
  if (w.compute)
    clSetKernelArg(k, 2, sizeof iters, &iters);
  else
    clSetKernelArg(k, 2, sizeof alpha, &alpha);
  const size_t local = 64;
  cl_event last = nullptr;
  auto step = [&] {
    if (last) clReleaseEvent(last);
    BENCH_CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &local, 0, nullptr, &last));
    BENCH_CHECK(clFinish(q));
  };
  for (int i = 0; i < warmup; ++i) step();
  Result r;
  r.seconds = best_of(rounds, [&] {
                for (int i = 0; i < steps; ++i) step();
              }) /
              steps;
  if (s.split) {
    size_t bytes = 0;
    clGetEventInfo(last, CL_EVENT_SPLIT_GROUPS_PARASOL, 0, nullptr, &bytes);
    std::vector<size_t> groups(bytes / sizeof(size_t));
    if (bytes) clGetEventInfo(last, CL_EVENT_SPLIT_GROUPS_PARASOL, bytes, groups.data(), nullptr);
    std::ostringstream o;
    for (size_t i = 0; i < groups.size(); ++i) o << (i ? "/" : "") << groups[i];
    r.shares = groups.empty() ? "not split" : o.str();
  }
  clReleaseEvent(last);
  // Right: the compute kernel's result depends on the input only; saxpy's
  // on how many steps ran (every configuration runs as many).
  BENCH_CHECK(clEnqueueReadBuffer(q, b, CL_TRUE, 0, n * sizeof(float), out.data(), 0, nullptr, nullptr));
  const int launches = warmup + rounds * steps;
  for (size_t i = 0; i < n && r.right; i += 97) {
    float want;
    if (w.compute) {
      float x = in[i], y = 0.0f;
      for (int it = 0; it < iters; ++it) {
        x = x * 0.9999f + 0.0001f;
        y = y * 0.5f + x;
      }
      want = y;
    } else {
      want = 1.0f;
      for (int l = 0; l < launches; ++l) want = alpha * in[i] + want;
    }
    if (std::fabs(out[i] - want) > 1e-3f * std::max(1.0f, std::fabs(want))) {
      std::fprintf(stderr, "%s on %s: element %zu is %g, want %g\n", w.kernel, s.name.c_str(), i,
                   out[i], want);
      r.right = false;
    }
  }
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseKernel(k);
  clReleaseProgram(p);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t n = static_cast<size_t>(env_int("BENCH_N", 1 << 20));
  const int iters = env_int("BENCH_ITERS", 400), steps = env_int("BENCH_STEPS", 6);
  const int rounds = env_int("BENCH_ROUNDS", 3), warmup = env_int("BENCH_WARMUP", 25);
  const std::string wanted = env_string("BENCH_DEVICES", "Portable Computing Language,Parasol");

  std::vector<cl_device_id> all;
  for (cl_device_id d : devices(find_platform("Parasol"))) {
    std::stringstream list(wanted);
    std::string prefix;  // a vendor platform's name
    while (std::getline(list, prefix, ','))
      if (vendor_of(d) == prefix) {
        all.push_back(d);
        break;
      }
  }
  if (all.size() < 2) {
    std::fprintf(stderr, "fewer than two devices among \"%s\"\n", wanted.c_str());
    return 1;
  }
  std::vector<Setup> setups;
  for (size_t i = 0; i < all.size(); ++i)
    setups.push_back({device_name(all[i]) + " #" + std::to_string(i) + " [" + vendor_of(all[i]) + "]",
                      {all[i]}, false});
  setups.push_back({"split over all " + std::to_string(all.size()), all, true});

  std::printf("%zu work-items, %d iterations per item (burn), %d steps per run, best of %d\n\n", n,
              iters, steps, rounds);
  for (const Workload& w : {Workload{"burn", true}, Workload{"saxpy", false}}) {
    if (argc > 1 && std::string(argv[1]) != w.kernel) continue;
    std::printf("### %s\n\n| configuration | ms per step | vs best single | right | split shares (groups) |\n"
                "|---|---|---|---|---|\n",
                w.kernel);
    std::vector<Result> results;
    for (const Setup& s : setups) results.push_back(run(s, w, n, iters, steps, rounds, warmup));
    double best_single = 1e30;
    for (size_t i = 0; i + 1 < setups.size(); ++i)
      best_single = std::min(best_single, results[i].seconds);
    for (size_t i = 0; i < setups.size(); ++i)
      std::printf("| %s | %.2f | %.2fx | %s | %s |\n", setups[i].name.c_str(),
                  results[i].seconds * 1e3, best_single / results[i].seconds,
                  results[i].right ? "yes" : "NO", results[i].shares.c_str());
    std::printf("\n");
  }
  return 0;
}
