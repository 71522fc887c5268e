// A program: one vendor program per device of its context, each built with
// that vendor's compiler. Build status, options and log are per device.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "core/context.h"
#include "core/kernel_signature.h"
#include "core/object.h"
#include "runtime/native/native_compiler.h"
#include "runtime/vendor_handle.h"

namespace parasol::core {

struct DeviceBuild {
  Device* device = nullptr;
  runtime::VendorProgram program;  // in the device's StarPU worker context
  std::shared_ptr<runtime::native::NativeProgram> native;  // the native device's
  cl_build_status status = CL_BUILD_NONE;
  std::string options;
  std::string log;
  cl_program_binary_type binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
};

class Program final : public Object<Program, _cl_program, ObjectKind::Program> {
 public:
  // From source: creates the vendor programs (CL_SUCCESS or the vendor's error in err).
  Program(Context* context, std::string source, cl_int& err);
  // From binaries, one per device (per-device status in binary_status).
  Program(Context* context, const std::vector<Device*>& devices,
          const std::vector<std::vector<unsigned char>>& binaries, cl_int* binary_status,
          cl_int& err);

  Context* context() const { return context_.get(); }
  const std::string& source() const { return source_; }
  bool from_binary() const { return source_.empty(); }

  // Builds for each listed device (in parallel, one thread per device).
  // CL_INVALID_BUILD_OPTIONS if a vendor refused the options,
  // CL_BUILD_PROGRAM_FAILURE if any failed; CL_INVALID_OPERATION if a build
  // is running or kernels are attached.
  cl_int build(const std::vector<Device*>& devices, const std::string& options);

  std::vector<DeviceBuild>& builds() { return builds_; }
  // A kernel's arguments as Parasol's own front end read them at the last
  // build; null when it did not (no compiler, a binary, a parse failure):
  // the vendors are asked then. Stable while kernels are attached.
  const KernelSignature* signature(const std::string& kernel) const;
  DeviceBuild* build_for(const Device* d);
  bool built_anywhere() const;
  // Kernel names of the built program, from the first device built.
  std::vector<std::string> kernel_names() const;
  // The device's binary (CL_PROGRAM_BINARIES); empty if there is none.
  std::vector<unsigned char> binary(const DeviceBuild& b) const;

  std::atomic<int> attached_kernels{0};

 private:
  Ref<Context> context_;
  std::string source_;
  std::vector<DeviceBuild> builds_;
  mutable std::mutex mutex_;
  bool building_ = false;
  std::vector<KernelSignature> signatures_;
};

}  // namespace parasol::core
