// Parasol's extension entry points (include/CL/cl_parasol.h), reached
// through clGetExtensionFunctionAddressForPlatform.
#include "icd/extension_functions.h"

#include <CL/cl_parasol.h>

#include <cstring>

#include "core/device.h"
#include "core/kernel.h"
#include "icd/validate.h"
#include "runtime/device_stats.h"
#include "util/settings.h"

namespace parasol::icd {
namespace {

cl_int CL_API_CALL clGetDeviceStatsPARASOL(cl_device_id device, cl_parasol_device_stats* stats) {
  auto* d = checked<core::Device>(device);
  PARASOL_REFUSE_IF(!d, CL_INVALID_DEVICE, "not a Parasol device");
  PARASOL_REFUSE_IF(!stats, CL_INVALID_VALUE, "stats is null");
  *stats = runtime::device_stats(d->worker());
  return CL_SUCCESS;
}

cl_int CL_API_CALL clGetDevicePathsPARASOL(cl_device_id device, cl_parasol_device_paths* paths) {
  auto* d = checked<core::Device>(device);
  PARASOL_REFUSE_IF(!d, CL_INVALID_DEVICE, "not a Parasol device");
  PARASOL_REFUSE_IF(!paths, CL_INVALID_VALUE, "paths is null");
  *paths = runtime::device_paths(d->worker());
  return CL_SUCCESS;
}

cl_int CL_API_CALL clResetDeviceStatsPARASOL(cl_device_id device) {
  auto* d = checked<core::Device>(device);
  PARASOL_REFUSE_IF(!d, CL_INVALID_DEVICE, "not a Parasol device");
  runtime::reset_device_stats(d->worker());
  return CL_SUCCESS;
}

cl_int CL_API_CALL clSetKernelDivideFunctionPARASOL(cl_kernel kernel, cl_parasol_divide_fn fn,
                                                   cl_uint min_factor, cl_uint max_factor,
                                                   void* user_data) {
  auto* k = checked<core::Kernel>(kernel);
  PARASOL_REFUSE_IF(!k, CL_INVALID_KERNEL, "not a live Parasol kernel");
  PARASOL_REFUSE_IF(fn && (min_factor == 0 || min_factor > max_factor), CL_INVALID_VALUE,
                    "invalid partitioning-factor range [", min_factor, ", ", max_factor, "]");
  core::DivideFunction d;
  d.fn = fn;  // null removes the divide function
  d.min_factor = min_factor;
  d.max_factor = max_factor;
  d.user_data = user_data;
  k->set_divide_function(d);
  return CL_SUCCESS;
}

// SOCL's clShutdown (PARASOL_SOCL=1): SOCL programs call it last. Parasol
// shuts down at exit, after the program's last call, so there is nothing
// to do here.
void CL_API_CALL socl_shutdown() {}

}  // namespace

void* extension_function(const char* func_name) {
  if (settings::socl() && !std::strcmp(func_name, "clShutdown"))
    return reinterpret_cast<void*>(&socl_shutdown);
  struct Entry {
    const char* name;
    void* fn;
  };
  static const Entry entries[] = {
      {"clGetDeviceStatsPARASOL", reinterpret_cast<void*>(&clGetDeviceStatsPARASOL)},
      {"clGetDevicePathsPARASOL", reinterpret_cast<void*>(&clGetDevicePathsPARASOL)},
      {"clResetDeviceStatsPARASOL", reinterpret_cast<void*>(&clResetDeviceStatsPARASOL)},
      {"clSetKernelDivideFunctionPARASOL",
       reinterpret_cast<void*>(&clSetKernelDivideFunctionPARASOL)},
  };
  for (const auto& e : entries)
    if (!std::strcmp(e.name, func_name)) return e.fn;
  return nullptr;
}

}  // namespace parasol::icd
