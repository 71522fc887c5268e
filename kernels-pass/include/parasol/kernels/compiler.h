// The native CPU device's compiler: OpenCL C in, work-group functions out.
//
// This header is the only seam between kernels-pass/ and the runtime. The
// runtime never sees LLVM types: everything LLVM stays inside the static
// library, with hidden symbols, so a process that also loads a vendor's own
// LLVM (PoCL links LLVM 15) cannot mix the two up.
#pragma once

#include <CL/cl.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace parasol::kernels {

// What a kernel argument is, as far as launching it is concerned.
enum class ArgKind {
  Value,          // passed by value: args[i] points to the bytes
  GlobalPointer,  // __global T*: args[i] points to a void* holding the data pointer
  ConstantPointer,// __constant T*: same as GlobalPointer
  LocalPointer,   // __local T*: args[i] points to a void* to per-work-group scratch
  Sampler,
  Image,
};

struct ArgInfo {
  std::string name;
  std::string type_name;  // as CL_KERNEL_ARG_TYPE_NAME reports it, e.g. "float*"
  ArgKind kind = ArgKind::Value;
  cl_kernel_arg_address_qualifier address = CL_KERNEL_ARG_ADDRESS_PRIVATE;
  cl_kernel_arg_access_qualifier access = CL_KERNEL_ARG_ACCESS_NONE;
  cl_kernel_arg_type_qualifier type_qualifier = CL_KERNEL_ARG_TYPE_NONE;
  std::size_t size = 0;  // bytes clSetKernelArg must be given (pointer size for pointers)
};

struct KernelInfo {
  std::string name;
  std::vector<ArgInfo> args;
  std::array<std::size_t, 3> reqd_work_group_size{0, 0, 0};  // 0,0,0 when absent
  std::size_t static_local_bytes = 0;   // kernel-scope __local variables
  std::size_t private_bytes = 0;        // per work-item, for CL_KERNEL_PRIVATE_MEM_SIZE
  std::string attributes;               // CL_KERNEL_ATTRIBUTES
};

// Geometry of one launch, shared by every work-group of it.
struct NDRange {
  std::uint32_t work_dim = 1;
  std::array<std::size_t, 3> global_offset{0, 0, 0};
  std::array<std::size_t, 3> global_size{1, 1, 1};
  std::array<std::size_t, 3> local_size{1, 1, 1};
  std::array<std::size_t, 3> num_groups{1, 1, 1};
};

// Runs every work-item of one work-group.
//   args:       one pointer per kernel argument (see ArgKind)
//   range:      the launch geometry
//   group_id:   which work-group
//   local_mem:  at least KernelInfo::static_local_bytes bytes of scratch for
//               kernel-scope __local variables, private to this call
using WorkGroupFn = void (*)(void* const* args, const NDRange* range,
                             const std::size_t* group_id, void* local_mem);

class CompiledProgram {
 public:
  virtual ~CompiledProgram() = default;
  virtual const std::vector<KernelInfo>& kernels() const = 0;
  virtual WorkGroupFn entry(std::string_view kernel_name) const = 0;  // nullptr if absent
  // Serialised form for CL_PROGRAM_BINARIES; load_binary() turns it back.
  virtual std::vector<unsigned char> binary() const = 0;
};

struct BuildResult {
  std::unique_ptr<CompiledProgram> program;  // null when the build failed
  std::string log;                           // Clang's diagnostics, LLVM errors
  bool invalid_options = false;              // the build options were refused (no compile ran)
};

// Compiles OpenCL C source with OpenCL build options (-D, -I, -cl-std=,
// -cl-fast-relaxed-math, -w, -Werror, ...). Thread-safe. Uses the on-disk
// cache (see cache_directory()), keyed on the preprocessed source (included
// headers' contents with it), the options and compiler_id(), unless
// PARASOL_NO_KERNEL_CACHE is set.
BuildResult build(std::string_view source, std::string_view options);

// Re-creates a program from CompiledProgram::binary(); fails with a log line
// for a binary of another CPU or compiler version.
BuildResult load_binary(const unsigned char* data, std::size_t size);

// Where compiled kernels are cached: $PARASOL_CACHE_DIR, else
// $XDG_CACHE_HOME/parasol, else ~/.cache/parasol.
std::string cache_directory();

// Identifies the compiler build (Parasol's version, LLVM's, and hashes of
// the built-in library and of kernels-pass's own sources), part of the
// cache key and of every binary.
std::string_view compiler_id();

}  // namespace parasol::kernels
