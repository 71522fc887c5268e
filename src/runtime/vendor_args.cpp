#include "runtime/vendor_args.h"

#include <cstring>

namespace parasol::runtime {

VendorArgs::Held& VendorArgs::held(cl_uint index) {
  if (index >= held_.size()) held_.resize(index + 1);
  return held_[index];
}

cl_int VendorArgs::set_value(cl_kernel kernel, cl_uint index, const void* bytes, std::size_t size) {
  Held& h = held(index);
  if (h.kind == Held::Kind::Value && h.value.size() == size &&
      std::memcmp(h.value.data(), bytes, size) == 0)
    return CL_SUCCESS;
  h.kind = Held::Kind::Unknown;
  cl_int err = clSetKernelArg(kernel, index, size, bytes);
  if (err != CL_SUCCESS) return err;
  const auto* b = static_cast<const std::byte*>(bytes);
  h.value.assign(b, b + size);
  h.kind = Held::Kind::Value;
  return CL_SUCCESS;
}

cl_int VendorArgs::set_local(cl_kernel kernel, cl_uint index, std::size_t size) {
  Held& h = held(index);
  if (h.kind == Held::Kind::Local && h.local == size) return CL_SUCCESS;
  h.kind = Held::Kind::Unknown;
  cl_int err = clSetKernelArg(kernel, index, size, nullptr);
  if (err != CL_SUCCESS) return err;
  h.local = size;
  h.kind = Held::Kind::Local;
  return CL_SUCCESS;
}

cl_int VendorArgs::set_mem(cl_kernel kernel, cl_uint index, cl_mem mem, cl_platform_id platform) {
  Held& h = held(index);
  if (h.kind == Held::Kind::Mem && h.mem.get() == mem) return CL_SUCCESS;
  h.kind = Held::Kind::Unknown;
  cl_int err = clSetKernelArg(kernel, index, sizeof mem, &mem);
  if (err != CL_SUCCESS) return err;
  if (mem) clRetainMemObject(mem);
  h.mem = VendorMem(mem, platform);  // releases the one held before
  h.kind = Held::Kind::Mem;
  return CL_SUCCESS;
}

cl_int VendorArgs::set_transient_mem(cl_kernel kernel, cl_uint index, cl_mem mem) {
  held(index).kind = Held::Kind::Unknown;
  return clSetKernelArg(kernel, index, sizeof mem, &mem);
}

}  // namespace parasol::runtime
