// Platform entry points and the ICD loader's way in.
#include <CL/cl_parasol.h>

#include <cstring>

#include "core/platform.h"
#include "icd/api.h"
#include "icd/extension_functions.h"
#include "util/info_out.h"
#include "icd/validate.h"
#include "parasol_version.h"
#include "util/settings.h"

namespace parasol::icd {
namespace {

using core::Platform;

constexpr const char* kExtensions = "cl_khr_icd " CL_PARASOL_EXTENSION_NAME;

bool is_parasol_platform(cl_platform_id p) { return p == Platform::instance().handle(); }

}  // namespace

cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries, cl_platform_id* platforms,
                                    cl_uint* num_platforms) {
  PARASOL_REFUSE_IF(num_entries == 0 && platforms, CL_INVALID_VALUE,
                    "num_entries is 0 but platforms is not null");
  PARASOL_REFUSE_IF(!platforms && !num_platforms, CL_INVALID_VALUE,
                    "platforms and num_platforms are both null");
  if (platforms) platforms[0] = Platform::instance().handle();
  if (num_platforms) *num_platforms = 1;
  return CL_SUCCESS;
}

cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform, cl_platform_info param_name,
                                     size_t param_value_size, void* param_value,
                                     size_t* param_value_size_ret) {
  PARASOL_REFUSE_IF(platform && !is_parasol_platform(platform), CL_INVALID_PLATFORM,
                    "not the Parasol platform");
  InfoOut out(param_value_size, param_value, param_value_size_ret);
  switch (param_name) {
    case CL_PLATFORM_PROFILE: return out.string("FULL_PROFILE");
    // The API Parasol implements; each device reports its vendor's version.
    case CL_PLATFORM_VERSION: return out.string("OpenCL 3.0 Parasol " PARASOL_VERSION);
    case CL_PLATFORM_NUMERIC_VERSION: return out.scalar(cl_version{CL_MAKE_VERSION(3, 0, 0)});
    case CL_PLATFORM_EXTENSIONS_WITH_VERSION: {
      const cl_name_version list[] = {{CL_MAKE_VERSION(1, 0, 0), "cl_khr_icd"},
                                      {CL_MAKE_VERSION(1, 0, 0), CL_PARASOL_EXTENSION_NAME}};
      return out.bytes(list, sizeof list);
    }
    // No device and host timer synchronisation (clGetHostTimer).
    case CL_PLATFORM_HOST_TIMER_RESOLUTION: return out.scalar(cl_ulong{0});
    // SOCL 1.3's own answers (socl/src/socl.c) under PARASOL_SOCL=1.
    case CL_PLATFORM_NAME: return out.string(settings::socl() ? "SOCL Platform" : "Parasol");
    case CL_PLATFORM_VENDOR: return out.string(settings::socl() ? "Inria" : "Parasol");
    case CL_PLATFORM_EXTENSIONS: return out.string(kExtensions);
    case CL_PLATFORM_ICD_SUFFIX_KHR: return out.string("Parasol");
    default:
      return refuse(__func__, CL_INVALID_VALUE, "unknown param_name 0x", std::hex, param_name);
  }
}

cl_int CL_API_CALL clUnloadCompiler() { return CL_SUCCESS; }

cl_int CL_API_CALL clUnloadPlatformCompiler(cl_platform_id platform) {
  PARASOL_REFUSE_IF(!is_parasol_platform(platform), CL_INVALID_PLATFORM,
                    "not the Parasol platform");
  return CL_SUCCESS;
}

void* CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                           const char* func_name) {
  if (!is_parasol_platform(platform) || !func_name) return nullptr;
  return clGetExtensionFunctionAddress(func_name);
}

void* CL_API_CALL clGetExtensionFunctionAddress(const char* func_name) {
  if (!func_name) return nullptr;
  if (!std::strcmp(func_name, "clIcdGetPlatformIDsKHR"))
    return reinterpret_cast<void*>(&clGetPlatformIDs);
  // The Khronos loader (and ocl-icd) ask for it while loading a vendor, and
  // drop a vendor that answers nothing.
  if (!std::strcmp(func_name, "clGetPlatformInfo"))
    return reinterpret_cast<void*>(&clGetPlatformInfo);
  return extension_function(func_name);
}

}  // namespace parasol::icd
