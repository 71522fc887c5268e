// What the tests of vendor failures through Parasol share: the Fault Device
// as a Parasol device, and the kernel they run on it.
#pragma once

#include <cstddef>

#include "support/parasol_test.h"

namespace fault_test {

inline const char* kScaleShift =
    "__kernel void scale_shift(__global float* x, float a, float b) {\n"
    "  size_t i = get_global_id(0);\n"
    "  x[i] = a * x[i] + b;\n"
    "}\n";

inline constexpr std::size_t kN = 1024;

inline cl_device_id fault_device() {
  auto devs = parasol_test::devices_of("Parasol Fault Vendor");
  REQUIRE(devs.size() == 1);
  CHECK(parasol_test::device_name(devs[0]) == "Fault Device");
  return devs[0];
}

}  // namespace fault_test
