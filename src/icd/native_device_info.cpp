#include "icd/native_device_info.h"

#include <CL/cl_parasol.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "backend/native/native_compiler.h"
#include "core/platform.h"
#include "icd/validate.h"
#include "parasol_version.h"

namespace parasol::icd {
namespace {

constexpr const char* kExtensions =
    "cl_khr_byte_addressable_store cl_khr_fp64 cl_khr_global_int32_base_atomics "
    "cl_khr_global_int32_extended_atomics cl_khr_local_int32_base_atomics "
    "cl_khr_local_int32_extended_atomics cl_khr_int64_base_atomics "
    "cl_khr_int64_extended_atomics cl_khr_3d_image_writes";

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

}  // namespace

cl_int native_device_info(const core::Device& d, cl_device_info param, InfoOut& out) {
  const size_t max_wg = backend::native::max_work_group_size();
  const cl_device_fp_config fp = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST |
                                 CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_FMA;
  switch (param) {
    case CL_DEVICE_TYPE: return out.scalar(cl_device_type{CL_DEVICE_TYPE_CPU});
    case CL_DEVICE_VENDOR_ID: return out.scalar(cl_uint{0});
    case CL_DEVICE_MAX_COMPUTE_UNITS: return out.scalar(backend::native::compute_units());
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
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE: return out.scalar(d.max_mem_alloc_size());
    case CL_DEVICE_GLOBAL_MEM_SIZE: return out.scalar(d.global_mem_size());
    case CL_DEVICE_IMAGE_SUPPORT: return out.scalar(cl_bool{d.image_support()});
    // OpenCL 1.2's minimums for a device with images (its compiler has no
    // limit of its own on image and sampler arguments).
    case CL_DEVICE_MAX_READ_IMAGE_ARGS: return out.scalar(cl_uint{128});
    case CL_DEVICE_MAX_WRITE_IMAGE_ARGS: return out.scalar(cl_uint{64});
    case CL_DEVICE_MAX_SAMPLERS: return out.scalar(cl_uint{16});
    case CL_DEVICE_IMAGE2D_MAX_WIDTH: return out.scalar(d.image_max(CL_MEM_OBJECT_IMAGE2D)[0]);
    case CL_DEVICE_IMAGE2D_MAX_HEIGHT: return out.scalar(d.image_max(CL_MEM_OBJECT_IMAGE2D)[1]);
    case CL_DEVICE_IMAGE3D_MAX_WIDTH: return out.scalar(d.image_max(CL_MEM_OBJECT_IMAGE3D)[0]);
    case CL_DEVICE_IMAGE3D_MAX_HEIGHT: return out.scalar(d.image_max(CL_MEM_OBJECT_IMAGE3D)[1]);
    case CL_DEVICE_IMAGE3D_MAX_DEPTH: return out.scalar(d.image_max(CL_MEM_OBJECT_IMAGE3D)[2]);
    case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
      return out.scalar(d.image_max(CL_MEM_OBJECT_IMAGE1D_BUFFER)[0]);
    case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE:
      return out.scalar(d.image_max(CL_MEM_OBJECT_IMAGE2D_ARRAY)[2]);
    case CL_DEVICE_MAX_PARAMETER_SIZE: return out.scalar(size_t{1024});
    case CL_DEVICE_MEM_BASE_ADDR_ALIGN: return out.scalar(d.mem_base_addr_align_bits());
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
    case CL_DEVICE_LOCAL_MEM_SIZE: return out.scalar(cl_ulong{backend::native::kLocalMemBytes});
    case CL_DEVICE_ERROR_CORRECTION_SUPPORT: return out.scalar(cl_bool{CL_FALSE});
    case CL_DEVICE_HOST_UNIFIED_MEMORY: return out.scalar(cl_bool{CL_TRUE});
    case CL_DEVICE_PROFILING_TIMER_RESOLUTION: return out.scalar(size_t{1});
    case CL_DEVICE_ENDIAN_LITTLE:
    case CL_DEVICE_AVAILABLE:
    case CL_DEVICE_COMPILER_AVAILABLE: return out.scalar(cl_bool{CL_TRUE});
    case CL_DEVICE_LINKER_AVAILABLE: return out.scalar(cl_bool{CL_TRUE});
    case CL_DEVICE_EXECUTION_CAPABILITIES:
      return out.scalar(cl_device_exec_capabilities{CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL});
    case CL_DEVICE_QUEUE_PROPERTIES:
      return out.scalar(cl_command_queue_properties{CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                                    CL_QUEUE_PROFILING_ENABLE});
    case CL_DEVICE_PLATFORM: return out.scalar(core::Platform::instance().handle());
    case CL_DEVICE_NAME: return out.string(d.name());
    case CL_DEVICE_VENDOR: return out.string("Parasol");
    // The forms of OpenCL 1.2, 4.2: "major_number.minor_number",
    // "OpenCL<space><major.minor><space><vendor-specific information>" and
    // "OpenCL C<space><major.minor><space><vendor-specific information>".
    case CL_DRIVER_VERSION: return out.string(PARASOL_DRIVER_VERSION);
    case CL_DEVICE_PROFILE: return out.string("FULL_PROFILE");
    case CL_DEVICE_VERSION: return out.string("OpenCL 1.2 Parasol native " PARASOL_VERSION);
    case CL_DEVICE_OPENCL_C_VERSION: return out.string("OpenCL C 1.2 Parasol native");
    case CL_DEVICE_EXTENSIONS: return out.string(kExtensions);
    case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC: return out.scalar(cl_bool{CL_TRUE});
    case CL_DEVICE_PRINTF_BUFFER_SIZE: return out.scalar(size_t{1 << 20});
    case CL_DEVICE_BUILT_IN_KERNELS: return out.string("");
    case CL_DEVICE_PARENT_DEVICE: return out.scalar(cl_device_id{nullptr});
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES: return out.scalar(cl_uint{0});
    case CL_DEVICE_PARTITION_PROPERTIES: return out.scalar(cl_device_partition_property{0});
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN: return out.scalar(cl_device_affinity_domain{0});
    case CL_DEVICE_PARTITION_TYPE: return out.bytes(nullptr, 0);
    case CL_DEVICE_REFERENCE_COUNT: return out.scalar(cl_uint{1});
    case CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL: return out.string("Parasol");
    case CL_DEVICE_VENDOR_PLATFORM_PARASOL: return out.scalar(core::Platform::instance().handle());
    case CL_DEVICE_VENDOR_DEVICE_PARASOL: return out.scalar(cl_device_id{nullptr});
    default:
      return refuse("clGetDeviceInfo", CL_INVALID_VALUE, "param_name 0x", std::hex, param,
                    " is not an OpenCL 1.2 query");
  }
}

}  // namespace parasol::icd
