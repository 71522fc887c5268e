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
  // may not know the address qualifier (read_arg_info below).
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

// A platform's answers to clGetKernelArgInfo for every argument of k (a
// vendor's kernel, or a node's kernel on its own Parasol platform). Without
// -cl-kernel-arg-info a vendor may not know an argument's address
// qualifier: kAddressUnknown, and clSetKernelArg takes a buffer or a value
// by what it is given (as SOCL does).
inline std::vector<KernelArgInfo> read_arg_info(cl_kernel k) {
  auto text = [k](cl_uint i, cl_kernel_arg_info param) {
    std::size_t size = 0;
    if (clGetKernelArgInfo(k, i, param, 0, nullptr, &size) != CL_SUCCESS || !size) return std::string();
    std::string s(size, '\0');
    clGetKernelArgInfo(k, i, param, size, s.data(), nullptr);
    s.resize(std::char_traits<char>::length(s.c_str()));
    return s;
  };
  cl_uint n = 0;
  clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof n, &n, nullptr);
  std::vector<KernelArgInfo> info(n);
  for (cl_uint i = 0; i < n; ++i) {
    KernelArgInfo& a = info[i];
    if (clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof a.address, &a.address,
                           nullptr) != CL_SUCCESS)
      a.address = KernelArgInfo::kAddressUnknown;
    clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof a.access, &a.access, nullptr);
    clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof a.type_qualifier,
                       &a.type_qualifier, nullptr);
    a.type_name = text(i, CL_KERNEL_ARG_TYPE_NAME);
    a.name = text(i, CL_KERNEL_ARG_NAME);
  }
  return info;
}

struct KernelSignature {
  std::string name;
  std::vector<KernelArgInfo> args;
};

}  // namespace parasol::backend
