// Device entry points: Parasol devices answer with their vendor's values
// (its OpenCL version and that version's queries included), except where
// Parasol itself decides (platform, queue properties, parent device and
// reference count, the features it does not carry).
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
      // Host functions run where the device's traits say they can.
      return out.scalar(dev->worker().traits.runs_host_functions
                            ? cl_device_exec_capabilities{CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL}
                            : cl_device_exec_capabilities{CL_EXEC_KERNEL});
    case CL_DEVICE_PARENT_DEVICE:
      return out.scalar(dev->parent() ? dev->parent()->handle() : cl_device_id{nullptr});
    case CL_DEVICE_REFERENCE_COUNT:
      return out.scalar(dev->parent() ? dev->api_ref_count() : cl_uint{1});
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

// The partition is the device's vendor's (the native device's own): the
// same schemes, counts and errors.
cl_int CL_API_CALL clCreateSubDevices(cl_device_id in_device,
                                      const cl_device_partition_property* properties,
                                      cl_uint num_devices, cl_device_id* out_devices,
                                      cl_uint* num_devices_ret) {
  auto* dev = checked<Device>(in_device);
  PARASOL_REFUSE_IF(!dev, CL_INVALID_DEVICE, "not a Parasol device");
  PARASOL_REFUSE_IF(!properties || !properties[0], CL_INVALID_VALUE,
                    "properties names no partition scheme");
  std::vector<Device*> subs;
  const cl_int err = dev->partition(properties, subs);
  PARASOL_REFUSE_IF(err != CL_SUCCESS, err, dev->label(), " refuses partition scheme 0x",
                    std::hex, properties[0]);
  const bool room = !out_devices || num_devices >= subs.size();
  if (room && out_devices)
    for (std::size_t i = 0; i < subs.size(); ++i) out_devices[i] = subs[i]->handle();
  else
    for (Device* sub : subs) sub->release_api();  // counted only, or no room
  PARASOL_REFUSE_IF(!room, CL_INVALID_VALUE, "num_devices is ", num_devices, " but the scheme makes ",
                    subs.size(), " sub-devices");
  if (num_devices_ret) *num_devices_ret = static_cast<cl_uint>(subs.size());
  return CL_SUCCESS;
}

// Root devices are not reference counted; sub-devices are.
cl_int CL_API_CALL clRetainDevice(cl_device_id device) {
  auto* dev = checked<Device>(device);
  PARASOL_REFUSE_IF(!dev, CL_INVALID_DEVICE, "not a Parasol device");
  if (dev->parent()) dev->retain_api();
  return CL_SUCCESS;
}

cl_int CL_API_CALL clReleaseDevice(cl_device_id device) {
  auto* dev = checked<Device>(device);
  PARASOL_REFUSE_IF(!dev, CL_INVALID_DEVICE, "not a Parasol device");
  if (dev->parent()) dev->release_api();
  return CL_SUCCESS;
}

}  // namespace parasol::icd
