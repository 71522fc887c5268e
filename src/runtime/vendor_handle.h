// Owning wrappers for vendor OpenCL handles: released exactly once.
#pragma once

#include <CL/cl.h>

#include <utility>

namespace parasol::runtime {

template <typename T, cl_int (*Release)(T)>
class VendorHandle {
 public:
  VendorHandle() = default;
  explicit VendorHandle(T h) : h_(h) {}
  VendorHandle(const VendorHandle&) = delete;
  VendorHandle& operator=(const VendorHandle&) = delete;
  VendorHandle(VendorHandle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  VendorHandle& operator=(VendorHandle&& o) noexcept {
    if (this != &o) { reset(); h_ = std::exchange(o.h_, nullptr); }
    return *this;
  }
  ~VendorHandle() { reset(); }

  void reset(T h = nullptr) {
    if (h_) Release(h_);
    h_ = h;
  }
  T get() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }

 private:
  T h_ = nullptr;
};

using VendorProgram = VendorHandle<cl_program, &clReleaseProgram>;
using VendorKernel = VendorHandle<cl_kernel, &clReleaseKernel>;
using VendorMem = VendorHandle<cl_mem, &clReleaseMemObject>;
using VendorEvent = VendorHandle<cl_event, &clReleaseEvent>;

}  // namespace parasol::runtime
