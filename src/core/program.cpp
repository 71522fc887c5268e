#include "core/program.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>

#include "util/log.h"
#include "util/name_list.h"
#include "util/settings.h"

namespace parasol::core {

Program::Program(Context* context, std::string source, cl_int& err)
    : context_(context), source_(std::move(source)) {
  err = CL_SUCCESS;
  for (Device* d : context->devices()) {
    DeviceBuild b;
    b.device = d;
    if (cl_int e = d->backend().create_from_source(b.program, source_); e != CL_SUCCESS) {
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
    : context_(context), origin_(Origin::Binary) {
  err = CL_SUCCESS;
  for (size_t i = 0; i < devices.size(); ++i) {
    DeviceBuild b;
    b.device = devices[i];
    cl_int status = devices[i]->backend().create_from_binary(b.program, binaries[i],
                                                              b.binary_type, b.log);
    if (status != CL_SUCCESS) {
      err = CL_INVALID_BINARY;
      b.binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
    }
    if (binary_status) binary_status[i] = status;
    builds_.push_back(std::move(b));
  }
}

Program::Program(Context* context, const std::vector<Device*>& devices, const std::string& names,
                 BuiltIn, cl_int& err)
    : context_(context), origin_(Origin::BuiltIn) {
  err = CL_SUCCESS;
  const std::vector<std::string> wanted = split_names(names);
  std::vector<bool> found(wanted.size(), false);
  for (Device* d : devices) {
    DeviceBuild b;
    b.device = d;
    const std::vector<std::string> offered = split_names(d->backend().built_in_kernels());
    std::string own;
    for (std::size_t i = 0; i < wanted.size(); ++i)
      if (std::find(offered.begin(), offered.end(), wanted[i]) != offered.end()) {
        own += (own.empty() ? "" : ";") + wanted[i];
        found[i] = true;
      }
    if (!own.empty())
      if (cl_int e = d->backend().create_from_built_ins(b.program, own, b.status, b.binary_type);
          e != CL_SUCCESS)
        err = e;
    builds_.push_back(std::move(b));
  }
  if (wanted.empty() || std::find(found.begin(), found.end(), false) != found.end())
    err = CL_INVALID_VALUE;
}

Program::Program(Context* context, Linked) : context_(context), origin_(Origin::Linked) {}

DeviceBuild* Program::build_for(const Device* d) {
  for (auto& b : builds_)
    if (b.device == d) return &b;
  return nullptr;
}

bool Program::built_anywhere() const {
  std::lock_guard lock(mutex_);
  for (const auto& b : builds_)
    if (b.executable()) return true;
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

// The options a device compiles with: the application's, after SOCL's
// define under PARASOL_SOCL=1, and what its compiler needs besides.
std::string device_options(const Device& d, const std::string& options) {
  std::string out = settings::socl() ? socl_device_define(d) + options : options;
  out += d.backend().extra_options();
  return out;
}

// Options as Parasol judges them, the same way for every device: empty when
// valid, else the reason (CL_INVALID_BUILD_OPTIONS, CL_INVALID_COMPILER_OPTIONS).
std::string refused_options(const std::vector<Device*>& devices, const std::string& options) {
  backend::native::OptionsCheck check = backend::native::check_options(options);
  if (!check.valid) return check.log;
  std::string why;
  for (const auto& [option, extension] : check.vendor_options)
    for (const Device* d : devices)
      if (!d->has_vendor_extension(extension))
        why += "error: option '" + option + "' belongs to " + extension + ", which " +
               d->label() + " does not support\n";
  return why;
}

// Link options (OpenCL 1.2, 5.6.5.2 and 5.6.5.3), judged once for every
// device: empty when valid, else the reason (CL_INVALID_LINKER_OPTIONS).
std::string refused_link_options(const std::string& options, bool& create_library) {
  static const char* const valid[] = {
      "-create-library", "-enable-link-options", "-cl-denorms-are-zero", "-cl-no-signed-zeros",
      "-cl-unsafe-math-optimizations", "-cl-finite-math-only", "-cl-fast-relaxed-math",
      "-cl-no-subgroup-ifp"};
  std::string why;
  bool enable_link_options = false;
  create_library = false;
  std::istringstream words(options);
  for (std::string w; words >> w;) {
    if (std::find(std::begin(valid), std::end(valid), w) == std::end(valid))
      why += "error: invalid link option '" + w + "'\n";
    create_library |= w == "-create-library";
    enable_link_options |= w == "-enable-link-options";
  }
  if (enable_link_options && !create_library)
    why += "error: -enable-link-options is only valid with -create-library\n";
  return why;
}

// Runs work(device) for every device at once, one thread each; the
// devices' compilers are independent.
template <typename Work>
void for_each_device(const std::vector<Device*>& devices, Work work) {
  std::vector<std::thread> threads;
  for (Device* d : devices) threads.emplace_back([d, &work] { work(d); });
  for (auto& t : threads) t.join();
}

}  // namespace

bool Program::begin(const std::vector<Device*>& devices) {
  std::lock_guard lock(mutex_);
  if (building_ || attached_kernels.load() > 0) return false;
  building_ = true;
  for (Device* d : devices) build_for(d)->status = CL_BUILD_IN_PROGRESS;
  std::lock_guard ranges(ranges_mutex_);
  ranges_done_ = false;
  ranges_.reset();
  return true;
}

std::shared_ptr<const backend::native::ProgramRanges> Program::access_ranges(std::string& why) {
  std::lock_guard lock(ranges_mutex_);
  if (!ranges_done_) {
    ranges_done_ = true;
    std::string options;
    bool same_options = true, any = false;
    {
      std::lock_guard builds(mutex_);
      for (const DeviceBuild& b : builds_) {
        if (!b.executable()) continue;
        if (any && b.options != options) same_options = false;
        options = b.options;
        any = true;
      }
    }
    if (origin_ != Origin::Source || source_.empty())
      ranges_why_ = "the program was not built from source";
    else if (!any)
      ranges_why_ = "the program is not built";
    else if (!same_options)
      ranges_why_ = "its devices built it with different options";
    else if (settings::socl())
      ranges_why_ = "PARASOL_SOCL builds a variant of it per device type";
    else {
      const auto start = std::chrono::steady_clock::now();
      ranges_ = backend::native::analyse_ranges(source_, options, ranges_why_);
      log::info("access ranges of a program's kernels ready in ",
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count(),
                " ms (analysed, or read from the native device's cache)", ranges_ ? "" : ": failed");
    }
  }
  why = ranges_why_;
  return ranges_;
}

void Program::refuse(const std::vector<Device*>& devices, const std::string& options,
                     const std::string& why) {
  log::info("options \"", options, "\" refused:\n", why);
  std::lock_guard lock(mutex_);
  for (Device* d : devices) {
    DeviceBuild* b = build_for(d);
    b->status = CL_BUILD_ERROR;
    b->options = options;
    b->log = why;
    b->binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
    b->program.native.reset();
    b->program.native_object.clear();
  }
  building_ = false;
}

void Program::end(backend::native::Description description) {
  std::lock_guard lock(mutex_);
  building_ = false;
  signatures_.clear();
  if (description.parsed) {
    signatures_ = std::move(description.kernels);
    return;
  }
  for (const auto& b : builds_)
    if (b.program.native && b.status == CL_BUILD_SUCCESS) {
      signatures_ = backend::native::signatures(*b.program.native);
      return;
    }
}

cl_int Program::build(const std::vector<Device*>& devices, const std::string& options) {
  if (origin_ == Origin::Linked) return CL_INVALID_OPERATION;
  if (origin_ == Origin::Binary)
    for (Device* d : devices)
      if (build_for(d)->binary_type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE) return CL_INVALID_BINARY;
  if (!begin(devices)) return CL_INVALID_OPERATION;
  if (std::string why = refused_options(devices, options); !why.empty()) {
    refuse(devices, options, why);
    return CL_INVALID_BUILD_OPTIONS;
  }
  // Vendors compile exactly the application's options (and SOCL's define
  // under PARASOL_SOCL=1); what Parasol needs to know of the kernels comes
  // from its own front end: from the native device's build when there is
  // one, else from a parse of its own beside the vendors' builds.
  bool read_in_build = false;
  for (Device* d : devices) read_in_build |= d->backend().reads_kernels();
  std::atomic<bool> refused_by_vendor{false};
  backend::native::Description description;
  std::thread describe;
  if (!read_in_build && origin_ == Origin::Source)
    describe = std::thread([&] { description = backend::native::describe(source_, options); });
  for_each_device(devices, [&](Device* d) {
    DeviceBuild* b = build_for(d);
    backend::BuildOutcome o = d->backend().build(b->program, source_, origin_ == Origin::Source,
                                                 device_options(*d, options));
    b->log = std::move(o.log);
    b->status = o.ok ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
    if (o.invalid_options) refused_by_vendor = true;
    b->options = options;
    b->binary_type = b->status == CL_BUILD_SUCCESS ? CL_PROGRAM_BINARY_TYPE_EXECUTABLE
                                                   : CL_PROGRAM_BINARY_TYPE_NONE;
    if (b->status != CL_BUILD_SUCCESS) log::info("build failed on ", d->label(), ":\n", b->log);
  });
  if (describe.joinable()) describe.join();
  if (!read_in_build && origin_ == Origin::Source && !description.parsed)
    log::info("Parasol's front end could not read the program; its kernels' arguments are "
              "asked of the vendors:\n", description.log);
  end(std::move(description));
  // A vendor refusing the options Parasol let through (without Parasol's
  // compiler, the vendors are the judges) means they are invalid.
  if (refused_by_vendor) return CL_INVALID_BUILD_OPTIONS;
  for (Device* d : devices)
    if (build_for(d)->status != CL_BUILD_SUCCESS) return CL_BUILD_PROGRAM_FAILURE;
  return CL_SUCCESS;
}

cl_int Program::compile(const std::vector<Device*>& devices, const std::string& options,
                        const std::vector<Header>& headers) {
  if (origin_ != Origin::Source) return CL_INVALID_OPERATION;
  if (!begin(devices)) return CL_INVALID_OPERATION;
  if (std::string why = refused_options(devices, options); !why.empty()) {
    refuse(devices, options, why);
    return CL_INVALID_COMPILER_OPTIONS;
  }
  backend::native::Headers header_sources;
  for (const auto& [name, program] : headers) header_sources.emplace_back(name, program->source());
  bool read_in_build = false;
  for (Device* d : devices) read_in_build |= d->backend().reads_kernels();
  std::atomic<bool> refused_by_vendor{false};
  backend::native::Description description;
  std::thread describe;
  if (!read_in_build)
    describe = std::thread(
        [&] { description = backend::native::describe(source_, options, header_sources); });
  std::mutex read_mutex;
  backend::native::Description read_in_compile;  // a device's compile that read the kernels
  for_each_device(devices, [&](Device* d) {
    DeviceBuild* b = build_for(d);
    std::vector<backend::CompileHeader> device_headers;
    for (const auto& [name, program] : headers)
      device_headers.push_back({name, program->source(), program->build_for(d)->program});
    std::vector<backend::KernelSignature> kernels;
    bool read = false;
    backend::BuildOutcome o = d->backend().compile(b->program, source_,
                                                   device_options(*d, options), device_headers,
                                                   kernels, read);
    if (read) {
      std::lock_guard lock(read_mutex);
      read_in_compile.parsed = true;
      read_in_compile.kernels = std::move(kernels);
    }
    b->log = std::move(o.log);
    b->status = o.ok ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
    if (o.invalid_options) refused_by_vendor = true;
    b->options = options;
    b->binary_type = b->status == CL_BUILD_SUCCESS ? CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
                                                   : CL_PROGRAM_BINARY_TYPE_NONE;
    if (b->status != CL_BUILD_SUCCESS) log::info("compile failed on ", d->label(), ":\n", b->log);
  });
  if (describe.joinable()) describe.join();
  end(std::move(read_in_build ? read_in_compile : description));
  if (refused_by_vendor) return CL_INVALID_COMPILER_OPTIONS;
  for (Device* d : devices)
    if (build_for(d)->status != CL_BUILD_SUCCESS) return CL_COMPILE_PROGRAM_FAILURE;
  return CL_SUCCESS;
}

Program* Program::link(Context* context, const std::vector<Device*>& devices,
                       const std::string& options, const std::vector<Program*>& inputs,
                       cl_int& err) {
  bool create_library = false;
  if (std::string why = refused_link_options(options, create_library); !why.empty()) {
    log::info("link options \"", options, "\" refused:\n", why);
    err = CL_INVALID_LINKER_OPTIONS;
    return nullptr;
  }
  // Per device: every input has a compiled object or library for it (it is
  // linked), or none has (it gets nothing).
  // (A binary type is only set by a successful compile, link or binary.)
  auto linkable = [](const DeviceBuild* b) {
    return b && (b->binary_type == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT ||
                 b->binary_type == CL_PROGRAM_BINARY_TYPE_LIBRARY);
  };
  std::vector<Device*> linked;
  for (Device* d : devices) {
    std::size_t with = 0;
    for (Program* in : inputs) with += linkable(in->build_for(d));
    if (with == inputs.size()) linked.push_back(d);
    else if (with != 0) {
      log::info("clLinkProgram: some inputs have a compiled object or library for ", d->label(),
                ", others not");
      err = CL_INVALID_OPERATION;
      return nullptr;
    }
  }
  auto* p = create<Program>(context, Linked{});
  for (Device* d : devices) {
    DeviceBuild b;
    b.device = d;
    b.options = options;
    p->builds_.push_back(std::move(b));
  }
  for_each_device(linked, [&](Device* d) {
    DeviceBuild* b = p->build_for(d);
    std::vector<const backend::DeviceProgram*> objects;
    for (Program* in : inputs) objects.push_back(&in->build_for(d)->program);
    backend::BuildOutcome o = d->backend().link(b->program, objects, options, create_library);
    b->log = std::move(o.log);
    b->status = o.ok ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
    b->binary_type = b->status != CL_BUILD_SUCCESS ? CL_PROGRAM_BINARY_TYPE_NONE
                     : create_library                ? CL_PROGRAM_BINARY_TYPE_LIBRARY
                                                     : CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
    if (b->status != CL_BUILD_SUCCESS) log::info("link failed on ", d->label(), ":\n", b->log);
  });
  // The linked kernels are the inputs' (the first input naming one wins).
  for (Program* in : inputs) {
    std::lock_guard lock(in->mutex_);
    for (const backend::KernelSignature& s : in->signatures_)
      if (std::none_of(p->signatures_.begin(), p->signatures_.end(),
                       [&](const backend::KernelSignature& t) { return t.name == s.name; }))
        p->signatures_.push_back(s);
  }
  err = CL_SUCCESS;
  for (Device* d : linked)
    if (p->build_for(d)->status != CL_BUILD_SUCCESS) err = CL_LINK_PROGRAM_FAILURE;
  return p;
}

const backend::KernelSignature* Program::signature(const std::string& kernel) const {
  std::lock_guard lock(mutex_);
  for (const auto& s : signatures_)
    if (s.name == kernel) return &s;
  return nullptr;
}

std::vector<std::string> Program::kernel_names() const {
  std::lock_guard lock(mutex_);
  for (const auto& b : builds_) {
    if (!b.executable()) continue;
    std::vector<std::string> names = b.device->backend().kernel_names(b.program);
    if (!names.empty()) return names;
  }
  return {};
}

std::vector<unsigned char> Program::binary(const DeviceBuild& b) const {
  return b.device->backend().binary(b.program);
}

}  // namespace parasol::core
