// Parasol's native CPU device: programs compiled by kernels-pass
// (native_compiler.h), kernels run on a StarPU CPU worker over main RAM,
// every query answered from what the device really offers (it has no vendor
// to ask).
#include <CL/cl_ext.h>
#include <CL/cl_parasol.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "backend/device_backend.h"
#include "backend/uncarried_features.h"
#include "parasol_version.h"

namespace parasol::backend::native {
namespace {

constexpr const char* kExtensions =
    "cl_khr_byte_addressable_store cl_khr_fp64 cl_khr_global_int32_base_atomics "
    "cl_khr_global_int32_extended_atomics cl_khr_local_int32_base_atomics "
    "cl_khr_local_int32_extended_atomics cl_khr_int64_base_atomics "
    "cl_khr_int64_extended_atomics cl_khr_3d_image_writes";

constexpr cl_version kVersion300 = CL_MAKE_VERSION(3, 0, 0);

cl_name_version name_version(const char* name, cl_version version) {
  cl_name_version nv{};
  nv.version = version;
  std::snprintf(nv.name, sizeof nv.name, "%s", name);
  return nv;
}

// The CPU's highest clock: cpufreq's, else (virtual machines often have no
// cpufreq) the largest "cpu MHz" /proc/cpuinfo lists.
cl_uint max_clock_mhz() {
  std::ifstream f("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  unsigned long khz = 0;
  if (f >> khz && khz) return static_cast<cl_uint>(khz / 1000);
  std::ifstream info("/proc/cpuinfo");
  double mhz = 0;
  for (std::string line; std::getline(info, line);)
    if (line.rfind("cpu MHz", 0) == 0)
      if (auto colon = line.find(':'); colon != std::string::npos)
        mhz = std::max(mhz, std::atof(line.c_str() + colon + 1));
  return static_cast<cl_uint>(mhz);
}

cl_ulong cache_bytes() {
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return l2 > 0 ? static_cast<cl_ulong>(l2) : 1024 * 1024;
}

class NativeDevice final : public DeviceBackend {
 public:
  NativeDevice();
  // A sub-device of compute_units compute units, made by `partition_type`
  // (its CL_DEVICE_PARTITION_TYPE, 0-terminated).
  NativeDevice(cl_uint compute_units, std::vector<cl_device_partition_property> partition_type);

  cl_int create_from_source(DeviceProgram&, const std::string&) const override {
    return CL_SUCCESS;  // compiled at build time
  }
  cl_int create_from_binary(DeviceProgram& program, std::span<const unsigned char> binary,
                            cl_program_binary_type& type, std::string& log) const override;
  cl_int create_from_built_ins(DeviceProgram&, const std::string&, cl_build_status&,
                               cl_program_binary_type&) const override {
    return CL_INVALID_VALUE;  // it has none
  }
  std::string built_in_kernels() const override { return {}; }
  BuildOutcome build(DeviceProgram& program, const std::string& source, bool from_source,
                     const std::string& options) const override;
  BuildOutcome compile(DeviceProgram& program, const std::string& source,
                       const std::string& options, std::span<const CompileHeader> headers,
                       std::vector<KernelSignature>& kernels, bool& read) const override;
  BuildOutcome link(DeviceProgram& out, std::span<const DeviceProgram* const> inputs,
                    const std::string& options, bool create_library) const override;
  std::vector<std::string> kernel_names(const DeviceProgram& program) const override {
    return native::kernel_names(*program.native);
  }
  std::vector<unsigned char> binary(const DeviceProgram& program) const override {
    if (!program.native_object.empty()) return program.native_object;
    return program.native ? native::binary(*program.native) : std::vector<unsigned char>{};
  }
  std::size_t global_variable_bytes(const DeviceProgram& program) const override {
    return program.native ? native::global_variable_bytes(*program.native) : 0;
  }
  bool reads_kernels() const override { return true; }
  std::string_view extra_options() const override { return {}; }
  DeviceKernel kernel(const DeviceProgram& program, const std::string& name,
                      cl_int& err) const override {
    DeviceKernel k{{}, find_kernel(program.native, name), {}};
    err = k.native ? CL_SUCCESS : CL_INVALID_KERNEL_NAME;
    return k;
  }
  std::vector<cl_image_format> image_formats(cl_mem_flags,
                                             cl_mem_object_type type) const override {
    return facts_.image_support ? native::image_formats(type) : std::vector<cl_image_format>{};
  }
  std::array<std::size_t, 3> image_max(cl_mem_object_type type) const override {
    return facts_.image_support ? native::image_max(type) : std::array<std::size_t, 3>{0, 0, 0};
  }
  bool has_vendor_extension(std::string_view) const override { return false; }
  cl_int info(cl_device_info param, InfoOut& out, cl_platform_id parasol) const override;
  cl_int partition(const cl_device_partition_property* properties,
                   std::vector<std::unique_ptr<DeviceBackend>>& out) const override;

 private:
  std::vector<cl_device_partition_property> partition_type_;  // empty for the root device
};

NativeDevice::NativeDevice() {
  facts_.type = CL_DEVICE_TYPE_CPU;
  facts_.compute_units = compute_units();  // its pool's threads
  facts_.name = "Parasol native CPU";
  facts_.vendor_platform_name = "Parasol";
  facts_.base_align_bits = 1024;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  facts_.global_mem = pages > 0 && page > 0 ? static_cast<cl_ulong>(pages) * page : (4ull << 30);
  facts_.max_alloc = facts_.global_mem / 4;
  facts_.image_support = native::image_support();
}

NativeDevice::NativeDevice(cl_uint compute_units,
                           std::vector<cl_device_partition_property> partition_type)
    : NativeDevice() {
  facts_.compute_units = compute_units;
  partition_type_ = std::move(partition_type);
}

// Equal parts and parts by counts, as a CPU device of its vendor offers;
// no affinity domains (one NUMA node is all the pool knows).
cl_int NativeDevice::partition(const cl_device_partition_property* properties,
                               std::vector<std::unique_ptr<DeviceBackend>>& out) const {
  const cl_uint units = facts_.compute_units;
  std::vector<cl_uint> parts;
  const cl_device_partition_property* end = properties + 1;
  switch (properties[0]) {
    case CL_DEVICE_PARTITION_EQUALLY: {
      if (properties[1] <= 0 || properties[1] > units) return CL_INVALID_VALUE;
      const auto each = static_cast<cl_uint>(properties[1]);
      parts.assign(units / each, each);
      end = properties + 2;
      break;
    }
    case CL_DEVICE_PARTITION_BY_COUNTS: {
      cl_ulong total = 0;
      for (end = properties + 1; *end != CL_DEVICE_PARTITION_BY_COUNTS_LIST_END; ++end) {
        if (*end < 0) return CL_INVALID_DEVICE_PARTITION_COUNT;
        parts.push_back(static_cast<cl_uint>(*end));
        total += static_cast<cl_ulong>(*end);
      }
      if (parts.empty()) return CL_INVALID_VALUE;
      if (parts.size() > units || total > units) return CL_INVALID_DEVICE_PARTITION_COUNT;
      ++end;  // the list's end
      break;
    }
    default: return CL_INVALID_VALUE;
  }
  if (*end != 0) return CL_INVALID_VALUE;  // one partition scheme per call
  std::vector<cl_device_partition_property> type(properties, end + 1);
  for (cl_uint n : parts) out.push_back(std::make_unique<NativeDevice>(n, type));
  return CL_SUCCESS;
}

cl_int NativeDevice::create_from_binary(DeviceProgram& program,
                                        std::span<const unsigned char> binary,
                                        cl_program_binary_type& type, std::string& log) const {
  switch (binary_kind(binary.data(), binary.size())) {
    case BinaryKind::Object:
      program.native_object.assign(binary.begin(), binary.end());
      type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
      return CL_SUCCESS;
    case BinaryKind::Library:
      program.native_object.assign(binary.begin(), binary.end());
      type = CL_PROGRAM_BINARY_TYPE_LIBRARY;
      return CL_SUCCESS;
    default:
      program.native = load_binary(binary.data(), binary.size(), log);
      type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
      return program.native ? CL_SUCCESS : CL_INVALID_BINARY;
  }
}

BuildOutcome NativeDevice::build(DeviceProgram& program, const std::string& source,
                                 bool from_source, const std::string& options) const {
  BuildOutcome o;
  // A program from source compiles at every build: its options, or the
  // headers it includes, may have changed since the last one (the
  // compiler's cache tells what is unchanged). One created from a binary is
  // already executable.
  if (from_source) program.native = native::build(source, options, o.log, o.invalid_options);
  program.native_object.clear();
  o.ok = program.native != nullptr;
  return o;
}

BuildOutcome NativeDevice::compile(DeviceProgram& program, const std::string& source,
                                   const std::string& options,
                                   std::span<const CompileHeader> headers,
                                   std::vector<KernelSignature>& kernels, bool& read) const {
  Headers sources;
  for (const CompileHeader& h : headers) sources.emplace_back(h.name, h.source);
  Compiled c = compile_object(source, options, sources);
  program.native.reset();
  program.native_object = std::move(c.object);
  read = !program.native_object.empty();
  kernels = std::move(c.kernels);
  return {read, c.invalid_options, std::move(c.log)};
}

BuildOutcome NativeDevice::link(DeviceProgram& out, std::span<const DeviceProgram* const> inputs,
                                const std::string&, bool create_library) const {
  std::vector<std::vector<unsigned char>> objects;
  for (const DeviceProgram* in : inputs) objects.push_back(in->native_object);
  Linked l = native::link(objects, create_library);
  out.native = std::move(l.program);
  out.native_object = std::move(l.library);
  return {out.native || !out.native_object.empty(), false, std::move(l.log)};
}

cl_int NativeDevice::info(cl_device_info param, InfoOut& out, cl_platform_id parasol) const {
  const size_t max_wg = max_work_group_size();
  const cl_device_fp_config fp = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST |
                                 CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_FMA;
  switch (param) {
    case CL_DEVICE_TYPE: return out.scalar(cl_device_type{CL_DEVICE_TYPE_CPU});
    case CL_DEVICE_VENDOR_ID: return out.scalar(cl_uint{0});
    case CL_DEVICE_MAX_COMPUTE_UNITS: return out.scalar(facts_.compute_units);
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES: return out.scalar(facts_.compute_units);
    case CL_DEVICE_PARTITION_PROPERTIES: {
      const cl_device_partition_property kinds[] = {CL_DEVICE_PARTITION_EQUALLY,
                                                    CL_DEVICE_PARTITION_BY_COUNTS};
      return out.bytes(kinds, sizeof kinds);
    }
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN: return out.scalar(cl_device_affinity_domain{0});
    case CL_DEVICE_PARTITION_TYPE:
      return out.bytes(partition_type_.data(),
                       partition_type_.size() * sizeof(cl_device_partition_property));
    case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: return out.scalar(cl_uint{3});
    case CL_DEVICE_MAX_WORK_ITEM_SIZES: return out.array(std::vector<size_t>{max_wg, max_wg, max_wg});
    case CL_DEVICE_MAX_WORK_GROUP_SIZE: return out.scalar(max_wg);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR: return out.scalar(cl_uint{16});
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT: return out.scalar(cl_uint{8});
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT: return out.scalar(cl_uint{4});
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE: return out.scalar(cl_uint{2});
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF: return out.scalar(cl_uint{0});
    case CL_DEVICE_MAX_CLOCK_FREQUENCY: return out.scalar(max_clock_mhz());
    case CL_DEVICE_ADDRESS_BITS: return out.scalar(cl_uint{64});
    // OpenCL 1.2's minimums for a device with images (its compiler has no
    // limit of its own on image and sampler arguments).
    case CL_DEVICE_MAX_READ_IMAGE_ARGS: return out.scalar(cl_uint{128});
    case CL_DEVICE_MAX_WRITE_IMAGE_ARGS: return out.scalar(cl_uint{64});
    case CL_DEVICE_MAX_SAMPLERS: return out.scalar(cl_uint{16});
    case CL_DEVICE_IMAGE2D_MAX_WIDTH: return out.scalar(image_max(CL_MEM_OBJECT_IMAGE2D)[0]);
    case CL_DEVICE_IMAGE2D_MAX_HEIGHT: return out.scalar(image_max(CL_MEM_OBJECT_IMAGE2D)[1]);
    case CL_DEVICE_IMAGE3D_MAX_WIDTH: return out.scalar(image_max(CL_MEM_OBJECT_IMAGE3D)[0]);
    case CL_DEVICE_IMAGE3D_MAX_HEIGHT: return out.scalar(image_max(CL_MEM_OBJECT_IMAGE3D)[1]);
    case CL_DEVICE_IMAGE3D_MAX_DEPTH: return out.scalar(image_max(CL_MEM_OBJECT_IMAGE3D)[2]);
    case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
      return out.scalar(image_max(CL_MEM_OBJECT_IMAGE1D_BUFFER)[0]);
    case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE:
      return out.scalar(image_max(CL_MEM_OBJECT_IMAGE2D_ARRAY)[2]);
    case CL_DEVICE_MAX_PARAMETER_SIZE: return out.scalar(size_t{1024});
    case CL_DEVICE_MEM_BASE_ADDR_ALIGN: return out.scalar(facts_.base_align_bits);
    case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: return out.scalar(cl_uint{128});
    case CL_DEVICE_SINGLE_FP_CONFIG:
    case CL_DEVICE_DOUBLE_FP_CONFIG: return out.scalar(fp);
    case CL_DEVICE_HALF_FP_CONFIG: return out.scalar(cl_device_fp_config{0});
    case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
      return out.scalar(cl_device_mem_cache_type{CL_READ_WRITE_CACHE});
    case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE: return out.scalar(cl_uint{64});
    case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: return out.scalar(cache_bytes());
    case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: return out.scalar(cl_ulong{1 << 20});
    case CL_DEVICE_MAX_CONSTANT_ARGS: return out.scalar(cl_uint{16});
    case CL_DEVICE_LOCAL_MEM_TYPE: return out.scalar(cl_device_local_mem_type{CL_GLOBAL});
    case CL_DEVICE_LOCAL_MEM_SIZE: return out.scalar(cl_ulong{kLocalMemBytes});
    case CL_DEVICE_ERROR_CORRECTION_SUPPORT: return out.scalar(cl_bool{CL_FALSE});
    case CL_DEVICE_HOST_UNIFIED_MEMORY: return out.scalar(cl_bool{CL_TRUE});
    case CL_DEVICE_PROFILING_TIMER_RESOLUTION: return out.scalar(size_t{1});
    case CL_DEVICE_ENDIAN_LITTLE:
    case CL_DEVICE_AVAILABLE:
    case CL_DEVICE_COMPILER_AVAILABLE: return out.scalar(cl_bool{CL_TRUE});
    case CL_DEVICE_LINKER_AVAILABLE: return out.scalar(cl_bool{CL_TRUE});
    case CL_DEVICE_NAME: return out.string(facts_.name);
    case CL_DEVICE_BUILT_IN_KERNELS: return out.string("");
    case CL_DEVICE_VENDOR: return out.string("Parasol");
    // The forms of OpenCL 1.2, 4.2: "major_number.minor_number",
    // "OpenCL<space><major.minor><space><vendor-specific information>" and
    // "OpenCL C<space><major.minor><space><vendor-specific information>".
    case CL_DRIVER_VERSION: return out.string(PARASOL_DRIVER_VERSION);
    case CL_DEVICE_PROFILE: return out.string("FULL_PROFILE");
    // OpenCL 3.0 with the optional features its compiler has; OpenCL C 1.2
    // is the newest version it supports whole (3.0's CL_DEVICE_OPENCL_C_VERSION).
    case CL_DEVICE_VERSION: return out.string("OpenCL 3.0 Parasol native " PARASOL_VERSION);
    case CL_DEVICE_OPENCL_C_VERSION: return out.string("OpenCL C 1.2 Parasol native");
    case CL_DEVICE_NUMERIC_VERSION: return out.scalar(kVersion300);
    case CL_DEVICE_OPENCL_C_ALL_VERSIONS: {
      const cl_name_version all[] = {name_version("OpenCL C", CL_MAKE_VERSION(1, 0, 0)),
                                     name_version("OpenCL C", CL_MAKE_VERSION(1, 1, 0)),
                                     name_version("OpenCL C", CL_MAKE_VERSION(1, 2, 0)),
                                     name_version("OpenCL C", kVersion300)};
      return out.bytes(all, sizeof all);
    }
    case CL_DEVICE_OPENCL_C_FEATURES: {
      std::vector<cl_name_version> list;
      for (const char* f : opencl_c_features()) list.push_back(name_version(f, kVersion300));
      return out.bytes(list.data(), list.size() * sizeof(cl_name_version));
    }
    case CL_DEVICE_EXTENSIONS_WITH_VERSION: {
      std::vector<cl_name_version> list;
      const std::string all = kExtensions;
      for (std::size_t at = 0; at < all.size();) {
        std::size_t end = std::min(all.find(' ', at), all.size());
        list.push_back(name_version(all.substr(at, end - at).c_str(), CL_MAKE_VERSION(1, 0, 0)));
        at = end + 1;
      }
      return out.bytes(list.data(), list.size() * sizeof(cl_name_version));
    }
    case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION: return out.bytes(nullptr, 0);
    case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED: return out.string("v0000-01-01-00");
    // What the features above need (OpenCL 3.0, 4.2's minimums).
    case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
      return out.scalar(cl_device_atomic_capabilities{
          CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
          CL_DEVICE_ATOMIC_ORDER_SEQ_CST | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
          CL_DEVICE_ATOMIC_SCOPE_DEVICE | CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES});
    case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
      return out.scalar(cl_device_atomic_capabilities{
          CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
          CL_DEVICE_ATOMIC_ORDER_SEQ_CST | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM |
          CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP | CL_DEVICE_ATOMIC_SCOPE_DEVICE |
          CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES});
    case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT: return out.scalar(cl_bool{CL_TRUE});
    case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE:
    case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE: return out.scalar(size_t{64 * 1024});
    case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS:
      return out.scalar(cl_uint{facts_.image_support ? 64u : 0u});
    case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: return out.scalar(size_t{1});
    // No preferred alignment for atomics; no work-group collective
    // functions (Parasol's other missing features: uncarried_features.h).
    case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT: return out.scalar(cl_uint{0});
    case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT: return out.scalar(cl_bool{CL_FALSE});
    case CL_DEVICE_EXTENSIONS: return out.string(kExtensions);
    case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC: return out.scalar(cl_bool{CL_TRUE});
    case CL_DEVICE_PRINTF_BUFFER_SIZE: return out.scalar(size_t{1 << 20});
    case CL_DEVICE_VENDOR_PLATFORM_PARASOL: return out.scalar(parasol);
    case CL_DEVICE_VENDOR_DEVICE_PARASOL: return out.scalar(cl_device_id{nullptr});
    default: {
      cl_int result = CL_INVALID_VALUE;  // not an OpenCL 3.0 query
      answer_uncarried(param, out, result);
      return result;
    }
  }
}

}  // namespace

std::unique_ptr<DeviceBackend> native_device() { return std::make_unique<NativeDevice>(); }

VendorTraits native_traits() {
  VendorTraits t;
  t.direct_launch = false;  // no vendor queue: StarPU's CPU worker runs its kernels
  t.own_memory = false;     // main RAM
  t.runs_host_functions = true;
  return t;
}

}  // namespace parasol::backend::native
