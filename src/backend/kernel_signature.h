// What clGetKernelArgInfo answers of a kernel's arguments, and how Parasol
// tells a buffer argument from a value or a __local one. Parasol reads it
// with its own front end (backend/native/native_compiler.h: describe()), so
// vendors compile exactly the options the application gave.
#pragma once

#include <CL/cl.h>

#include <string>
#include <vector>

namespace parasol::backend {

struct KernelArgInfo {
  // A vendor that was not asked for argument information at build time
  // may not know the address qualifier (core/kernel.cpp: vendor_arg_info).
  static constexpr cl_kernel_arg_address_qualifier kAddressUnknown = 0;
  cl_kernel_arg_address_qualifier address = CL_KERNEL_ARG_ADDRESS_PRIVATE;
  cl_kernel_arg_access_qualifier access = CL_KERNEL_ARG_ACCESS_NONE;
  cl_kernel_arg_type_qualifier type_qualifier = CL_KERNEL_ARG_TYPE_NONE;
  std::string type_name;
  std::string name;
};

// How clSetKernelArg reads an argument: by value, a buffer (global or
// constant pointer), a __local size, an image, a sampler; Unknown where the
// vendor did not know the address qualifier.
enum class ArgClass { Value, Buffer, Local, Image, Sampler, Unknown };
inline ArgClass arg_class(const KernelArgInfo& a) {
  if (a.type_name.rfind("image", 0) == 0) return ArgClass::Image;
  if (a.type_name == "sampler_t") return ArgClass::Sampler;
  switch (a.address) {
    case CL_KERNEL_ARG_ADDRESS_LOCAL: return ArgClass::Local;
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:
    case CL_KERNEL_ARG_ADDRESS_CONSTANT: return ArgClass::Buffer;
    case KernelArgInfo::kAddressUnknown: return ArgClass::Unknown;
    default: return ArgClass::Value;
  }
}

struct KernelSignature {
  std::string name;
  std::vector<KernelArgInfo> args;
};

}  // namespace parasol::backend
