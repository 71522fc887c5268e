#include "core/program.h"

#include <deque>
#include <sstream>
#include <thread>

#include "util/log.h"
#include "util/settings.h"

namespace parasol::core {
namespace {

std::string build_log(cl_program p, cl_device_id d) {
  size_t size = 0;
  if (clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS || !size)
    return {};
  std::string log(size, '\0');
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

Program::Program(Context* context, std::string source, cl_int& err)
    : context_(context), source_(std::move(source)) {
  err = CL_SUCCESS;
  const char* text = source_.c_str();
  size_t length = source_.size();
  for (Device* d : context->devices()) {
    DeviceBuild b;
    b.device = d;
    if (d->is_native()) {  // compiled by kernels-pass at build time
      builds_.push_back(std::move(b));
      continue;
    }
    cl_int e = CL_SUCCESS;
    runtime::VendorLock lock = runtime::lock_vendor(d->worker());
    b.program.reset(clCreateProgramWithSource(d->worker().context, 1, &text, &length, &e));
    b.program.set_platform(d->worker().platform);
    if (e != CL_SUCCESS) {
      log::error("vendor ", d->vendor_platform_name(), " refused the program source on ",
                 d->label(), " (error ", e, ")");
      err = e;
    }
    builds_.push_back(std::move(b));
  }
}

Program::Program(Context* context, const std::vector<Device*>& devices,
                 const std::vector<std::vector<unsigned char>>& binaries, cl_int* binary_status,
                 cl_int& err)
    : context_(context) {
  err = CL_SUCCESS;
  for (size_t i = 0; i < devices.size(); ++i) {
    DeviceBuild b;
    b.device = devices[i];
    const unsigned char* bin = binaries[i].data();
    size_t size = binaries[i].size();
    cl_int status = CL_SUCCESS, e = CL_SUCCESS;
    if (devices[i]->is_native()) {
      b.native = runtime::native::load_binary(bin, size, b.log);
      if (!b.native) e = status = CL_INVALID_BINARY;
    } else {
      cl_device_id vd = devices[i]->vendor();
      runtime::VendorLock lock = runtime::lock_vendor(devices[i]->worker());
      b.program.set_platform(devices[i]->worker().platform);
      b.program.reset(clCreateProgramWithBinary(devices[i]->worker().context, 1, &vd, &size,
                                                &bin, &status, &e));
    }
    if (e == CL_SUCCESS && status == CL_SUCCESS) {
      b.binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
    } else {
      err = CL_INVALID_BINARY;
      if (status == CL_SUCCESS) status = CL_INVALID_BINARY;
    }
    if (binary_status) binary_status[i] = status;
    builds_.push_back(std::move(b));
  }
}

DeviceBuild* Program::build_for(const Device* d) {
  for (auto& b : builds_)
    if (b.device == d) return &b;
  return nullptr;
}

bool Program::built_anywhere() const {
  std::lock_guard lock(mutex_);
  for (const auto& b : builds_)
    if (b.status == CL_BUILD_SUCCESS) return true;
  return false;
}

namespace {

// What SOCL 1.3 defines before the application's options when it builds a
// program for a device (socl/src/cl_buildprogram.c), under PARASOL_SOCL=1.
std::string socl_device_define(const Device& d) {
  // SOCL compares the whole type: a device of several types (Oclgrind
  // reports all of them) is UNKNOWN.
  const cl_device_type t = d.type();
  const char* name = t == CL_DEVICE_TYPE_CPU           ? "CPU"
                     : t == CL_DEVICE_TYPE_GPU         ? "GPU"
                     : t == CL_DEVICE_TYPE_ACCELERATOR ? "ACCELERATOR"
                                                       : "UNKNOWN";
  return std::string("-DSOCL_DEVICE_TYPE_") + name + " ";
}

// Options as Parasol judges them, the same way for every device: empty when
// valid, else the reason (CL_INVALID_BUILD_OPTIONS).
std::string refused_options(const std::vector<Device*>& devices, const std::string& options) {
  runtime::native::OptionsCheck check = runtime::native::check_options(options);
  if (!check.valid) return check.log;
  std::string why;
  for (const auto& [option, extension] : check.vendor_options)
    for (const Device* d : devices)
      if (!d->has_vendor_extension(extension))
        why += "error: build option '" + option + "' belongs to " + extension + ", which " +
               d->label() + " does not support\n";
  return why;
}

}  // namespace

cl_int Program::build(const std::vector<Device*>& devices, const std::string& options) {
  {
    std::lock_guard lock(mutex_);
    if (building_ || attached_kernels.load() > 0) return CL_INVALID_OPERATION;
    building_ = true;
    for (Device* d : devices) build_for(d)->status = CL_BUILD_IN_PROGRESS;
  }
  if (std::string why = refused_options(devices, options); !why.empty()) {
    log::info("build options \"", options, "\" refused:\n", why);
    std::lock_guard lock(mutex_);
    for (Device* d : devices) {
      DeviceBuild* b = build_for(d);
      b->status = CL_BUILD_ERROR;
      b->options = options;
      b->log = why;
      b->binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
    }
    building_ = false;
    return CL_INVALID_BUILD_OPTIONS;
  }
  // Vendors compile exactly the application's options (and SOCL's define
  // under PARASOL_SOCL=1); what Parasol needs to know of the kernels comes
  // from its own front end: from the native device's build when there is
  // one, else from a parse of its own beside the vendors' builds.
  const bool socl = settings::socl();
  std::vector<std::thread> threads;
  std::deque<cl_int> vendor_errors;  // stable addresses, one per device
  bool native_in_build = false;
  for (Device* d : devices) {
    DeviceBuild* b = build_for(d);
    native_in_build |= d->is_native();
    cl_int* vendor_error = &vendor_errors.emplace_back(CL_SUCCESS);
    std::string device_options = socl ? socl_device_define(*d) + options : options;
    threads.emplace_back([b, device_options = std::move(device_options), &options, vendor_error,
                          this] {
      if (b->device->is_native()) {
        // A program from source compiles at every build: its options, or
        // the headers it includes, may have changed since the last one (the
        // compiler's cache tells what is unchanged). One created from a
        // binary is already executable.
        bool invalid_options = false;
        if (!from_binary())
          b->native = runtime::native::build(source_, device_options, b->log, invalid_options);
        if (invalid_options) *vendor_error = CL_INVALID_BUILD_OPTIONS;
        b->options = options;
        b->status = b->native ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
        b->binary_type = b->native ? CL_PROGRAM_BINARY_TYPE_EXECUTABLE : CL_PROGRAM_BINARY_TYPE_NONE;
        if (!b->native) log::info("build failed on ", b->device->label(), ":\n", b->log);
        return;
      }
      cl_device_id vd = b->device->vendor();
      runtime::VendorLock lock = runtime::lock_vendor(b->device->worker());
      cl_int e = clBuildProgram(b->program.get(), 1, &vd, device_options.c_str(), nullptr, nullptr);
      *vendor_error = e;
      std::string log = build_log(b->program.get(), vd);
      lock = {};
      b->options = options;
      b->log = std::move(log);
      b->status = e == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
      b->binary_type = e == CL_SUCCESS ? CL_PROGRAM_BINARY_TYPE_EXECUTABLE
                                       : CL_PROGRAM_BINARY_TYPE_NONE;
      if (e != CL_SUCCESS)
        log::info("build failed on ", b->device->label(), " (error ", e, "):\n", b->log);
    });
  }
  runtime::native::Description description;
  if (!native_in_build && !from_binary()) {
    description = runtime::native::describe(source_, options);
    if (!description.parsed)
      log::info("Parasol's front end could not read the program; its kernels' arguments are "
                "asked of the vendors:\n", description.log);
  }
  for (auto& t : threads) t.join();
  std::lock_guard lock(mutex_);
  building_ = false;
  signatures_.clear();
  if (description.parsed) {
    signatures_ = std::move(description.kernels);
  } else {
    for (const auto& b : builds_)
      if (b.native && b.status == CL_BUILD_SUCCESS) {
        signatures_ = runtime::native::signatures(*b.native);
        break;
      }
  }
  // A vendor refusing the options Parasol let through (without Parasol's
  // compiler, the vendors are the judges) means they are invalid.
  for (cl_int e : vendor_errors)
    if (e == CL_INVALID_BUILD_OPTIONS) return CL_INVALID_BUILD_OPTIONS;
  for (Device* d : devices)
    if (build_for(d)->status != CL_BUILD_SUCCESS) return CL_BUILD_PROGRAM_FAILURE;
  return CL_SUCCESS;
}

const KernelSignature* Program::signature(const std::string& kernel) const {
  std::lock_guard lock(mutex_);
  for (const auto& s : signatures_)
    if (s.name == kernel) return &s;
  return nullptr;
}

std::vector<std::string> Program::kernel_names() const {
  std::lock_guard lock(mutex_);
  for (const auto& b : builds_) {
    if (b.status != CL_BUILD_SUCCESS && b.binary_type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
      continue;
    if (b.native) return runtime::native::kernel_names(*b.native);
    size_t size = 0;
    runtime::VendorLock vendor_lock = runtime::lock_vendor(b.device->worker());
    if (clGetProgramInfo(b.program.get(), CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size) != CL_SUCCESS)
      continue;
    std::string names(size, '\0');
    clGetProgramInfo(b.program.get(), CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr);
    std::vector<std::string> out;
    std::stringstream ss(names.c_str());
    for (std::string n; std::getline(ss, n, ';');)
      if (!n.empty()) out.push_back(n);
    return out;
  }
  return {};
}

std::vector<unsigned char> Program::binary(const DeviceBuild& b) const {
  if (b.native) return runtime::native::binary(*b.native);
  size_t size = 0;
  if (!b.program ||
      clGetProgramInfo(b.program.get(), CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) !=
          CL_SUCCESS)
    return {};
  std::vector<unsigned char> bin(size);
  unsigned char* one[1] = {bin.data()};
  if (size) clGetProgramInfo(b.program.get(), CL_PROGRAM_BINARIES, sizeof one, one, nullptr);
  return bin;
}

}  // namespace parasol::core
