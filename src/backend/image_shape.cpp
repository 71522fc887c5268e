#include "backend/image_shape.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace parasol::backend {

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

namespace {

// Round to nearest even, then saturate to [lo, hi].
std::int64_t saturate(double v, double lo, double hi) {
  if (std::isnan(v)) return 0;
  return static_cast<std::int64_t>(std::nearbyint(std::clamp(v, lo, hi)));
}

std::uint16_t to_half(float f) {
  // IEEE binary16, round to nearest even.
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflows to inf
  if (abs < 0x38800000u) {  // subnormal half (or zero)
    const float scaled = std::fabs(f) * 16777216.0f;  // 2^24: one half subnormal step is 2^-24
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(std::nearbyint(scaled)));
  }
  std::uint32_t mantissa = abs & 0x7fffffu, exponent = (abs >> 23) - 112;
  std::uint32_t h = (exponent << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

// Where each of R, G, B, A goes in the pixel's channel list (-1: not stored).
std::array<int, 4> channel_slots(cl_channel_order order) {
  switch (order) {
    case CL_R: case CL_Rx: case CL_INTENSITY: case CL_LUMINANCE: return {0, -1, -1, -1};
    case CL_A: return {-1, -1, -1, 0};
    case CL_RG: case CL_RGx: return {0, 1, -1, -1};
    case CL_RA: return {0, -1, -1, 1};
    case CL_RGB: case CL_RGBx: return {0, 1, 2, -1};
    case CL_BGRA: return {2, 1, 0, 3};
    case CL_ARGB: return {1, 2, 3, 0};
    default: return {0, 1, 2, 3};  // CL_RGBA
  }
}

}  // namespace

void pack_pixel(const cl_image_format& format, const void* color, unsigned char* out) {
  const cl_channel_type t = format.image_channel_data_type;
  const auto slots = channel_slots(format.image_channel_order);
  const float* f = static_cast<const float*>(color);
  const std::int32_t* si = static_cast<const std::int32_t*>(color);
  const std::uint32_t* ui = static_cast<const std::uint32_t*>(color);
  if (t == CL_UNORM_SHORT_565 || t == CL_UNORM_SHORT_555 || t == CL_UNORM_INT_101010) {
    auto n = [&](int c, double max) { return static_cast<std::uint32_t>(saturate(f[c] * max, 0, max)); };
    std::uint32_t v = t == CL_UNORM_SHORT_565 ? (n(0, 31) << 11) | (n(1, 63) << 5) | n(2, 31)
                      : t == CL_UNORM_SHORT_555 ? (n(0, 31) << 10) | (n(1, 31) << 5) | n(2, 31)
                                                : (n(0, 1023) << 20) | (n(1, 1023) << 10) | n(2, 1023);
    std::memcpy(out, &v, t == CL_UNORM_INT_101010 ? 4 : 2);
    return;
  }
  const std::size_t channels = element_size(format) / (element_size({CL_R, t}) ? element_size({CL_R, t}) : 1);
  const std::size_t size = element_size({CL_R, t});
  for (int c = 0; c < 4; ++c) {
    const int slot = slots[c];
    if (slot < 0 || static_cast<std::size_t>(slot) >= channels) continue;
    unsigned char* at = out + slot * size;
    std::uint64_t bits = 0;
    switch (t) {
      case CL_UNORM_INT8: bits = saturate(f[c] * 255.0, 0, 255); break;
      case CL_UNORM_INT16: bits = saturate(f[c] * 65535.0, 0, 65535); break;
      case CL_SNORM_INT8: bits = static_cast<std::uint64_t>(saturate(f[c] * 127.0, -128, 127)); break;
      case CL_SNORM_INT16:
        bits = static_cast<std::uint64_t>(saturate(f[c] * 32767.0, -32768, 32767));
        break;
      case CL_SIGNED_INT8: bits = static_cast<std::uint64_t>(std::clamp(si[c], -128, 127)); break;
      case CL_SIGNED_INT16:
        bits = static_cast<std::uint64_t>(std::clamp(si[c], -32768, 32767));
        break;
      case CL_SIGNED_INT32: bits = static_cast<std::uint32_t>(si[c]); break;
      case CL_UNSIGNED_INT8: bits = std::min<std::uint32_t>(ui[c], 255); break;
      case CL_UNSIGNED_INT16: bits = std::min<std::uint32_t>(ui[c], 65535); break;
      case CL_UNSIGNED_INT32: bits = ui[c]; break;
      case CL_HALF_FLOAT: bits = to_half(f[c]); break;
      case CL_FLOAT: {
        std::uint32_t v;
        std::memcpy(&v, &f[c], 4);
        bits = v;
        break;
      }
      default: break;
    }
    std::memcpy(at, &bits, size);  // little-endian: the low bytes
  }
}

}  // namespace parasol::backend
