// What makes a cl_mem an image: its type, format and shape, and where its
// pixels lie. To StarPU an image is a buffer like any other (its storage:
// main RAM, copies on devices kept coherent); a vendor device's kernels see
// a vendor image that mirrors the device's copy around each launch
// (backend/image_mirrors.h), the native device's an ImageDesc over it.
//
// Pixels lie x fastest, then rows row_pitch bytes apart, then slices (3D),
// layers (2D arrays) slice_pitch apart; a 1D array's layers are its rows.
#pragma once

#include <CL/cl.h>

#include <array>
#include <cstddef>

namespace parasol::backend {

struct ImageShape {
  cl_mem_object_type type = 0;
  cl_image_format format{};
  std::size_t element_size = 0;  // bytes a pixel takes
  std::size_t width = 1, height = 1, depth = 1;  // 1 where the type has no such axis
  std::size_t array_size = 0;                    // layers of an array type, else 0
  std::size_t row_pitch = 0, slice_pitch = 0;    // bytes

  bool is_array() const {
    return type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
  }
  // The box of pixels, with an array's layers on the axis after its last:
  // what image commands' origin and region address.
  std::array<std::size_t, 3> extent() const {
    switch (type) {
      case CL_MEM_OBJECT_IMAGE1D_ARRAY: return {width, array_size, 1};
      case CL_MEM_OBJECT_IMAGE2D_ARRAY: return {width, height, array_size};
      default: return {width, height, depth};
    }
  }
  // Bytes from the first pixel to the end of the last.
  std::size_t bytes() const {
    const auto e = extent();
    return (e[2] - 1) * slice_pitch + (e[1] - 1) * row_pitch + e[0] * element_size;
  }
  // Byte offset of pixel origin (in the extent's axes).
  std::size_t offset(const std::size_t* origin) const {
    return origin[2] * slice_pitch + origin[1] * row_pitch + origin[0] * element_size;
  }
};

// Bytes a pixel of the format takes; 0 for a format OpenCL 1.2 does not
// define (an order and type that do not go together included).
std::size_t element_size(const cl_image_format& format);

// The dimensions an image type has: 1, 2 or 3 (an array's layers count).
int image_dimensions(cl_mem_object_type type);

// clEnqueueFillImage's color as one pixel of the format, in `out`
// (element_size(format) bytes): color is float[4] for normalized and float
// formats, int[4] for signed, unsigned[4] for unsigned integer ones, RGBA;
// converted and saturated as a write_image* of the same value would.
void pack_pixel(const cl_image_format& format, const void* color, unsigned char* out);

}  // namespace parasol::backend
