// Shared by the native-device tests: one context holding Parasol's native
// CPU device and a PoCL device, a device queue on each, and helpers that run
// the same kernel on both so every result is checked against a CPU
// reference and against the other device.
#pragma once

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "support/parasol_test.h"

namespace parasol_test {

struct NativeAndPocl {
  cl_device_id native = require_native();
  cl_device_id pocl = pocl_devices().at(0);
  Context ctx{std::vector<cl_device_id>{native, pocl}};
  Queue qn{ctx, native, CL_QUEUE_PROFILING_ENABLE};
  Queue qp{ctx, pocl, CL_QUEUE_PROFILING_ENABLE};

  static cl_device_id require_native() {
    auto n = native_devices();
    REQUIRE(n.size() == 1);  // built with the compiler: the native device exists
    return n[0];
  }
  // Both device queues, named for messages.
  std::vector<std::pair<const char*, cl_command_queue>> queues() const {
    return {{"native", qn.q}, {"PoCL", qp.q}};
  }
};

template <typename T>
cl_mem make_buffer(cl_context ctx, const std::vector<T>& init) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.size() * sizeof(T),
                            const_cast<T*>(init.data()), &err);
  CL_REQUIRE(err);
  return m;
}

template <typename T>
std::vector<T> read_back(cl_command_queue q, cl_mem m, size_t n) {
  std::vector<T> out(n);
  CL_REQUIRE(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof(T), out.data(), 0, nullptr, nullptr));
  return out;
}

inline void launch(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t* global,
                   const size_t* local) {
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, dim, nullptr, global, local, 0, nullptr, nullptr));
  CL_REQUIRE(clFinish(q));
}

inline cl_ulong device_ulong(cl_device_id d, cl_device_info what) {
  cl_ulong v = 0;
  CL_REQUIRE(clGetDeviceInfo(d, what, sizeof v, &v, nullptr));
  return v;
}

}  // namespace parasol_test
