// A program: one vendor program per device of its context, each built with
// that vendor's compiler (the native device: kernels-pass). Build status,
// options and log are per device. A program is built whole (clBuildProgram),
// or compiled (clCompileProgram) into compiled objects that clLinkProgram
// links into a new program: an executable or a library.
#pragma once

#include <atomic>
#include <mutex>
#include <utility>
#include <string>
#include <vector>

#include "backend/device_backend.h"
#include "backend/kernel_signature.h"
#include "backend/native/access_ranges.h"
#include "backend/native/native_compiler.h"
#include "core/context.h"
#include "core/object.h"

namespace parasol::core {

struct DeviceBuild {
  Device* device = nullptr;
  backend::DeviceProgram program;  // its form on the device (its backend's)
  cl_build_status status = CL_BUILD_NONE;
  std::string options;
  std::string log;
  cl_program_binary_type binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
  // An executable that kernels can be made of.
  bool executable() const {
    return status == CL_BUILD_SUCCESS && binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
  }
};

class Program final : public Object<Program, _cl_program, ObjectKind::Program> {
 public:
  // From source: creates the vendor programs (CL_SUCCESS or the vendor's error in err).
  Program(Context* context, std::string source, cl_int& err);
  // From binaries, one per device (per-device status in binary_status).
  Program(Context* context, const std::vector<Device*>& devices,
          const std::vector<std::vector<unsigned char>>& binaries, cl_int* binary_status,
          cl_int& err);

  // The built-in kernels `names` (';'-separated) of devices, each device
  // given those of the names it lists (CL_DEVICE_BUILT_IN_KERNELS).
  // CL_INVALID_VALUE in err if a name is none's, else the vendors' errors.
  struct BuiltIn {};
  Program(Context* context, const std::vector<Device*>& devices, const std::string& names,
          BuiltIn, cl_int& err);

  // Linked by clLinkProgram: see link().
  struct Linked {};
  Program(Context* context, Linked);

  Context* context() const { return context_.get(); }
  const std::string& source() const { return source_; }
  std::size_t source_hash() const { return source_hash_; }
  enum class Origin { Source, Binary, BuiltIn, Linked };
  Origin origin() const { return origin_; }

  // Builds for each listed device (in parallel, one thread per device).
  // CL_INVALID_BUILD_OPTIONS if Parasol or a vendor refused the options,
  // CL_BUILD_PROGRAM_FAILURE if any failed; CL_INVALID_OPERATION if a build
  // is running, kernels are attached or the program was linked;
  // CL_INVALID_BINARY if a binary is not an executable.
  cl_int build(const std::vector<Device*>& devices, const std::string& options);
  // Compiles the source for each listed device into a compiled object, with
  // clCompileProgram's input headers (include name, a program from source of
  // this context). CL_INVALID_COMPILER_OPTIONS, CL_COMPILE_PROGRAM_FAILURE,
  // CL_INVALID_OPERATION as build().
  using Header = std::pair<std::string, Program*>;
  cl_int compile(const std::vector<Device*>& devices, const std::string& options,
                 const std::vector<Header>& headers);
  // Links inputs (programs with compiled objects or libraries) into a new
  // program for devices: an executable, or a library with -create-library.
  // A device for which no input has a compiled object or library gets
  // nothing; one for which only some have them makes the link
  // CL_INVALID_OPERATION (null). err: CL_SUCCESS, CL_INVALID_LINKER_OPTIONS,
  // or CL_LINK_PROGRAM_FAILURE with the program (its logs say why).
  static Program* link(Context* context, const std::vector<Device*>& devices,
                       const std::string& options, const std::vector<Program*>& inputs,
                       cl_int& err);

  std::vector<DeviceBuild>& builds() { return builds_; }
  // A kernel's arguments as Parasol's own front end read them at the last
  // build; null when it did not (no compiler, a binary, a parse failure):
  // the vendors are asked then. Stable while kernels are attached.
  const backend::KernelSignature* signature(const std::string& kernel) const;
  DeviceBuild* build_for(const Device* d);
  // Whether some device has an executable (kernels can be made).
  bool built_anywhere() const;
  // Kernel names of the built program, from the first device built.
  std::vector<std::string> kernel_names() const;
  // The device's binary (CL_PROGRAM_BINARIES); empty if there is none.
  std::vector<unsigned char> binary(const DeviceBuild& b) const;

  // What its kernels read and write per block of work-groups (Parasol's
  // compiler on its source, backend/native/access_ranges.h), analysed on
  // the first call after a build and kept until the next: only launches
  // that could be split ask, so a build never pays for it. Null, with the
  // reason in why, for a program without source (binaries, built-in
  // kernels, linked), whose devices built with different options, under
  // PARASOL_SOCL (each device type compiles its own variant), or whose
  // source the analysis could not read.
  std::shared_ptr<const backend::native::ProgramRanges> access_ranges(std::string& why);

  std::atomic<int> attached_kernels{0};

 private:
  // Marks the devices' builds in progress; false if one runs already, or
  // kernels are attached.
  bool begin(const std::vector<Device*>& devices);
  // Every listed device's outcome is the refusal of its options.
  void refuse(const std::vector<Device*>& devices, const std::string& options,
              const std::string& why);
  // After the devices' work: the signatures, the end of the build.
  void end(backend::native::Description description);

  Ref<Context> context_;
  std::string source_;
  // Names its kernels' performance models; hashed once, since libraries
  // create a kernel per call from sources of hundreds of kilobytes.
  std::size_t source_hash_ = std::hash<std::string>{}(source_);
  Origin origin_ = Origin::Source;
  std::vector<DeviceBuild> builds_;
  mutable std::mutex mutex_;
  bool building_ = false;
  std::vector<backend::KernelSignature> signatures_;
  std::mutex ranges_mutex_;  // held while the analysis runs: one run per build
  bool ranges_done_ = false;
  std::shared_ptr<const backend::native::ProgramRanges> ranges_;
  std::string ranges_why_;
};

}  // namespace parasol::core
