// What the tests of vendor failures through Parasol share: the Fault Device
// as a Parasol device, and the kernel they run on it.
#pragma once

#include <cstddef>
#include <vector>

#include "support/parasol_test.h"

namespace fault_test {

inline const char* kScaleShift =
    "__kernel void scale_shift(__global float* x, float a, float b) {\n"
    "  size_t i = get_global_id(0);\n"
    "  x[i] = a * x[i] + b;\n"
    "}\n";

inline constexpr std::size_t kN = 1024;

// Found by its device name: its platform's may be another vendor's
// (PARASOL_FAULT_PLATFORM_NAME, README.md).
inline cl_device_id fault_device() {
  std::vector<cl_device_id> found;
  for (cl_device_id d : parasol_test::devices())
    if (parasol_test::device_name(d) == "Fault Device") found.push_back(d);
  REQUIRE(found.size() == 1);
  return found[0];
}

}  // namespace fault_test
