#include "backend/vendor_traits.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace parasol::backend {
namespace {

std::string platform_info(cl_platform_id platform, cl_platform_info param) {
  char text[512] = "";
  clGetPlatformInfo(platform, param, sizeof text - 1, text, nullptr);
  return text;
}

// PoCL's CPU drivers (pthread, basic) of releases 3 to 6 fail a command
// only through a failed dependency: their only failure is in the notify and
// submit paths, when a command it waits for failed (PoCL's sources, 3.1 to
// 6.0; 7.0 adds kernels that fail to compile or fail while running). An
// in-order queue's command waits for the one before it, so one failure
// fails those queued behind it then, but a command enqueued after it
// completed succeeds. Parasol gives a vendor nothing that can fail first:
// its wait lists name only its own commands on the same device, never a
// user event, and StarPU's queue has none either. So none of its commands
// there fails while running.
bool pocl_cpu_fails_only_through_dependencies(cl_platform_id platform, cl_device_id device) {
  cl_device_type type = 0;
  clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
  if (!(type & CL_DEVICE_TYPE_CPU)) return false;
  // "OpenCL 3.0 PoCL 3.1+debian  Linux, ..."
  const std::string version = platform_info(platform, CL_PLATFORM_VERSION);
  const std::size_t at = version.find("PoCL ");
  const int major = at == std::string::npos ? 0 : std::atoi(version.c_str() + at + 5);
  return major >= 3 && major <= 6;
}

}  // namespace

VendorTraits platform_traits(cl_platform_id platform) {
  VendorTraits t;
  t.thread_safe = platform_info(platform, CL_PLATFORM_NAME).rfind("Oclgrind", 0) != 0;
  t.direct_launch = t.thread_safe;
  return t;
}

VendorTraits device_traits(cl_platform_id platform, cl_device_id device) {
  VendorTraits t = platform_traits(platform);
  const std::string name = platform_info(platform, CL_PLATFORM_NAME);
  const bool pocl = name == "Portable Computing Language";
  t.later_events_carry_failures =
      name.rfind("NVIDIA", 0) == 0 ||
      (pocl && pocl_cpu_fails_only_through_dependencies(platform, device));
  return t;
}

}  // namespace parasol::backend
