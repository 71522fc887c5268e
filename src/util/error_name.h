// The spec's name of an OpenCL error code ("CL_INVALID_VALUE"), for logs,
// refusals and traces.
#pragma once

#include <CL/cl.h>

namespace parasol {

// "CL_ERROR" for a code the spec does not name (a vendor's own).
const char* error_name(cl_int code);

}  // namespace parasol
