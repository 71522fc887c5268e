#include "cluster/local_device_answers.h"

#include <CL/cl_parasol.h>

#include <array>

namespace parasol::cluster {
namespace {

// The queries asked of every device: each of these ranges whole (OpenCL's
// own, then the vendors' extensions'), so that a query rank 0's application
// makes has its answer there whatever its version; a query the device does
// not know is simply not answered.
constexpr std::array<std::pair<cl_device_info, cl_device_info>, 3> kQueryRanges{{
    {0x1000, 0x10FF},  // OpenCL 1.0 to 3.0
    {0x4000, 0x42FF},  // vendors' extensions (NVIDIA, AMD, Intel, ARM...)
    {CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL, CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL},
}};

// Answers that name this process's objects or state: rank 0 gives its own.
bool local_to_this_process(cl_device_info param) {
  return param == CL_DEVICE_PLATFORM || param == CL_DEVICE_PARENT_DEVICE ||
         param == CL_DEVICE_REFERENCE_COUNT;
}

// Parasol's platform is the one with Parasol's extension functions (its name
// changes under PARASOL_SOCL=1).
cl_platform_id parasol_platform() {
  cl_uint n = 0;
  if (clGetPlatformIDs(0, nullptr, &n) != CL_SUCCESS || n == 0) return nullptr;
  std::vector<cl_platform_id> platforms(n);
  clGetPlatformIDs(n, platforms.data(), nullptr);
  for (cl_platform_id p : platforms)
    if (clGetExtensionFunctionAddressForPlatform(p, "clGetDeviceStatsPARASOL")) return p;
  return nullptr;
}

backend::DeviceAnswers answers_of(cl_device_id device) {
  backend::DeviceAnswers d;
  for (const auto& [first, last] : kQueryRanges)
    for (cl_device_info param = first; param <= last; ++param) {
      if (local_to_this_process(param)) continue;
      std::size_t size = 0;
      if (clGetDeviceInfo(device, param, 0, nullptr, &size) != CL_SUCCESS) continue;
      std::vector<unsigned char> value(size);
      if (size && clGetDeviceInfo(device, param, size, value.data(), nullptr) != CL_SUCCESS)
        continue;
      d.answers.emplace_back(param, std::move(value));
    }
  return d;
}

}  // namespace

std::vector<cl_device_id> local_devices(std::string& why) {
  cl_platform_id platform = parasol_platform();
  if (!platform) {
    why = "the ICD loader shows no Parasol platform (is parasol.icd registered here?)";
    return {};
  }
  cl_uint n = 0;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) {
    why = "Parasol lists no device here";
    return {};
  }
  std::vector<cl_device_id> devices(n);
  clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, devices.data(), nullptr);
  return devices;
}

std::vector<backend::DeviceAnswers> local_device_answers(std::string& why) {
  std::vector<backend::DeviceAnswers> out;
  for (cl_device_id d : local_devices(why)) out.push_back(answers_of(d));
  return out;
}

}  // namespace parasol::cluster
