#include "core/program.h"

#include <deque>
#include <sstream>
#include <thread>

#include "util/log.h"

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

cl_int Program::build(const std::vector<Device*>& devices, const std::string& options) {
  {
    std::lock_guard lock(mutex_);
    if (building_ || attached_kernels.load() > 0) return CL_INVALID_OPERATION;
    building_ = true;
    for (Device* d : devices) build_for(d)->status = CL_BUILD_IN_PROGRESS;
  }
  // Parasol needs each argument's address and type qualifiers to know which
  // arguments are buffers and how kernels use them.
  std::string vendor_options = options + " -cl-kernel-arg-info";
  std::vector<std::thread> threads;
  std::deque<cl_int> vendor_errors;  // stable addresses, one per device
  for (Device* d : devices) {
    DeviceBuild* b = build_for(d);
    cl_int* vendor_error = &vendor_errors.emplace_back(CL_SUCCESS);
    threads.emplace_back([b, &vendor_options, &options, vendor_error, this] {
      if (b->device->is_native()) {
        // A program from source compiles at every build: its options, or
        // the headers it includes, may have changed since the last one (the
        // compiler's cache tells what is unchanged). One created from a
        // binary is already executable.
        bool invalid_options = false;
        if (!from_binary()) b->native = runtime::native::build(source_, options, b->log, invalid_options);
        if (invalid_options) *vendor_error = CL_INVALID_BUILD_OPTIONS;
        b->options = options;
        b->status = b->native ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
        b->binary_type = b->native ? CL_PROGRAM_BINARY_TYPE_EXECUTABLE : CL_PROGRAM_BINARY_TYPE_NONE;
        if (!b->native) log::info("build failed on ", b->device->label(), ":\n", b->log);
        return;
      }
      cl_device_id vd = b->device->vendor();
      runtime::VendorLock lock = runtime::lock_vendor(b->device->worker());
      cl_int e = clBuildProgram(b->program.get(), 1, &vd, vendor_options.c_str(), nullptr, nullptr);
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
  for (auto& t : threads) t.join();
  std::lock_guard lock(mutex_);
  building_ = false;
  // The options are the same for every device: one vendor refusing them
  // (PoCL checks them, Oclgrind only fails the build; the native device
  // checks them) means they are invalid.
  for (cl_int e : vendor_errors)
    if (e == CL_INVALID_BUILD_OPTIONS) return CL_INVALID_BUILD_OPTIONS;
  for (Device* d : devices)
    if (build_for(d)->status != CL_BUILD_SUCCESS) return CL_BUILD_PROGRAM_FAILURE;
  return CL_SUCCESS;
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
