// Images on the host side of the tests: storage behind an ImageDesc, and a
// reference of what reading and writing them must give, written from the
// OpenCL 1.2 specification's text (s5.3.1.1 formats, s6.12.14.7 channel
// mapping, s8.2 addressing and filtering, s8.3 conversion rules, s8.4 array
// layers), not from the built-ins.
#pragma once

#include "executor.h"

#include <CL/cl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace test::image {

using parasol::kernels::ImageDesc;
using Float4 = std::array<float, 4>;
using Int4 = std::array<std::int32_t, 4>;

// ---- formats ----------------------------------------------------------------
// The channels a texel stores, in memory order, as the channel order's
// name spells them (I: intensity, L: luminance). The "x" of CL_Rx, CL_RGx
// and CL_RGBx stores nothing: they differ from CL_R, CL_RG and CL_RGB in
// their border color only.
inline std::string channel_letters(cl_channel_order order) {
  switch (order) {
    case CL_R: return "R";
    case CL_A: return "A";
    case CL_RG: return "RG";
    case CL_RA: return "RA";
    case CL_RGB: return "RGB";
    case CL_RGBA: return "RGBA";
    case CL_BGRA: return "BGRA";
    case CL_ARGB: return "ARGB";
    case CL_INTENSITY: return "I";
    case CL_LUMINANCE: return "L";
    case CL_Rx: return "R";
    case CL_RGx: return "RG";
    case CL_RGBx: return "RGB";
  }
  throw std::logic_error("unknown channel order");
}

inline bool packed(cl_channel_type t) {
  return t == CL_UNORM_SHORT_565 || t == CL_UNORM_SHORT_555 || t == CL_UNORM_INT_101010;
}

inline std::size_t channel_bytes(cl_channel_type t) {
  switch (t) {
    case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8: return 1;
    case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT: return 2;
    default: return 4;
  }
}

inline std::size_t element_size(cl_channel_order order, cl_channel_type t) {
  if (t == CL_UNORM_SHORT_565 || t == CL_UNORM_SHORT_555) return 2;
  if (t == CL_UNORM_INT_101010) return 4;
  return channel_letters(order).size() * channel_bytes(t);
}

enum class Kind { Float, Int, Uint };  // which read_image/write_image goes with the type
inline Kind kind_of(cl_channel_type t) {
  switch (t) {
    case CL_SIGNED_INT8: case CL_SIGNED_INT16: case CL_SIGNED_INT32: return Kind::Int;
    case CL_UNSIGNED_INT8: case CL_UNSIGNED_INT16: case CL_UNSIGNED_INT32: return Kind::Uint;
    default: return Kind::Float;
  }
}

// Half <-> float by the IEEE 754 binary16 definition.
inline float half_to_float(std::uint16_t h) {
  int sign = h >> 15, exponent = (h >> 10) & 31, mantissa = h & 1023;
  double v;
  if (exponent == 0) v = std::ldexp(mantissa, -24);
  else if (exponent == 31) v = mantissa ? NAN : INFINITY;
  else v = std::ldexp(1024 + mantissa, exponent - 25);
  return float(sign ? -v : v);
}
// Round to nearest, ties to the even encoding (s8.3.2): the nearest finite
// half of the same sign, found by looking at each; from 65520 (halfway
// between the largest half, 65504, and 2^16) on, infinity.
inline std::uint16_t float_to_half_rte(float f) {
  std::uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (std::isnan(f)) return 0x7e00;
  if (std::fabs(f) >= 65520.0f) return sign | 0x7c00;
  std::uint16_t best = sign;
  double best_diff = INFINITY;
  for (unsigned h = sign; h < sign + 0x7c00u; ++h) {
    double diff = std::fabs(double(half_to_float(std::uint16_t(h))) - double(f));
    if (diff < best_diff || (diff == best_diff && (h & 1) == 0)) {
      best = std::uint16_t(h);
      best_diff = diff;
    }
  }
  return best;
}

// A channel's stored bits to the value read_imagef returns (s8.3).
inline float normalized_read(cl_channel_type t, std::uint32_t bits) {
  switch (t) {
    case CL_UNORM_INT8: return float(bits & 0xff) / 255.0f;
    case CL_UNORM_INT16: return float(bits & 0xffff) / 65535.0f;
    case CL_SNORM_INT8: return std::max(-1.0f, float(std::int8_t(bits)) / 127.0f);
    case CL_SNORM_INT16: return std::max(-1.0f, float(std::int16_t(bits)) / 32767.0f);
    case CL_HALF_FLOAT: return half_to_float(std::uint16_t(bits));
    case CL_FLOAT: {
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
  }
  throw std::logic_error("not a float channel type");
}
// convert_<type>_sat_rte(f * scale), the s8.3.1.2 conversion (NaN to 0).
inline std::uint32_t normalized_write(cl_channel_type t, float f) {
  auto sat_rte = [](float scaled, float lo, float hi) {
    if (std::isnan(scaled)) return 0.0f;
    return std::nearbyint(std::min(std::max(scaled, lo), hi));
  };
  switch (t) {
    case CL_UNORM_INT8: return std::uint32_t(sat_rte(f * 255.0f, 0, 255));
    case CL_UNORM_INT16: return std::uint32_t(sat_rte(f * 65535.0f, 0, 65535));
    case CL_SNORM_INT8: return std::uint8_t(std::int8_t(sat_rte(f * 127.0f, -128, 127)));
    case CL_SNORM_INT16: return std::uint16_t(std::int16_t(sat_rte(f * 32767.0f, -32768, 32767)));
    case CL_HALF_FLOAT: return float_to_half_rte(f);
    case CL_FLOAT: {
      std::uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
  }
  throw std::logic_error("not a float channel type");
}

inline std::uint32_t load_bits(const unsigned char* p, std::size_t bytes) {
  std::uint32_t v = 0;
  std::memcpy(&v, p, bytes);  // little-endian host
  return v;
}
inline void store_bits(unsigned char* p, std::size_t bytes, std::uint32_t v) { std::memcpy(p, &v, bytes); }

// The packed types' fields, most significant first (s5.3.1.1): R, G, B.
struct PackedField { int shift, bits; };
inline std::array<PackedField, 3> packed_fields(cl_channel_type t) {
  if (t == CL_UNORM_SHORT_565) return {{{11, 5}, {5, 6}, {0, 5}}};
  if (t == CL_UNORM_SHORT_555) return {{{10, 5}, {5, 5}, {0, 5}}};
  return {{{20, 10}, {10, 10}, {0, 10}}};  // CL_UNORM_INT_101010
}

// A stored value per channel letter, as double (exact for every type).
struct Channels {
  double r = 0, g = 0, b = 0, a = -1, i = 0, l = 0;  // a < 0: no alpha
};

// The RGBA a read returns from per-channel values (the s6.12.14.7 table).
template <class T>
std::array<T, 4> to_rgba(const std::string& letters, const std::vector<T>& v, T one) {
  std::array<T, 4> rgba{0, 0, 0, one};
  for (std::size_t k = 0; k < letters.size(); ++k) switch (letters[k]) {
      case 'R': rgba[0] = v[k]; break;
      case 'G': rgba[1] = v[k]; break;
      case 'B': rgba[2] = v[k]; break;
      case 'A': rgba[3] = v[k]; break;
      case 'I': rgba = {v[k], v[k], v[k], v[k]}; break;
      case 'L': rgba = {v[k], v[k], v[k], one}; break;
      default: break;
    }
  return rgba;
}

// What read_imagef returns for the texel at p.
inline Float4 decode_float(const unsigned char* p, cl_channel_order order, cl_channel_type t) {
  std::string letters = channel_letters(order);
  std::vector<float> v(letters.size(), 0.0f);
  if (packed(t)) {
    std::uint32_t word = load_bits(p, t == CL_UNORM_INT_101010 ? 4 : 2);
    auto fields = packed_fields(t);
    for (int k = 0; k < 3; ++k) {
      std::uint32_t max = (1u << fields[k].bits) - 1;
      v[k] = float((word >> fields[k].shift) & max) / float(max);
    }
  } else {
    for (std::size_t k = 0; k < letters.size(); ++k)
      v[k] = normalized_read(t, load_bits(p + k * channel_bytes(t), channel_bytes(t)));
  }
  return to_rgba(letters, v, 1.0f);
}

// What read_imagei / read_imageui return (the bits of the int4 either way).
inline Int4 decode_int(const unsigned char* p, cl_channel_order order, cl_channel_type t) {
  std::string letters = channel_letters(order);
  std::vector<std::int32_t> v(letters.size(), 0);
  for (std::size_t k = 0; k < letters.size(); ++k) {
    std::uint32_t bits = load_bits(p + k * channel_bytes(t), channel_bytes(t));
    switch (t) {
      case CL_SIGNED_INT8: v[k] = std::int8_t(bits); break;
      case CL_SIGNED_INT16: v[k] = std::int16_t(bits); break;
      default: v[k] = std::int32_t(bits); break;  // 32-bit, and unsigned zero-extended
    }
  }
  return to_rgba(letters, v, 1);
}

// The channel of `rgba` a letter stores (write_image*: INTENSITY and
// LUMINANCE store red).
template <class T>
T channel_of(char letter, const std::array<T, 4>& rgba) {
  switch (letter) {
    case 'G': return rgba[1];
    case 'B': return rgba[2];
    case 'A': return rgba[3];
    default: return rgba[0];  // R, I, L
  }
}

// What write_imagef stores at p.
inline void encode_float(unsigned char* p, cl_channel_order order, cl_channel_type t, const Float4& rgba) {
  std::string letters = channel_letters(order);
  if (packed(t)) {
    auto fields = packed_fields(t);
    std::uint32_t word = 0;
    for (int k = 0; k < 3; ++k) {
      float max = float((1u << fields[k].bits) - 1);
      float scaled = channel_of(letters[k], rgba) * max;
      float code = std::isnan(scaled) ? 0.0f : std::nearbyint(std::min(std::max(scaled, 0.0f), max));
      word |= std::uint32_t(code) << fields[k].shift;
    }
    store_bits(p, t == CL_UNORM_INT_101010 ? 4 : 2, word);
    return;
  }
  for (std::size_t k = 0; k < letters.size(); ++k)
    store_bits(p + k * channel_bytes(t), channel_bytes(t), normalized_write(t, channel_of(letters[k], rgba)));
}

// What write_imagei / write_imageui store at p: the value clamped to the
// channel's range (s8.3.4).
inline void encode_int(unsigned char* p, cl_channel_order order, cl_channel_type t, const Int4& rgba) {
  std::string letters = channel_letters(order);
  for (std::size_t k = 0; k < letters.size(); ++k) {
    std::int64_t v = channel_of(letters[k], rgba);
    std::int64_t u = std::uint32_t(v);  // the uint4 a write_imageui takes
    std::uint32_t bits;
    switch (t) {
      case CL_SIGNED_INT8: bits = std::uint8_t(std::clamp<std::int64_t>(v, -128, 127)); break;
      case CL_SIGNED_INT16: bits = std::uint16_t(std::clamp<std::int64_t>(v, -32768, 32767)); break;
      case CL_UNSIGNED_INT8: bits = std::uint32_t(std::min<std::int64_t>(u, 255)); break;
      case CL_UNSIGNED_INT16: bits = std::uint32_t(std::min<std::int64_t>(u, 65535)); break;
      default: bits = std::uint32_t(v); break;
    }
    store_bits(p + k * channel_bytes(t), channel_bytes(t), bits);
  }
}

// CLK_ADDRESS_CLAMP's border color (s8.2): alpha 0 where the order has an
// alpha channel or is CL_Rx, CL_RGx, CL_RGBx; 1 for CL_R, CL_RG, CL_RGB, CL_LUMINANCE.
inline float border_alpha(cl_channel_order order) {
  return order == CL_R || order == CL_RG || order == CL_RGB || order == CL_LUMINANCE ? 1.0f : 0.0f;
}

// ---- storage ----------------------------------------------------------------
// An image's pixels and its descriptor. Rows and slices may be padded
// (extra bytes, filled with a sentinel) to show that the pitches are used.
struct Image {
  cl_mem_object_type type;
  cl_channel_order order;
  cl_channel_type data_type;
  std::size_t width, height, depth, layers;  // layers: 0 unless an array
  Buf<unsigned char> bytes;
  ImageDesc desc;

  Image(cl_mem_object_type type_, cl_channel_order order_, cl_channel_type data_type_, std::size_t w,
        std::size_t h = 1, std::size_t d = 1, std::size_t layers_ = 0, std::size_t row_pad = 0,
        std::size_t slice_pad = 0)
      : type(type_), order(order_), data_type(data_type_), width(w), height(h), depth(d), layers(layers_) {
    std::size_t elem = element_size(order, data_type);
    desc.row_pitch = width * elem + row_pad;
    std::size_t total;
    if (type == CL_MEM_OBJECT_IMAGE1D_ARRAY) {  // layers are rows; a layer's size is its row pitch
      desc.slice_pitch = desc.row_pitch;
      total = desc.row_pitch * layers;
    } else {
      std::size_t slices = type == CL_MEM_OBJECT_IMAGE2D_ARRAY ? layers : depth;
      desc.slice_pitch = desc.row_pitch * height + slice_pad;
      total = desc.slice_pitch * slices;
    }
    bytes.assign(total + 64, 0xAB);
    desc.data = bytes.data();
    desc.width = width;
    desc.height = height;
    desc.depth = depth;
    desc.array_size = layers;
    desc.channel_order = order;
    desc.channel_data_type = data_type;
    desc.element_size = std::uint32_t(elem);
    desc.image_type = type;
  }
  Image(const Image&) = delete;

  std::size_t element() const { return desc.element_size; }
  // x, y, z as the texel index of s8 (the layer of a 1D array in y, of a 2D array in z).
  unsigned char* at(std::size_t x, std::size_t y = 0, std::size_t z = 0) {
    return bytes.data() + x * element() + y * desc.row_pitch + z * desc.slice_pitch;
  }
  // Texels along x, y, z (a 1D array's layers along y, a 2D array's along z).
  std::array<std::size_t, 3> extent() const {
    switch (type) {
      case CL_MEM_OBJECT_IMAGE1D_ARRAY: return {width, layers, 1};
      case CL_MEM_OBJECT_IMAGE2D: return {width, height, 1};
      case CL_MEM_OBJECT_IMAGE2D_ARRAY: return {width, height, layers};
      case CL_MEM_OBJECT_IMAGE3D: return {width, height, depth};
      default: return {width, 1, 1};
    }
  }
  int spatial_dims() const {
    switch (type) {
      case CL_MEM_OBJECT_IMAGE2D: case CL_MEM_OBJECT_IMAGE2D_ARRAY: return 2;
      case CL_MEM_OBJECT_IMAGE3D: return 3;
      default: return 1;
    }
  }
  bool arrayed() const {
    return type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
  }
};

// ---- sampling (s8.2, s8.4) ----------------------------------------------------
// A sampler's bits in kernel code (OpenCL C's CLK_* values, which the host
// headers do not define): what a sampler argument's slot holds.
constexpr cl_uint CLK_NORMALIZED_COORDS_FALSE = 0, CLK_NORMALIZED_COORDS_TRUE = 1;
constexpr cl_uint CLK_ADDRESS_NONE = 0, CLK_ADDRESS_CLAMP_TO_EDGE = 2, CLK_ADDRESS_CLAMP = 4,
                  CLK_ADDRESS_REPEAT = 6, CLK_ADDRESS_MIRRORED_REPEAT = 8;
constexpr cl_uint CLK_FILTER_NEAREST = 0x10, CLK_FILTER_LINEAR = 0x20;

struct Sampler {
  bool normalized;
  cl_uint addressing;  // CLK_ADDRESS_*
  bool linear;
  std::uintptr_t bits() const {
    return (normalized ? CLK_NORMALIZED_COORDS_TRUE : CLK_NORMALIZED_COORDS_FALSE) | addressing |
           (linear ? CLK_FILTER_LINEAR : CLK_FILTER_NEAREST);
  }
};

// The s8.2 address_mode function of the clamp modes.
inline int address_mode(int coord, int size, cl_uint addressing) {
  auto clamp = [](int a, int b, int c) { return a < b ? b : (a > c ? c : a); };
  if (addressing == CLK_ADDRESS_CLAMP) return clamp(coord, -1, size);
  if (addressing == CLK_ADDRESS_CLAMP_TO_EDGE) return clamp(coord, 0, size - 1);
  return coord;  // CLK_ADDRESS_NONE
}
inline float frac(float x) { return x - std::floor(x); }

// One axis of a read: the texels NEAREST picks (i0 only) or LINEAR blends
// (i0, i1, weight a of i1), by the formulas of the sampler's mode.
struct Axis { int i0, i1; float a; };
inline Axis sample_axis(float s, int size, const Sampler& sm) {
  float w_t = float(size);
  Axis r{0, 0, 0.0f};
  if (sm.normalized && sm.addressing == CLK_ADDRESS_REPEAT) {
    float u = (s - std::floor(s)) * w_t;
    if (!sm.linear) {
      r.i0 = int(std::floor(u));
      if (r.i0 > size - 1) r.i0 = r.i0 - size;
      return r;
    }
    r.i0 = int(std::floor(u - 0.5f));
    r.i1 = r.i0 + 1;
    if (r.i0 < 0) r.i0 = size + r.i0;
    if (r.i1 > size - 1) r.i1 = r.i1 - size;
    r.a = frac(u - 0.5f);
    return r;
  }
  if (sm.normalized && sm.addressing == CLK_ADDRESS_MIRRORED_REPEAT) {
    float s_ = 2.0f * std::nearbyint(0.5f * s);
    s_ = std::fabs(s - s_);
    float u = s_ * w_t;
    if (!sm.linear) {
      r.i0 = std::min(int(std::floor(u)), size - 1);
      return r;
    }
    r.i0 = int(std::floor(u - 0.5f));
    r.i1 = r.i0 + 1;
    r.i0 = std::max(r.i0, 0);
    r.i1 = std::min(r.i1, size - 1);
    r.a = frac(u - 0.5f);
    return r;
  }
  float u = sm.normalized ? s * w_t : s;
  if (!sm.linear) {
    r.i0 = address_mode(int(std::floor(u)), size, sm.addressing);
    return r;
  }
  r.i0 = address_mode(int(std::floor(u - 0.5f)), size, sm.addressing);
  r.i1 = address_mode(int(std::floor(u - 0.5f)) + 1, size, sm.addressing);
  r.a = frac(u - 0.5f);
  return r;
}

// s8.4: the layer of an image array.
inline int array_layer(float c, int layers) {
  return int(std::min(std::max(std::nearbyint(c), 0.0f), float(layers - 1)));
}

// read_imagef(image, sampler, coord) on a float-read format: coord holds
// the spatial coordinates, then the layer of an array.
inline Float4 read_float(Image& img, const Sampler& sm, const std::array<float, 4>& coord) {
  auto n = img.extent();
  int dims = img.spatial_dims();
  auto texel = [&](int x, int y, int z) -> Float4 {
    if (x < 0 || y < 0 || z < 0 || x >= int(n[0]) || y >= int(n[1]) || z >= int(n[2]))
      return {0, 0, 0, border_alpha(img.order)};
    return decode_float(img.at(x, y, z), img.order, img.data_type);
  };
  Axis ax[3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (int k = 0; k < dims; ++k) ax[k] = sample_axis(coord[k], int(n[k]), sm);
  if (img.arrayed()) ax[dims].i0 = ax[dims].i1 = array_layer(coord[dims], int(n[dims]));
  if (!sm.linear) return texel(ax[0].i0, ax[1].i0, ax[2].i0);
  float a = ax[0].a, b = ax[1].a, c = ax[2].a;
  Float4 T{};
  auto add = [&](float w, const Float4& t) {
    for (int q = 0; q < 4; ++q) T[q] += w * t[q];
  };
  int i0 = ax[0].i0, i1 = ax[0].i1, j0 = ax[1].i0, j1 = ax[1].i1, k0 = ax[2].i0, k1 = ax[2].i1;
  if (dims == 1) {  // T = (1 - a) T_i0 + a T_i1
    add(1 - a, texel(i0, j0, k0));
    add(a, texel(i1, j0, k0));
  } else if (dims == 2) {
    add((1 - a) * (1 - b), texel(i0, j0, k0));
    add(a * (1 - b), texel(i1, j0, k0));
    add((1 - a) * b, texel(i0, j1, k0));
    add(a * b, texel(i1, j1, k0));
  } else {
    add((1 - a) * (1 - b) * (1 - c), texel(i0, j0, k0));
    add(a * (1 - b) * (1 - c), texel(i1, j0, k0));
    add((1 - a) * b * (1 - c), texel(i0, j1, k0));
    add(a * b * (1 - c), texel(i1, j1, k0));
    add((1 - a) * (1 - b) * c, texel(i0, j0, k1));
    add(a * (1 - b) * c, texel(i1, j0, k1));
    add((1 - a) * b * c, texel(i0, j1, k1));
    add(a * b * c, texel(i1, j1, k1));
  }
  return T;
}

}  // namespace test::image
