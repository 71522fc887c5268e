// clGetDeviceInfo for Parasol's native CPU device, which has no vendor to
// ask: every OpenCL 1.2 query answered from what the device really offers.
#pragma once

#include <CL/cl.h>

#include "core/device.h"
#include "icd/info_out.h"

namespace parasol::icd {

// CL_INVALID_VALUE for a query that is not OpenCL 1.2 (or Parasol's).
cl_int native_device_info(const core::Device& device, cl_device_info param, InfoOut& out);

}  // namespace parasol::icd
