// Images and samplers: no Parasol device reports CL_DEVICE_IMAGE_SUPPORT, so
// these answer as the spec requires of a context without image support.
#include "core/context.h"
#include "icd/api.h"
#include "icd/validate.h"

namespace parasol::icd {

cl_int CL_API_CALL clGetSupportedImageFormats(cl_context context, cl_mem_flags, cl_mem_object_type,
                                              cl_uint num_entries, cl_image_format* image_formats,
                                              cl_uint* num_image_formats) {
  PARASOL_REFUSE_IF(!checked<core::Context>(context), CL_INVALID_CONTEXT,
                    "not a live Parasol context");
  PARASOL_REFUSE_IF(num_entries == 0 && image_formats, CL_INVALID_VALUE,
                    "num_entries is 0 but image_formats is not null");
  if (num_image_formats) *num_image_formats = 0;
  return CL_SUCCESS;
}

cl_int CL_API_CALL clGetImageInfo(cl_mem, cl_image_info, size_t, void*, size_t*) {
  return refuse(__func__, CL_INVALID_MEM_OBJECT, "Parasol has no image objects");
}

cl_sampler CL_API_CALL clCreateSampler(cl_context context, cl_bool, cl_addressing_mode,
                                       cl_filter_mode, cl_int* errcode_ret) {
  return produce<cl_sampler>(errcode_ret, [&]() -> Produced<cl_sampler> {
    PARASOL_REFUSE_IF(!checked<core::Context>(context), CL_INVALID_CONTEXT,
                      "not a live Parasol context");
    return refuse(__func__, CL_INVALID_OPERATION, "no device of the context supports images");
  });
}

cl_int CL_API_CALL clRetainSampler(cl_sampler) {
  return refuse(__func__, CL_INVALID_SAMPLER, "Parasol has no sampler objects");
}

cl_int CL_API_CALL clReleaseSampler(cl_sampler) {
  return refuse(__func__, CL_INVALID_SAMPLER, "Parasol has no sampler objects");
}

cl_int CL_API_CALL clGetSamplerInfo(cl_sampler, cl_sampler_info, size_t, void*, size_t*) {
  return refuse(__func__, CL_INVALID_SAMPLER, "Parasol has no sampler objects");
}

}  // namespace parasol::icd
