// Owning wrappers for vendor OpenCL handles: released exactly once, under
// the vendor's lock when it needs one (backend/vendor_lock.h).
#pragma once

#include <CL/cl.h>

#include <utility>

#include "backend/vendor_lock.h"

namespace parasol::backend {

// A vendor event's CL_EVENT_COMMAND_EXECUTION_STATUS, or if_unknown when
// the vendor does not answer.
inline cl_int vendor_event_status(cl_event e, cl_int if_unknown) {
  cl_int s = if_unknown;
  if (clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr) != CL_SUCCESS)
    return if_unknown;
  return s;
}

template <typename T, cl_int (*Release)(T)>
class VendorHandle {
 public:
  VendorHandle() = default;
  explicit VendorHandle(T h, cl_platform_id platform = nullptr) : h_(h), platform_(platform) {}
  VendorHandle(const VendorHandle&) = delete;
  VendorHandle& operator=(const VendorHandle&) = delete;
  VendorHandle(VendorHandle&& o) noexcept
      : h_(std::exchange(o.h_, nullptr)), platform_(o.platform_) {}
  VendorHandle& operator=(VendorHandle&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
      platform_ = o.platform_;
    }
    return *this;
  }
  ~VendorHandle() { reset(); }

  void reset(T h = nullptr) {
    if (h_) {
      VendorLock lock = lock_vendor(platform_);
      Release(h_);
    }
    h_ = h;
  }
  void set_platform(cl_platform_id platform) { platform_ = platform; }
  T get() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }

 private:
  T h_ = nullptr;
  cl_platform_id platform_ = nullptr;
};

using VendorProgram = VendorHandle<cl_program, &clReleaseProgram>;
using VendorKernel = VendorHandle<cl_kernel, &clReleaseKernel>;
using VendorMem = VendorHandle<cl_mem, &clReleaseMemObject>;
using VendorEvent = VendorHandle<cl_event, &clReleaseEvent>;
using VendorSubDevice = VendorHandle<cl_device_id, &clReleaseDevice>;

}  // namespace parasol::backend
