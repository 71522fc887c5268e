// The optional features of OpenCL 2.x and 3.0 that Parasol does not carry on
// any device, whatever its vendor offers: shared virtual memory, pipes,
// device-side enqueue, sub-groups, intermediate languages, non-uniform
// work-groups, images made from buffers. Every backend answers their
// queries the same way: none.
#pragma once

#include <CL/cl.h>

#include "util/info_out.h"

namespace parasol::backend {

// The answer to param, into out (result: its code), if param asks about
// one of those features; false for any other query.
bool answer_uncarried(cl_device_info param, InfoOut& out, cl_int& result);

}  // namespace parasol::backend
