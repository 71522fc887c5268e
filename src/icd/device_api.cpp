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

// A list of name-version pairs (CL_DEVICE_EXTENSIONS_WITH_VERSION,
// CL_DEVICE_OPENCL_C_FEATURES) without the entries Parasol does not offer.
std::vector<cl_name_version> vendor_name_versions(cl_device_id d, cl_device_info param,
                                                  bool (*dropped)(const std::string&)) {
  size_t size = 0;
  if (::clGetDeviceInfo(d, param, 0, nullptr, &size) != CL_SUCCESS) return {};
  std::vector<cl_name_version> list(size / sizeof(cl_name_version));
  if (size) ::clGetDeviceInfo(d, param, size, list.data(), nullptr);
  std::erase_if(list, [&](const cl_name_version& nv) { return dropped(nv.name); });
  return list;
}

// OpenCL C features that need runtime support Parasol does not offer.
bool dropped_feature(const std::string& feature) {
  return feature == "__opencl_c_pipes" || feature == "__opencl_c_device_enqueue" ||
         feature == "__opencl_c_subgroups";
}

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
  if (dev->is_native()) return native_device_info(*dev, param_name, out);
  cl_device_id v = dev->vendor();
  switch (param_name) {
    case CL_DEVICE_PLATFORM: return out.scalar(Platform::instance().handle());
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
  // A device answers the queries its vendor answers, 2.x and 3.0 ones
  // included (a 1.2 vendor refuses those: so does Parasol), but for the
  // features Parasol does not carry: shared virtual memory, pipes,
  // device-side enqueue, sub-groups, intermediate languages, non-uniform
  // work-groups, images made from buffers.
  size_t size = 0;
  cl_int err = ::clGetDeviceInfo(v, param_name, 0, nullptr, &size);
  PARASOL_REFUSE_IF(err != CL_SUCCESS, err, "the vendor does not answer param_name 0x", std::hex,
                    param_name);
  {
    switch (param_name) {
      case CL_DEVICE_SVM_CAPABILITIES: return out.scalar(cl_device_svm_capabilities{0});
      case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
        return out.scalar(cl_command_queue_properties{0});
      case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
      case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
      case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
      case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
      case CL_DEVICE_MAX_PIPE_ARGS:
      case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
      case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
      case CL_DEVICE_MAX_NUM_SUB_GROUPS:
      case CL_DEVICE_IMAGE_PITCH_ALIGNMENT:
      case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT: return out.scalar(cl_uint{0});
      case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
      case CL_DEVICE_PIPE_SUPPORT:
      case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT: return out.scalar(cl_bool{CL_FALSE});
      case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
        return out.scalar(cl_device_device_enqueue_capabilities{0});
      case CL_DEVICE_IL_VERSION: return out.string("");
      case CL_DEVICE_ILS_WITH_VERSION:
      case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION: return out.bytes(nullptr, 0);
      case CL_DEVICE_EXTENSIONS_WITH_VERSION: {
        auto list = vendor_name_versions(v, param_name, &dropped_extension);
        return out.bytes(list.data(), list.size() * sizeof(cl_name_version));
      }
      case CL_DEVICE_OPENCL_C_FEATURES: {
        auto list = vendor_name_versions(v, param_name, &dropped_feature);
        return out.bytes(list.data(), list.size() * sizeof(cl_name_version));
      }
      default: break;
    }
  }
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
