// Shared helpers of the benchmarks: finding platforms and devices, building
// programs, timing. Benchmarks print markdown tables: figures, never asserts.
#pragma once

#include <CL/cl.h>
#include <CL/cl_parasol.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace bench {

#define BENCH_CHECK(call)                                                           \
  do {                                                                              \
    cl_int e_ = (call);                                                             \
    if (e_ != CL_SUCCESS) {                                                         \
      std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, e_); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

inline std::string platform_name(cl_platform_id p) {
  char name[256] = "";
  clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
  return name;
}

inline cl_platform_id find_platform(const std::string& prefix) {
  cl_uint n = 0;
  clGetPlatformIDs(0, nullptr, &n);
  std::vector<cl_platform_id> ids(n);
  clGetPlatformIDs(n, ids.data(), nullptr);
  for (auto p : ids)
    if (platform_name(p).rfind(prefix, 0) == 0) return p;
  return nullptr;
}

inline std::vector<cl_device_id> devices(cl_platform_id p, cl_device_type t = CL_DEVICE_TYPE_ALL) {
  cl_uint n = 0;
  if (!p || clGetDeviceIDs(p, t, 0, nullptr, &n) != CL_SUCCESS) return {};
  std::vector<cl_device_id> ids(n);
  clGetDeviceIDs(p, t, n, ids.data(), nullptr);
  return ids;
}

inline std::string device_name(cl_device_id d) {
  char name[256] = "";
  clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name, nullptr);
  return name;
}

inline std::string vendor_of(cl_device_id parasol_device) {
  char name[256] = "";
  clGetDeviceInfo(parasol_device, CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL, sizeof name, name, nullptr);
  return name;
}

inline cl_device_id vendor_device_of(cl_device_id parasol_device) {
  cl_device_id v = nullptr;
  clGetDeviceInfo(parasol_device, CL_DEVICE_VENDOR_DEVICE_PARASOL, sizeof v, &v, nullptr);
  return v;
}

// The benchmarks' device: Parasol's first whose vendor platform's name
// starts with vendor_prefix (null: Parasol's first of all, also when none
// matches); null, said on stderr, when Parasol has no device.
inline cl_device_id parasol_device_of(const char* vendor_prefix) {
  auto pdevs = devices(find_platform("Parasol"));
  if (pdevs.empty()) {
    std::fprintf(stderr, "no Parasol device\n");
    return nullptr;
  }
  if (vendor_prefix)
    for (auto d : pdevs)
      if (vendor_of(d).rfind(vendor_prefix, 0) == 0) return d;
  return pdevs[0];
}

inline cl_program build(cl_context ctx, const char* source, const char* options = "") {
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(ctx, 1, &source, nullptr, &err);
  BENCH_CHECK(err);
  err = clBuildProgram(p, 0, nullptr, options, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    cl_uint n = 0;
    clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, sizeof n, &n, nullptr);
    std::vector<cl_device_id> devs(n);
    clGetProgramInfo(p, CL_PROGRAM_DEVICES, n * sizeof(cl_device_id), devs.data(), nullptr);
    for (auto d : devs) {
      size_t size = 0;
      clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      std::fprintf(stderr, "build log on %s:\n%s\n", device_name(d).c_str(), log.c_str());
    }
    BENCH_CHECK(err);
  }
  return p;
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Best of `rounds` timings of fn(), in seconds: the least disturbed run on a
// shared, noisy machine.
template <typename Fn>
double best_of(int rounds, Fn&& fn) {
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

inline int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

inline std::string env_string(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

}  // namespace bench
