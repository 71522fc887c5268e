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
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parasol::kernels {

// What a kernel argument is, as far as launching it is concerned.
enum class ArgKind {
  Value,          // passed by value: args[i] points to the bytes
  GlobalPointer,  // __global T*: args[i] points to a void* holding the data pointer
  ConstantPointer,// __constant T*: same as GlobalPointer
  LocalPointer,   // __local T*: args[i] points to a void* to per-work-group scratch
  Sampler,        // see ImageDesc: args[i] points to a slot holding the CLK_* bits
  Image,          // args[i] points to a slot holding an ImageDesc*
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

// An image argument, as the native device's kernels read it: args[i]
// points to a slot holding this descriptor's address (the value an image
// type has in kernel code). Pixels are packed: x fastest, then rows
// (row_pitch bytes apart), then slices or array layers (slice_pitch apart;
// a 1D image array's layers are rows).
struct ImageDesc {
  void* data = nullptr;                 // the first pixel, in main RAM
  std::uint64_t width = 1, height = 1, depth = 1;  // pixels; 1 where the type has no such axis
  std::uint64_t array_size = 0;         // layers of an image array, 0 otherwise
  std::uint64_t row_pitch = 0, slice_pitch = 0;  // bytes
  std::uint32_t channel_order = 0;      // cl_channel_order
  std::uint32_t channel_data_type = 0;  // cl_channel_type
  std::uint32_t element_size = 0;       // bytes a pixel takes
  std::uint32_t image_type = 0;         // cl_mem_object_type
};
// A sampler argument: args[i] points to a pointer-sized slot holding the
// sampler's CLK_* bits (normalized coordinates | addressing mode | filter
// mode), the value sampler_t has in kernel code, as for a sampler declared
// in the program.

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
  // The bytes of its program-scope variables in the global address space
  // (CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE).
  virtual std::size_t global_variable_bytes() const = 0;
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

// Build options as Parasol judges them, once for every device: the OpenCL
// options are checked here; an option a vendor's extension defines
// (-cl-nv-*: cl_nv_compiler_options) is valid on the devices that report
// that extension, and only there.
struct OptionsCheck {
  bool valid = false;  // false: the log says which option is wrong
  std::string log;
  std::vector<std::pair<std::string, std::string>> vendor_options;  // option, extension
};
OptionsCheck check_options(std::string_view options);

// What Parasol's own front end reads of each kernel of a program without
// compiling it for the native device: argument names, types and qualifiers,
// attributes; the facts the runtime needs of every program, whichever
// device builds it. Permissive (every extension on, warnings off): the
// vendors judge the program itself. Thread-safe; cached on disk as build().
struct Description {
  std::vector<KernelInfo> kernels;  // without the native-only sizes
  bool parsed = false;              // false: the log says why
  bool invalid_options = false;     // the build options were refused
  std::string log;
};
struct Header;
// headers: clCompileProgram's input headers, for a program compiled apart.
Description describe(std::string_view source, std::string_view options,
                     const std::vector<Header>& headers);

// Separate compilation (clCompileProgram, clLinkProgram). A compiled object
// or a library is the front end's module as LLVM bitcode with its kernels'
// descriptions, in a binary of its own kind: linking finishes the work
// build() does after the front end.
enum class BinaryKind { Executable, Object, Library, Invalid };
BinaryKind binary_kind(const unsigned char* data, std::size_t size);

struct Header {
  std::string include_name;  // as #include names it
  std::string source;
};
struct ObjectResult {
  std::vector<unsigned char> binary;  // empty when the compile failed
  std::vector<KernelInfo> kernels;
  std::string log;
  bool invalid_options = false;
};
// Compiles to a compiled object (compile options: those of build()).
ObjectResult compile_object(std::string_view source, std::string_view options,
                            const std::vector<Header>& headers);

struct LinkResult {
  std::unique_ptr<CompiledProgram> program;  // the executable (null for a library)
  std::vector<unsigned char> library;        // with create_library
  std::vector<KernelInfo> kernels;
  std::string log;
  bool ok() const { return program || !library.empty(); }
};
// Links compiled objects and libraries (binaries of compile_object() or of
// a library link) into an executable, or into a library. The caller judges
// the link options: this device applies math options when it compiles.
LinkResult link(const std::vector<std::vector<unsigned char>>& inputs, bool create_library);

// Re-creates a program from CompiledProgram::binary(); fails with a log line
// for a binary of another CPU or compiler version.
BuildResult load_binary(const unsigned char* data, std::size_t size);

// Where compiled kernels are cached: $PARASOL_CACHE_DIR, else
// $XDG_CACHE_HOME/parasol, else ~/.cache/parasol.
std::string cache_directory();

// The optional OpenCL C 3.0 features the compiler supports: each one's
// __opencl_c_* macro is defined under -cl-std=CL3.0, and only those (what
// the native device reports as CL_DEVICE_OPENCL_C_FEATURES).
std::span<const char* const> opencl_c_features();

// Identifies the compiler build (Parasol's version, LLVM's, and hashes of
// the built-in library and of kernels-pass's own sources), part of the
// cache key and of every binary.
std::string_view compiler_id();

}  // namespace parasol::kernels
