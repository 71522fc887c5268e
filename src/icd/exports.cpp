// The only symbols Parasol's library exports: what an ICD loader looks up.
// Everything else is hidden, so Parasol's own calls to cl* functions always
// reach the loader (and through it the vendors), never Parasol itself.
#include "icd/api.h"

#define PARASOL_EXPORT extern "C" __attribute__((visibility("default")))

PARASOL_EXPORT cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                        cl_platform_id* platforms,
                                                        cl_uint* num_platforms) {
  // Called by the loader while it starts: only hands out the platform object,
  // never starts StarPU.
  if ((num_entries == 0 && platforms) || (!platforms && !num_platforms)) return CL_INVALID_VALUE;
  return parasol::icd::clGetPlatformIDs(num_entries, platforms, num_platforms);
}

PARASOL_EXPORT void* CL_API_CALL clGetExtensionFunctionAddress(const char* func_name) {
  return parasol::icd::clGetExtensionFunctionAddress(func_name);
}

PARASOL_EXPORT void* CL_API_CALL clGetExtensionFunctionAddressForPlatform(
    cl_platform_id platform, const char* func_name) {
  return parasol::icd::clGetExtensionFunctionAddressForPlatform(platform, func_name);
}
