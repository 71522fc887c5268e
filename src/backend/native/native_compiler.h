// The runtime's view of Parasol's native CPU device: programs compiled by
// kernels-pass/ and run by a thread pool, one work-group function call per
// work-group. Without the compiler (PARASOL_NATIVE_CPU=OFF) available() is
// false and the native device does not exist.
#pragma once

#include <CL/cl.h>

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backend/image_shape.h"
#include "backend/kernel_signature.h"

namespace parasol::backend::native {

bool available();

struct NativeProgram;  // a compiled program (opaque outside native/)
struct NativeKernel;   // one kernel's entry point and metadata

// Whether Parasol was built with its own compiler (PARASOL_NATIVE_CPU=ON),
// which also judges build options and reads every program's kernels.
bool has_compiler();

// Build options as Parasol judges them, once for every device
// (kernels-pass's check_options()): valid, or the log says why not; the
// options a vendor's extension defines, each with that extension. Without
// Parasol's compiler every option passes here and the vendors judge them.
struct OptionsCheck {
  bool valid = true;
  std::string log;
  std::vector<std::pair<std::string, std::string>> vendor_options;  // option, extension
};
OptionsCheck check_options(const std::string& options);

// Parasol's own reading of a program (kernels-pass's describe()): every
// kernel's arguments. parsed is false where there is no compiler or the
// source did not parse (the log says why); invalid_options where the
// options were refused.
struct Description {
  bool parsed = false;
  bool invalid_options = false;
  std::string log;
  std::vector<backend::KernelSignature> kernels;
};
// headers: clCompileProgram's input headers (include name, source).
using Headers = std::vector<std::pair<std::string, std::string>>;
Description describe(const std::string& source, const std::string& options,
                     const Headers& headers = {});

// Separate compilation on the native device: a compiled object or a library
// is kept as its binary (what CL_PROGRAM_BINARIES gives).
enum class BinaryKind { Executable, Object, Library, Invalid };
BinaryKind binary_kind(const unsigned char* data, std::size_t size);
struct Compiled {
  std::vector<unsigned char> object;  // empty when the compile failed
  std::vector<backend::KernelSignature> kernels;
  std::string log;
  bool invalid_options = false;
};
Compiled compile_object(const std::string& source, const std::string& options,
                        const Headers& headers);
struct Linked {
  std::shared_ptr<NativeProgram> program;  // the executable (null for a library)
  std::vector<unsigned char> library;      // create_library
  std::vector<backend::KernelSignature> kernels;
  std::string log;
};
Linked link(const std::vector<std::vector<unsigned char>>& inputs, bool create_library);


// Null when the build failed; invalid_options tells refused options
// (CL_INVALID_BUILD_OPTIONS) from a failed compile.
std::shared_ptr<NativeProgram> build(const std::string& source, const std::string& options,
                                     std::string& log, bool& invalid_options);
std::shared_ptr<NativeProgram> load_binary(const unsigned char* data, std::size_t size,
                                           std::string& log);
std::vector<unsigned char> binary(const NativeProgram& program);
std::vector<std::string> kernel_names(const NativeProgram& program);
// CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE of an executable.
std::size_t global_variable_bytes(const NativeProgram& program);
std::vector<backend::KernelSignature> signatures(const NativeProgram& program);

std::shared_ptr<NativeKernel> find_kernel(const std::shared_ptr<NativeProgram>& program,
                                          const std::string& name);
std::vector<backend::KernelArgInfo> arg_info(const NativeKernel& kernel);
// Bytes a by-value argument takes (0 for pointers).
std::size_t value_size(const NativeKernel& kernel, cl_uint index);
std::array<std::size_t, 3> reqd_work_group_size(const NativeKernel& kernel);
std::size_t private_bytes(const NativeKernel& kernel);
// CL_KERNEL_ATTRIBUTES: the kernel's attributes as written in its source.
std::string attributes(const NativeKernel& kernel);

struct Launch {
  cl_uint work_dim = 1;
  std::array<std::size_t, 3> offset{0, 0, 0}, global{1, 1, 1}, local{0, 0, 0};
};
// One argument of a launch, as the kernel receives it: a value's bytes, a
// __local pointer's size, a buffer's main-RAM address (null: a null
// cl_mem), an image's address and shape, or a sampler's CLK_* bits.
struct Arg {
  const void* value = nullptr;
  std::size_t local_size = 0;
  void* data = nullptr;
  const ImageShape* image = nullptr;
  std::uint32_t sampler_bits = 0;
};
// Runs every work-group of the launch on the native device's thread pool.
cl_int run(const NativeKernel& kernel, std::span<const Arg> args, const Launch& launch);

// Images on the native device: whether it takes them, the formats it
// takes for an image type, the largest image of a type (width, height or
// layers, depth or layers, in pixels).
bool image_support();
std::vector<cl_image_format> image_formats(cl_mem_object_type type);
std::array<std::size_t, 3> image_max(cl_mem_object_type type);

// What the device reports (CL_DEVICE_MAX_WORK_GROUP_SIZE, compute units...).
// CL_DEVICE_LOCAL_MEM_SIZE: a work-group's __local memory (the kernel's own
// plus its __local arguments) is refused past this, as on a vendor device.
constexpr std::size_t kLocalMemBytes = 64 * 1024;
// The __local bytes one work-group of a launch needs, its __local
// arguments taking argument_local_bytes.
std::size_t local_bytes(const NativeKernel& kernel, std::size_t argument_local_bytes);
std::size_t max_work_group_size();
cl_uint compute_units();
// CL_DEVICE_OPENCL_C_FEATURES: the __opencl_c_* features its compiler
// defines under -cl-std=CL3.0 (none without the compiler).
std::span<const char* const> opencl_c_features();

}  // namespace parasol::backend::native
