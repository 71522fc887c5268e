// What clGetKernelArgInfo answers of a kernel's arguments, and how Parasol
// tells a buffer argument from a value or a __local one. Parasol reads it
// with its own front end (runtime/native/native_compiler.h: describe()), so
// vendors compile exactly the options the application gave.
#pragma once

#include <CL/cl.h>

#include <string>
#include <vector>

namespace parasol::core {

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

struct KernelSignature {
  std::string name;
  std::vector<KernelArgInfo> args;
};

}  // namespace parasol::core
