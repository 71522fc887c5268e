// A vendor's device re-exported: every answer is its vendor's, through the
// StarPU OpenCL worker's context, under the vendor's lock where its runtime
// needs one (vendor_lock.h).
#include <CL/cl_parasol.h>
#include <starpu.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backend/device_backend.h"
#include "backend/uncarried_features.h"
#include "util/name_list.h"

namespace parasol::backend {
namespace {

// A string query of the vendor's (clGetDeviceInfo, clGetPlatformInfo, ...):
// empty when it does not answer.
template <typename Object, typename Param>
std::string vendor_string(cl_int (*query)(Object, Param, size_t, void*, size_t*), Object object,
                          Param param) {
  size_t size = 0;
  if (query(object, param, 0, nullptr, &size) != CL_SUCCESS || !size) return {};
  std::vector<char> buf(size);
  if (query(object, param, size, buf.data(), nullptr) != CL_SUCCESS) return {};
  return std::string(buf.data());
}

std::string device_string(cl_device_id d, cl_device_info param) {
  return vendor_string(&clGetDeviceInfo, d, param);
}

std::string build_log(cl_program p, cl_device_id d) {
  size_t size = 0;
  if (clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS || !size)
    return {};
  std::string log(size, '\0');
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// Extensions that need API entry points Parasol does not forward.
bool dropped_extension(const std::string& ext) {
  static const char* const dropped[] = {"cl_khr_icd", "gl_sharing", "gl_event", "d3d", "dx9",
                                        "egl", "cl_khr_il_program", "cl_khr_image2d_from_buffer",
                                        "cl_khr_depth_images",
                                        "cl_khr_mipmap_image", "cl_khr_create_command_queue",
                                        "cl_khr_external", "cl_khr_semaphore",
                                        "cl_khr_command_buffer", "cl_khr_device_uuid",
                                        "cl_khr_pci_bus_info", "cl_intel_unified_shared_memory",
                                        "subgroup"};
  for (const char* d : dropped)
    if (ext.find(d) != std::string::npos) return true;
  return false;
}

std::string filter_extensions(const std::string& vendor) {
  std::string out;
  size_t pos = 0;
  while (pos < vendor.size()) {
    size_t end = vendor.find(' ', pos);
    if (end == std::string::npos) end = vendor.size();
    std::string ext = vendor.substr(pos, end - pos);
    pos = end + 1;
    if (!ext.empty() && !dropped_extension(ext)) out += ext + " ";
  }
  return out;
}

// OpenCL C features that need runtime support Parasol does not offer.
bool dropped_feature(const std::string& feature) {
  return feature == "__opencl_c_pipes" || feature == "__opencl_c_device_enqueue" ||
         feature == "__opencl_c_subgroups";
}

// A list of name-version pairs (CL_DEVICE_EXTENSIONS_WITH_VERSION,
// CL_DEVICE_OPENCL_C_FEATURES) without the entries Parasol does not offer.
std::vector<cl_name_version> name_versions(cl_device_id d, cl_device_info param,
                                           bool (*dropped)(const std::string&)) {
  size_t size = 0;
  if (clGetDeviceInfo(d, param, 0, nullptr, &size) != CL_SUCCESS) return {};
  std::vector<cl_name_version> list(size / sizeof(cl_name_version));
  if (size) clGetDeviceInfo(d, param, size, list.data(), nullptr);
  std::erase_if(list, [&](const cl_name_version& nv) { return dropped(nv.name); });
  return list;
}

class VendorDevice final : public DeviceBackend {
 public:
  explicit VendorDevice(const VendorWorker& worker);
  // A sub-device `sub` of worker's device: the queries are sub's, the
  // programs and kernels worker's device's (which runs its commands).
  VendorDevice(const VendorWorker& worker, VendorSubDevice sub);

  cl_int create_from_source(DeviceProgram& program, const std::string& source) const override;
  cl_int create_from_binary(DeviceProgram& program, std::span<const unsigned char> binary,
                            cl_program_binary_type& type, std::string& log) const override;
  cl_int create_from_built_ins(DeviceProgram& program, const std::string& names,
                               cl_build_status& status,
                               cl_program_binary_type& type) const override;
  std::string built_in_kernels() const override {
    return device_string(worker_.device, CL_DEVICE_BUILT_IN_KERNELS);
  }
  BuildOutcome build(DeviceProgram& program, const std::string& source, bool from_source,
                     const std::string& options) const override;
  BuildOutcome compile(DeviceProgram& program, const std::string& source,
                       const std::string& options, std::span<const CompileHeader> headers,
                       std::vector<KernelSignature>& kernels, bool& read) const override;
  BuildOutcome link(DeviceProgram& out, std::span<const DeviceProgram* const> inputs,
                    const std::string& options, bool create_library) const override;
  std::vector<std::string> kernel_names(const DeviceProgram& program) const override;
  std::vector<unsigned char> binary(const DeviceProgram& program) const override;
  // The vendor's (OpenCL 2.0 devices; 0 for the others).
  std::size_t global_variable_bytes(const DeviceProgram& program) const override {
    std::size_t total = 0;
    if (program.vendor)
      clGetProgramBuildInfo(program.vendor.get(), worker_.device,
                            CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE, sizeof total, &total,
                            nullptr);
    return total;
  }
  bool reads_kernels() const override { return false; }
  // Without Parasol's own front end the vendors are asked for the kernels'
  // argument information, which they keep only when the build asks for it.
  std::string_view extra_options() const override {
    return native::has_compiler() ? std::string_view() : std::string_view(" -cl-kernel-arg-info");
  }
  DeviceKernel kernel(const DeviceProgram& program, const std::string& name,
                      cl_int& err) const override;
  std::vector<cl_image_format> image_formats(cl_mem_flags flags,
                                             cl_mem_object_type type) const override;
  std::array<std::size_t, 3> image_max(cl_mem_object_type type) const override;
  bool has_vendor_extension(std::string_view name) const override;
  cl_int info(cl_device_info param, InfoOut& out, cl_platform_id parasol) const override;
  cl_int partition(const cl_device_partition_property* properties,
                   std::vector<std::unique_ptr<DeviceBackend>>& out) const override;

 private:
  // The vendor device the queries ask: worker_'s, or a sub-device of it.
  cl_device_id answering() const { return sub_ ? sub_.get() : worker_.device; }

  const VendorWorker worker_;
  const VendorSubDevice sub_;
};

VendorDevice::VendorDevice(const VendorWorker& worker) : VendorDevice(worker, VendorSubDevice()) {}

VendorDevice::VendorDevice(const VendorWorker& worker, VendorSubDevice sub)
    : worker_(worker), sub_(std::move(sub)) {
  const cl_device_id d = answering();
  clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof facts_.type, &facts_.type, nullptr);
  clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof facts_.compute_units,
                  &facts_.compute_units, nullptr);
  clGetDeviceInfo(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof facts_.base_align_bits,
                  &facts_.base_align_bits, nullptr);
  clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof facts_.max_alloc, &facts_.max_alloc,
                  nullptr);
  clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof facts_.global_mem, &facts_.global_mem,
                  nullptr);
  // StarPU's memory manager never allocates past its own limit on the node:
  // a larger buffer (or command) would wait for room forever.
  starpu_ssize_t starpu_total = starpu_memory_get_total(worker_.memory_node);
  if (starpu_total > 0) {
    facts_.global_mem = std::min<cl_ulong>(facts_.global_mem, static_cast<cl_ulong>(starpu_total));
    facts_.max_alloc = std::min(facts_.max_alloc, facts_.global_mem);
  }
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(d, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  facts_.image_support = images == CL_TRUE;
  facts_.name = device_string(d, CL_DEVICE_NAME);
  facts_.vendor_platform_name = vendor_string(&clGetPlatformInfo, worker_.platform,
                                              cl_platform_info{CL_PLATFORM_NAME});
}

cl_int VendorDevice::create_from_source(DeviceProgram& program, const std::string& source) const {
  const char* text = source.c_str();
  const size_t length = source.size();
  cl_int err = CL_SUCCESS;
  VendorLock lock = lock_vendor(worker_);
  program.vendor.set_platform(worker_.platform);
  program.vendor.reset(clCreateProgramWithSource(worker_.context, 1, &text, &length, &err));
  return err;
}

cl_int VendorDevice::create_from_binary(DeviceProgram& program,
                                        std::span<const unsigned char> binary,
                                        cl_program_binary_type& type, std::string&) const {
  cl_device_id d = worker_.device;
  const unsigned char* bytes = binary.data();
  size_t size = binary.size();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  VendorLock lock = lock_vendor(worker_);
  program.vendor.set_platform(worker_.platform);
  program.vendor.reset(
      clCreateProgramWithBinary(worker_.context, 1, &d, &size, &bytes, &status, &err));
  if (err != CL_SUCCESS || status != CL_SUCCESS) return CL_INVALID_BINARY;
  // The vendor tells an executable from a compiled object or a library.
  if (clGetProgramBuildInfo(program.vendor.get(), d, CL_PROGRAM_BINARY_TYPE, sizeof type, &type,
                            nullptr) != CL_SUCCESS)
    type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
  return CL_SUCCESS;
}

cl_int VendorDevice::create_from_built_ins(DeviceProgram& program, const std::string& names,
                                           cl_build_status& status,
                                           cl_program_binary_type& type) const {
  cl_device_id d = worker_.device;
  cl_int err = CL_SUCCESS;
  VendorLock lock = lock_vendor(worker_);
  program.vendor.set_platform(worker_.platform);
  program.vendor.reset(
      clCreateProgramWithBuiltInKernels(worker_.context, 1, &d, names.c_str(), &err));
  if (err != CL_SUCCESS) return err;
  status = CL_BUILD_NONE;
  type = CL_PROGRAM_BINARY_TYPE_NONE;
  clGetProgramBuildInfo(program.vendor.get(), d, CL_PROGRAM_BUILD_STATUS, sizeof status, &status,
                        nullptr);
  clGetProgramBuildInfo(program.vendor.get(), d, CL_PROGRAM_BINARY_TYPE, sizeof type, &type,
                        nullptr);
  return CL_SUCCESS;
}

BuildOutcome VendorDevice::build(DeviceProgram& program, const std::string&, bool,
                                 const std::string& options) const {
  cl_device_id d = worker_.device;
  VendorLock lock = lock_vendor(worker_);
  cl_int e = clBuildProgram(program.vendor.get(), 1, &d, options.c_str(), nullptr, nullptr);
  return {e == CL_SUCCESS, e == CL_INVALID_BUILD_OPTIONS, build_log(program.vendor.get(), d)};
}

BuildOutcome VendorDevice::compile(DeviceProgram& program, const std::string&,
                                   const std::string& options,
                                   std::span<const CompileHeader> headers,
                                   std::vector<KernelSignature>&, bool& read) const {
  read = false;
  std::vector<cl_program> header_programs;
  std::vector<const char*> include_names;
  for (const CompileHeader& h : headers) {
    header_programs.push_back(h.program.vendor.get());
    include_names.push_back(h.name.c_str());
  }
  cl_device_id d = worker_.device;
  VendorLock lock = lock_vendor(worker_);
  cl_int e = clCompileProgram(program.vendor.get(), 1, &d, options.c_str(),
                              static_cast<cl_uint>(header_programs.size()),
                              header_programs.empty() ? nullptr : header_programs.data(),
                              include_names.empty() ? nullptr : include_names.data(), nullptr,
                              nullptr);
  return {e == CL_SUCCESS, e == CL_INVALID_COMPILER_OPTIONS || e == CL_INVALID_BUILD_OPTIONS,
          build_log(program.vendor.get(), d)};
}

BuildOutcome VendorDevice::link(DeviceProgram& out, std::span<const DeviceProgram* const> inputs,
                                const std::string& options, bool) const {
  std::vector<cl_program> programs;
  for (const DeviceProgram* in : inputs) programs.push_back(in->vendor.get());
  cl_device_id d = worker_.device;
  VendorLock lock = lock_vendor(worker_);
  cl_int e = CL_SUCCESS;
  out.vendor.set_platform(worker_.platform);
  out.vendor.reset(clLinkProgram(worker_.context, 1, &d, options.c_str(),
                                 static_cast<cl_uint>(programs.size()), programs.data(), nullptr,
                                 nullptr, &e));
  if (!out.vendor)
    return {false, false,
            "error: the vendor's clLinkProgram failed (error " + std::to_string(e) + ")"};
  return {e == CL_SUCCESS, false, build_log(out.vendor.get(), d)};
}

std::vector<std::string> VendorDevice::kernel_names(const DeviceProgram& program) const {
  VendorLock lock = lock_vendor(worker_);
  size_t size = 0;
  if (clGetProgramInfo(program.vendor.get(), CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size) !=
      CL_SUCCESS)
    return {};
  std::string names(size, '\0');
  clGetProgramInfo(program.vendor.get(), CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr);
  return split_names(names);
}

std::vector<unsigned char> VendorDevice::binary(const DeviceProgram& program) const {
  size_t size = 0;
  if (!program.vendor ||
      clGetProgramInfo(program.vendor.get(), CL_PROGRAM_BINARY_SIZES, sizeof size, &size,
                       nullptr) != CL_SUCCESS)
    return {};
  std::vector<unsigned char> bin(size);
  unsigned char* one[1] = {bin.data()};
  if (size) clGetProgramInfo(program.vendor.get(), CL_PROGRAM_BINARIES, sizeof one, one, nullptr);
  return bin;
}

DeviceKernel VendorDevice::kernel(const DeviceProgram& program, const std::string& name,
                                  cl_int& err) const {
  VendorLock lock = lock_vendor(worker_);
  err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program.vendor.get(), name.c_str(), &err);
  if (err != CL_SUCCESS) return {};
  return {VendorKernel(k, worker_.platform), nullptr, nullptr};
}

std::vector<cl_image_format> VendorDevice::image_formats(cl_mem_flags flags,
                                                         cl_mem_object_type type) const {
  if (!facts_.image_support) return {};
  cl_uint n = 0;
  if (clGetSupportedImageFormats(worker_.context, flags, type, 0, nullptr, &n) != CL_SUCCESS || !n)
    return {};
  std::vector<cl_image_format> formats(n);
  if (clGetSupportedImageFormats(worker_.context, flags, type, n, formats.data(), nullptr) !=
      CL_SUCCESS)
    return {};
  return formats;
}

std::array<std::size_t, 3> VendorDevice::image_max(cl_mem_object_type type) const {
  if (!facts_.image_support) return {0, 0, 0};
  auto get = [this](cl_device_info what) {
    std::size_t v = 0;
    clGetDeviceInfo(worker_.device, what, sizeof v, &v, nullptr);
    return v;
  };
  switch (type) {
    case CL_MEM_OBJECT_IMAGE1D_BUFFER: return {get(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE), 1, 1};
    case CL_MEM_OBJECT_IMAGE1D: return {get(CL_DEVICE_IMAGE2D_MAX_WIDTH), 1, 1};
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
      return {get(CL_DEVICE_IMAGE2D_MAX_WIDTH), get(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE), 1};
    case CL_MEM_OBJECT_IMAGE2D:
      return {get(CL_DEVICE_IMAGE2D_MAX_WIDTH), get(CL_DEVICE_IMAGE2D_MAX_HEIGHT), 1};
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      return {get(CL_DEVICE_IMAGE2D_MAX_WIDTH), get(CL_DEVICE_IMAGE2D_MAX_HEIGHT),
              get(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE)};
    case CL_MEM_OBJECT_IMAGE3D:
      return {get(CL_DEVICE_IMAGE3D_MAX_WIDTH), get(CL_DEVICE_IMAGE3D_MAX_HEIGHT),
              get(CL_DEVICE_IMAGE3D_MAX_DEPTH)};
    default: return {0, 0, 0};
  }
}

bool VendorDevice::has_vendor_extension(std::string_view name) const {
  const std::string list = device_string(worker_.device, CL_DEVICE_EXTENSIONS);
  for (std::size_t at = 0; (at = list.find(name, at)) != std::string::npos; at += name.size()) {
    const std::size_t end = at + name.size();
    if ((at == 0 || list[at - 1] == ' ') && (end == list.size() || list[end] == ' ')) return true;
  }
  return false;
}

cl_int VendorDevice::info(cl_device_info param, InfoOut& out, cl_platform_id) const {
  const cl_device_id v = answering();
  switch (param) {
    case CL_DEVICE_EXTENSIONS:
      return out.string(filter_extensions(device_string(v, CL_DEVICE_EXTENSIONS)));
    case CL_DEVICE_VENDOR_PLATFORM_PARASOL: return out.scalar(worker_.platform);
    case CL_DEVICE_VENDOR_DEVICE_PARASOL: return out.scalar(v);
    default: break;
  }
  // The queries its vendor answers, 2.x and 3.0 ones included (a 1.2
  // vendor refuses those: so does Parasol), but for the features Parasol
  // does not carry: shared virtual memory, pipes, device-side enqueue,
  // sub-groups, intermediate languages, non-uniform work-groups, images
  // made from buffers.
  size_t size = 0;
  if (cl_int err = clGetDeviceInfo(v, param, 0, nullptr, &size); err != CL_SUCCESS) return err;
  if (cl_int result = CL_SUCCESS; answer_uncarried(param, out, result)) return result;
  switch (param) {
    case CL_DEVICE_EXTENSIONS_WITH_VERSION: {
      auto list = name_versions(v, param, &dropped_extension);
      return out.bytes(list.data(), list.size() * sizeof(cl_name_version));
    }
    case CL_DEVICE_OPENCL_C_FEATURES: {
      auto list = name_versions(v, param, &dropped_feature);
      return out.bytes(list.data(), list.size() * sizeof(cl_name_version));
    }
    default: break;
  }
  std::vector<unsigned char> buf(size);
  if (cl_int err = clGetDeviceInfo(v, param, size, buf.data(), nullptr); err != CL_SUCCESS)
    return err;
  return out.bytes(buf.data(), size);
}

cl_int VendorDevice::partition(const cl_device_partition_property* properties,
                               std::vector<std::unique_ptr<DeviceBackend>>& out) const {
  VendorLock lock = lock_vendor(worker_);
  cl_uint count = 0;
  if (cl_int err = clCreateSubDevices(answering(), properties, 0, nullptr, &count); err)
    return err;
  std::vector<cl_device_id> subs(count);
  if (cl_int err = clCreateSubDevices(answering(), properties, count, subs.data(), nullptr); err)
    return err;
  if (lock.owns_lock()) lock.unlock();  // thread-safe vendors give an empty lock
  for (cl_device_id sub : subs)
    out.push_back(std::make_unique<VendorDevice>(worker_, VendorSubDevice(sub, worker_.platform)));
  return CL_SUCCESS;
}

}  // namespace

std::unique_ptr<DeviceBackend> vendor_device(const VendorWorker& worker) {
  return std::make_unique<VendorDevice>(worker);
}

}  // namespace parasol::backend
