// A context of one PoCL device and one Oclgrind device, a queue on each, and
// small integer kernels whose effect the tests recompute on the CPU.
#pragma once

#include <cstdint>
#include <numeric>
#include <vector>

#include "support/parasol_test.h"

namespace parasol_test {

// x[i] += c
// dst[i] = src[i]
// x[i] = base + i   (with the global offset: i is the global id)
inline const char* kIntKernels =
    "__kernel void add_const_int(__global int* x, int c) {\n"
    "  size_t i = get_global_id(0);\n"
    "  x[i] += c;\n"
    "}\n"
    "__kernel void copy_int(__global const int* src, __global int* dst) {\n"
    "  size_t i = get_global_id(0);\n"
    "  dst[i] = src[i];\n"
    "}\n"
    "__kernel void iota_from(__global int* x, int base) {\n"
    "  size_t i = get_global_id(0);\n"
    "  x[i] = base + (int)i;\n"
    "}\n";

struct MixedPair {
  cl_device_id pocl = pocl_devices().at(0);
  cl_device_id grind = oclgrind_devices().at(0);
  Context ctx{std::vector<cl_device_id>{pocl, grind}};
  Queue qp{ctx, pocl};
  Queue qg{ctx, grind};
};

inline std::vector<int> iota_vector(size_t n, int base = 0) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), base);
  return v;
}

inline std::vector<int> read_ints(cl_command_queue q, cl_mem m, size_t n, size_t offset = 0) {
  std::vector<int> out(n, -12345);
  CL_REQUIRE(clEnqueueReadBuffer(q, m, CL_TRUE, offset * sizeof(int), n * sizeof(int),
                                 out.data(), 0, nullptr, nullptr));
  return out;
}

}  // namespace parasol_test
