// Serialises Parasol's own calls into a vendor whose OpenCL runtime is not
// thread-safe.
//
// OpenCL requires every API call but clSetKernelArg on one kernel to be
// thread-safe; some vendors' runtimes are not (VendorTraits::thread_safe).
// Parasol calls a vendor from the application's threads (programs, kernels)
// and from StarPU's threads (launches, releases) at once, so it takes one
// lock per such vendor platform around those calls. Thread-safe vendors (PoCL, NVIDIA...) get no
// lock. StarPU's own calls into the vendor (allocations, transfers) run on
// that device's worker thread, which Parasol's launches share.
#pragma once

#include <CL/cl.h>

#include <mutex>

namespace parasol::backend {

using VendorLock = std::unique_lock<std::recursive_mutex>;

// Locked for a vendor that needs it, empty (owns nothing) otherwise.
VendorLock lock_vendor(cl_platform_id platform);
// The same for a StarPU worker's vendor, whose answer it keeps
// (VendorTraits::thread_safe): no lookup on the launch path.
struct VendorWorker;
VendorLock lock_vendor(const VendorWorker& worker);

}  // namespace parasol::backend
