#include "backend/vendor_arg_values.h"

#include <cstring>

namespace parasol::backend {

cl_int VendorArgValues::set_now(cl_kernel kernel, cl_uint index, std::size_t size,
                                const void* value, std::uint64_t epoch) {
  if (index >= known_.size()) known_.resize(index + 1);
  Known& k = known_[index];
  const bool local = value == nullptr;
  k.valid = false;
  const cl_int err = clSetKernelArg(kernel, index, size, value);
  if (err != CL_SUCCESS || size > kLargest) return err;
  k.valid = true;
  k.local = local;
  k.size = size;
  k.epoch = epoch;
  if (!local) std::memcpy(k.bytes.data(), value, size);
  return err;
}

}  // namespace parasol::backend
