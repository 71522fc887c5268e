// Device entry points: Parasol devices answer with their vendor's values,
// except where Parasol itself decides (platform, queue properties, version
// capped at the 1.2 API Parasol implements, partitioning).
#include <CL/cl_parasol.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/platform.h"
#include "icd/api.h"
#include "icd/info_out.h"
#include "icd/native_device_info.h"
#include "icd/validate.h"

namespace parasol::icd {
namespace {

using core::Device;
using core::Platform;

constexpr cl_device_type kValidTypes = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU |
                                       CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR |
                                       CL_DEVICE_TYPE_CUSTOM;

std::string vendor_string(cl_device_id d, cl_device_info param) {
  size_t size = 0;
  if (::clGetDeviceInfo(d, param, 0, nullptr, &size) != CL_SUCCESS || !size) return {};
  std::vector<char> buf(size);
  ::clGetDeviceInfo(d, param, size, buf.data(), nullptr);
  return std::string(buf.data());
}

// "OpenCL 3.0 CUDA" -> "OpenCL 1.2 CUDA": Parasol offers the 1.2 API whatever
// the vendor offers.
std::string cap_version(std::string v, const char* prefix) {
  std::string p(prefix);
  if (v.compare(0, p.size(), p) != 0) return v;
  int major = 0, minor = 0;
  if (std::sscanf(v.c_str() + p.size(), "%d.%d", &major, &minor) != 2) return v;
  if (major > 1 || (major == 1 && minor > 2)) {
    auto rest = v.find(' ', p.size());
    return p + "1.2" + (rest == std::string::npos ? "" : v.substr(rest));
  }
  return v;
}

// Extensions that need API entry points Parasol does not forward.
std::string filter_extensions(const std::string& vendor) {
  static const char* const dropped[] = {"cl_khr_icd", "gl_sharing", "gl_event", "d3d", "dx9",
                                        "egl", "cl_khr_il_program", "cl_khr_image2d_from_buffer",
                                        "cl_khr_depth_images",
                                        "cl_khr_mipmap_image", "cl_khr_create_command_queue",
                                        "cl_khr_external", "cl_khr_semaphore",
                                        "cl_khr_command_buffer", "cl_khr_device_uuid",
                                        "cl_khr_pci_bus_info", "cl_intel_unified_shared_memory"};
  std::string out;
  size_t pos = 0;
  while (pos < vendor.size()) {
    size_t end = vendor.find(' ', pos);
    if (end == std::string::npos) end = vendor.size();
    std::string ext = vendor.substr(pos, end - pos);
    pos = end + 1;
    if (ext.empty()) continue;
    bool drop = false;
    for (const char* d : dropped) drop |= ext.find(d) != std::string::npos;
    if (drop) continue;
    out += ext + " ";
  }
  return out;
}

}  // namespace

cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id platform, cl_device_type device_type,
                                  cl_uint num_entries, cl_device_id* devices,
                                  cl_uint* num_devices) {
  PARASOL_REFUSE_IF(platform && platform != Platform::instance().handle(), CL_INVALID_PLATFORM,
                    "not the Parasol platform");
  PARASOL_REFUSE_IF(device_type != CL_DEVICE_TYPE_ALL && (device_type & ~kValidTypes),
                    CL_INVALID_DEVICE_TYPE, "invalid device type bits 0x", std::hex,
                    device_type);
  PARASOL_REFUSE_IF(num_entries == 0 && devices, CL_INVALID_VALUE,
                    "num_entries is 0 but devices is not null");
  PARASOL_REFUSE_IF(!devices && !num_devices, CL_INVALID_VALUE,
                    "devices and num_devices are both null");

  std::vector<Device*> found;
  auto all = Platform::instance().devices();
  for (Device* d : all)
    if (device_type == CL_DEVICE_TYPE_ALL || (device_type & ~CL_DEVICE_TYPE_DEFAULT & d->type()))
      found.push_back(d);
  // The default device is the first one found.
  if (device_type != CL_DEVICE_TYPE_ALL && (device_type & CL_DEVICE_TYPE_DEFAULT) &&
      !all.empty() && (found.empty() || found.front() != all.front()))
    found.insert(found.begin(), all.front());
  if (found.empty()) {
    if (num_devices) *num_devices = 0;
    return CL_DEVICE_NOT_FOUND;  // expected while StarPU itself enumerates
  }
  if (devices)
    for (cl_uint i = 0; i < num_entries && i < found.size(); ++i) devices[i] = found[i]->handle();
  if (num_devices) *num_devices = static_cast<cl_uint>(found.size());
  return CL_SUCCESS;
}

cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device, cl_device_info param_name,
                                   size_t param_value_size, void* param_value,
                                   size_t* param_value_size_ret) {
  auto* dev = checked<Device>(device);
  PARASOL_REFUSE_IF(!dev, CL_INVALID_DEVICE, "not a Parasol device");
  InfoOut out(param_value_size, param_value, param_value_size_ret);
  if (dev->is_native()) return native_device_info(*dev, param_name, out);
  cl_device_id v = dev->vendor();
  switch (param_name) {
    case CL_DEVICE_PLATFORM: return out.scalar(Platform::instance().handle());
    case CL_DEVICE_VERSION: return out.string(cap_version(vendor_string(v, param_name), "OpenCL "));
    case CL_DEVICE_OPENCL_C_VERSION:
      return out.string(cap_version(vendor_string(v, param_name), "OpenCL C "));
    case CL_DEVICE_EXTENSIONS: return out.string(filter_extensions(vendor_string(v, param_name)));
    case CL_DEVICE_IMAGE_SUPPORT: return out.scalar(cl_bool{dev->image_support()});
    case CL_DEVICE_QUEUE_PROPERTIES:
      // Parasol orders commands itself, so every device takes both.
      return out.scalar(cl_command_queue_properties{CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                                    CL_QUEUE_PROFILING_ENABLE});
    case CL_DEVICE_BUILT_IN_KERNELS: return out.string("");
    case CL_DEVICE_EXECUTION_CAPABILITIES:
      // Native kernels run on Parasol's own CPU device, not on a vendor's.
      return out.scalar(cl_device_exec_capabilities{CL_EXEC_KERNEL});
    case CL_DEVICE_PARENT_DEVICE: return out.scalar(cl_device_id{nullptr});
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES: return out.scalar(cl_uint{0});
    case CL_DEVICE_PARTITION_PROPERTIES: return out.scalar(cl_device_partition_property{0});
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
      return out.scalar(cl_device_affinity_domain{0});
    case CL_DEVICE_PARTITION_TYPE: return out.bytes(nullptr, 0);
    case CL_DEVICE_REFERENCE_COUNT: return out.scalar(cl_uint{1});
    // What StarPU may use there (its STARPU_LIMIT_OPENCL*_MEM limits included).
    case CL_DEVICE_GLOBAL_MEM_SIZE: return out.scalar(dev->global_mem_size());
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE: return out.scalar(dev->max_mem_alloc_size());
    case CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL: return out.string(dev->vendor_platform_name());
    case CL_DEVICE_VENDOR_PLATFORM_PARASOL: return out.scalar(dev->worker().platform);
    case CL_DEVICE_VENDOR_DEVICE_PARASOL: return out.scalar(v);
    default: break;
  }
  // OpenCL 2.0-3.0 queries: Parasol devices are 1.2 devices.
  PARASOL_REFUSE_IF(param_name >= 0x104C && param_name <= 0x10FF, CL_INVALID_VALUE,
                    "param_name 0x", std::hex, param_name, " is not an OpenCL 1.2 query");
  size_t size = 0;
  cl_int err = ::clGetDeviceInfo(v, param_name, 0, nullptr, &size);
  PARASOL_REFUSE_IF(err != CL_SUCCESS, err, "the vendor does not answer param_name 0x", std::hex,
                    param_name);
  std::vector<unsigned char> buf(size);
  err = ::clGetDeviceInfo(v, param_name, size, buf.data(), nullptr);
  if (err != CL_SUCCESS) return err;
  return out.bytes(buf.data(), size);
}

cl_int CL_API_CALL clCreateSubDevices(cl_device_id in_device,
                                      const cl_device_partition_property* properties,
                                      cl_uint, cl_device_id*, cl_uint*) {
  PARASOL_REFUSE_IF(!checked<Device>(in_device), CL_INVALID_DEVICE, "not a Parasol device");
  PARASOL_REFUSE_IF(!properties, CL_INVALID_VALUE, "properties is null");
  // CL_DEVICE_PARTITION_PROPERTIES lists no partition type.
  return refuse(__func__, CL_INVALID_VALUE, "Parasol devices cannot be partitioned");
}

cl_int CL_API_CALL clRetainDevice(cl_device_id device) {
  PARASOL_REFUSE_IF(!checked<Device>(device), CL_INVALID_DEVICE, "not a Parasol device");
  return CL_SUCCESS;  // root devices are not reference counted
}

cl_int CL_API_CALL clReleaseDevice(cl_device_id device) {
  PARASOL_REFUSE_IF(!checked<Device>(device), CL_INVALID_DEVICE, "not a Parasol device");
  return CL_SUCCESS;
}

}  // namespace parasol::icd
