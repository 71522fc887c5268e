// What a vendor kernel's arguments hold now, so that a launch calls
// clSetKernelArg only for those that change. A vendor kernel keeps its
// arguments between launches, and Parasol's launches are its only user
// (under Kernel::launch_mutex()). On NVIDIA a launch of a three-argument
// kernel whose arguments never change was 1.5x the vendor's own enqueue,
// the vendor's loop setting them once.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <vector>

#include "runtime/vendor_handle.h"

namespace parasol::runtime {

class VendorArgs {
 public:
  // Each sets argument `index` of `kernel` unless it already holds that
  // value, and returns the vendor's answer (CL_SUCCESS when not asked).
  cl_int set_value(cl_kernel kernel, cl_uint index, const void* bytes, std::size_t size);
  cl_int set_local(cl_kernel kernel, cl_uint index, std::size_t size);
  // Holds a reference to mem while the argument holds it: a vendor may
  // recycle a released cl_mem's handle for a new buffer, which would
  // otherwise look unchanged (Oclgrind reads a buffer's address when the
  // argument is set, not at the launch).
  cl_int set_mem(cl_kernel kernel, cl_uint index, cl_mem mem, cl_platform_id platform);
  // A buffer made for this launch alone (a sub-buffer window): set, never kept.
  cl_int set_transient_mem(cl_kernel kernel, cl_uint index, cl_mem mem);

 private:
  struct Held {
    enum class Kind { Unknown, Value, Local, Mem } kind = Kind::Unknown;
    std::vector<std::byte> value;  // Value
    std::size_t local = 0;         // Local
    VendorMem mem;                 // Mem (retained; null for a null cl_mem)
  };
  Held& held(cl_uint index);

  std::vector<Held> held_;
};

}  // namespace parasol::runtime
