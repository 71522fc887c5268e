// Device entry points: Parasol devices answer with their vendor's values
// (its OpenCL version and that version's queries included), except where
// Parasol itself decides (platform, queue properties, partitioning, the
// features it does not carry).
#include <CL/cl_parasol.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/platform.h"
#include "icd/api.h"
#include "util/info_out.h"
#include "icd/validate.h"

namespace parasol::icd {
namespace {

using core::Device;
using core::Platform;

constexpr cl_device_type kValidTypes = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU |
                                       CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR |
                                       CL_DEVICE_TYPE_CUSTOM;

}  // namespace

cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id platform, cl_device_type device_type,
                                  cl_uint num_entries, cl_device_id* devices,
                                  cl_uint* num_devices) {
  PARASOL_REFUSE_IF(platform && platform != Platform::instance().handle(), CL_INVALID_PLATFORM,
                    "not the Parasol platform");
  PARASOL_REFUSE_IF(device_type == 0 || (device_type != CL_DEVICE_TYPE_ALL && (device_type & ~kValidTypes)),
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
  switch (param_name) {
    case CL_DEVICE_PLATFORM: return out.scalar(Platform::instance().handle());
    case CL_DEVICE_IMAGE_SUPPORT: return out.scalar(cl_bool{dev->image_support()});
    case CL_DEVICE_QUEUE_PROPERTIES:
      // Parasol orders commands itself, so every device takes both.
      return out.scalar(cl_command_queue_properties{CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                                    CL_QUEUE_PROFILING_ENABLE});
    case CL_DEVICE_EXECUTION_CAPABILITIES:
      // Native kernels run on Parasol's own CPU device, not on a vendor's.
      return out.scalar(dev->worker().traits.runs_host_functions
                            ? cl_device_exec_capabilities{CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL}
                            : cl_device_exec_capabilities{CL_EXEC_KERNEL});
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
    default: break;
  }
  // The rest is the device's own answer: its vendor's, or the native
  // device's (backend/device_backend.h).
  const cl_int err = dev->backend().info(param_name, out, Platform::instance().handle());
  PARASOL_REFUSE_IF(err != CL_SUCCESS, err, dev->label(), " does not answer param_name 0x",
                    std::hex, param_name, " (or param_value_size is too small)");
  return CL_SUCCESS;
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
