#include "core/image.h"

namespace parasol::core {

std::size_t element_size(const cl_image_format& format) {
  const cl_channel_type t = format.image_channel_data_type;
  std::size_t channel = 0;
  switch (t) {
    case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8:
      channel = 1; break;
    case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT:
      channel = 2; break;
    case CL_SIGNED_INT32: case CL_UNSIGNED_INT32: case CL_FLOAT:
      channel = 4; break;
    case CL_UNORM_SHORT_565: case CL_UNORM_SHORT_555: case CL_UNORM_INT_101010:
      break;  // packed: the whole pixel, below
    default: return 0;
  }
  const bool packed = channel == 0;
  const bool eight_bit = channel == 1;
  const bool normalized_or_float = t == CL_SNORM_INT8 || t == CL_UNORM_INT8 || t == CL_SNORM_INT16 ||
                                   t == CL_UNORM_INT16 || t == CL_HALF_FLOAT || t == CL_FLOAT;
  switch (format.image_channel_order) {
    case CL_R: case CL_A: case CL_Rx:
      return packed ? 0 : channel;
    case CL_INTENSITY: case CL_LUMINANCE:
      return normalized_or_float ? channel : 0;
    case CL_RG: case CL_RA: case CL_RGx:
      return packed ? 0 : 2 * channel;
    case CL_RGB: case CL_RGBx:
      return t == CL_UNORM_INT_101010 ? 4 : packed ? 2 : 0;
    case CL_RGBA:
      return packed ? 0 : 4 * channel;
    case CL_BGRA: case CL_ARGB:
      return eight_bit ? 4 : 0;
    default: return 0;
  }
}

int image_dimensions(cl_mem_object_type type) {
  switch (type) {
    case CL_MEM_OBJECT_IMAGE1D: case CL_MEM_OBJECT_IMAGE1D_BUFFER: return 1;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: case CL_MEM_OBJECT_IMAGE2D: return 2;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: case CL_MEM_OBJECT_IMAGE3D: return 3;
    default: return 0;
  }
}

}  // namespace parasol::core
