// What an image's bytes mean: a texel to and from the RGBA value the image
// functions return and take, for every channel order and channel data type
// of OpenCL 1.2 (s5.3.1.1), by the conversion rules of s8.3 and the channel
// mapping of s6.12.14.7 (a missing color channel reads 0, a missing alpha
// 1). Data types that do not match the function (read_imagef of an integer
// image, read_imagei of an unsigned one...) are undefined by the spec: they
// read 0 and write nothing.
#include "image.h"

INL static __global uchar* texel_address(Image d, int4 at) {
  return d->data + (size_t)at.x * d->element_size + (size_t)at.y * d->row_pitch +
         (size_t)at.z * d->slice_pitch;
}

// Channels a texel stores, in memory order. CL_Rx, CL_RGx and CL_RGBx
// store what CL_R, CL_RG and CL_RGB do (only their border color differs);
// the packed data types hold their three channels in one word.
INL static int used_channels(uint order) {
  switch (order) {
    case CLK_RG: case CLK_RA: case CLK_RGx: return 2;
    case CLK_RGB: case CLK_RGBx: return 3;
    case CLK_RGBA: case CLK_BGRA: case CLK_ARGB: return 4;
    default: return 1;  // CLK_R, CLK_Rx, CLK_A, CLK_INTENSITY, CLK_LUMINANCE
  }
}

// Channel loops stay loops: an image read or write is inlined wherever it
// is called, and unrolled copies of the decoding would multiply its code,
// and the kernel's compile time, for no measurable gain.
#define EACH_CHANNEL(k, n) _Pragma("clang loop unroll(disable)") for (int k = 0; k < (n); ++k)

// Channels in memory order (m) to RGBA and back.
#define CHANNEL_MAPPING(T)                                                          \
  INL static T##4 rgba_of_##T(T##4 m, uint order) {                                 \
    switch (order) {                                                                \
      case CLK_A: return (T##4)(0, 0, 0, m.s0);                                     \
      case CLK_RA: return (T##4)(m.s0, 0, 0, m.s1);                                 \
      case CLK_RG: case CLK_RGx: return (T##4)(m.s0, m.s1, 0, 1);                   \
      case CLK_RGB: case CLK_RGBx: return (T##4)(m.s0, m.s1, m.s2, 1);              \
      case CLK_RGBA: return m;                                                      \
      case CLK_BGRA: return m.s2103;                                                \
      case CLK_ARGB: return m.s1230;                                                \
      case CLK_INTENSITY: return m.s0000;                                           \
      case CLK_LUMINANCE: return (T##4)(m.s0, m.s0, m.s0, 1);                       \
      default: return (T##4)(m.s0, 0, 0, 1);  /* CLK_R, CLK_Rx */                   \
    }                                                                               \
  }                                                                                 \
  INL static T##4 memory_order_##T(T##4 c, uint order) {                            \
    switch (order) {                                                                \
      case CLK_A: return c.s3333;                                                   \
      case CLK_RA: return c.s0303;                                                  \
      case CLK_BGRA: return c.s2103;                                                \
      case CLK_ARGB: return c.s3012;                                                \
      default: return c;  /* R, G, B in that order; INTENSITY, LUMINANCE: red */    \
    }                                                                               \
  }
CHANNEL_MAPPING(float)
CHANNEL_MAPPING(int)
CHANNEL_MAPPING(uint)

// ---- reading ----------------------------------------------------------------
// Normalized integers: c / 255 (and the like), correctly rounded, so 0 and
// the largest code give exactly 0.0f and 1.0f; signed codes are clamped at
// -1.0f (s8.3.1.1). Half is exact, float unchanged (s8.3.2, s8.3.3).
INL static float4 channels_f(const __global uchar* p, uint type, int n) {
  float4 m = 0.0f;
  switch (type) {
    case CLK_UNORM_INT8:
      EACH_CHANNEL(k, n) m[k] = (float)p[k] / 255.0f;
      break;
    case CLK_UNORM_INT16:
      EACH_CHANNEL(k, n) m[k] = (float)((const __global ushort*)p)[k] / 65535.0f;
      break;
    case CLK_SNORM_INT8:
      EACH_CHANNEL(k, n)
        m[k] = __builtin_fmaxf(-1.0f, (float)((const __global char*)p)[k] / 127.0f);
      break;
    case CLK_SNORM_INT16:
      EACH_CHANNEL(k, n)
        m[k] = __builtin_fmaxf(-1.0f, (float)((const __global short*)p)[k] / 32767.0f);
      break;
    case CLK_HALF_FLOAT:
      EACH_CHANNEL(k, n) m[k] = vload_half(k, (const __global half*)p);
      break;
    case CLK_FLOAT:
      EACH_CHANNEL(k, n) m[k] = ((const __global float*)p)[k];
      break;
    // Packed: the first channel in the most significant bits; 555 and
    // 101010 leave their top bits unused.
    case CLK_UNORM_SHORT_565: {
      uint v = *(const __global ushort*)p;
      m.s012 = (float3)((float)(v >> 11) / 31.0f, (float)((v >> 5) & 63) / 63.0f,
                        (float)(v & 31) / 31.0f);
      break;
    }
    case CLK_UNORM_SHORT_555: {
      uint v = *(const __global ushort*)p;
      m.s012 = (float3)((float)((v >> 10) & 31), (float)((v >> 5) & 31), (float)(v & 31)) / 31.0f;
      break;
    }
    case CLK_UNORM_INT_101010: {
      uint v = *(const __global uint*)p;
      m.s012 =
          (float3)((float)((v >> 20) & 1023), (float)((v >> 10) & 1023), (float)(v & 1023)) / 1023.0f;
      break;
    }
  }
  return m;
}

// Unnormalized integers read unmodified (s8.3.4).
INL static int4 channels_i(const __global uchar* p, uint type, int n) {
  int4 m = 0;
  switch (type) {
    case CLK_SIGNED_INT8:
      EACH_CHANNEL(k, n) m[k] = ((const __global char*)p)[k];
      break;
    case CLK_SIGNED_INT16:
      EACH_CHANNEL(k, n) m[k] = ((const __global short*)p)[k];
      break;
    case CLK_SIGNED_INT32:
      EACH_CHANNEL(k, n) m[k] = ((const __global int*)p)[k];
      break;
  }
  return m;
}

INL static uint4 channels_ui(const __global uchar* p, uint type, int n) {
  uint4 m = 0;
  switch (type) {
    case CLK_UNSIGNED_INT8:
      EACH_CHANNEL(k, n) m[k] = p[k];
      break;
    case CLK_UNSIGNED_INT16:
      EACH_CHANNEL(k, n) m[k] = ((const __global ushort*)p)[k];
      break;
    case CLK_UNSIGNED_INT32:
      EACH_CHANNEL(k, n) m[k] = ((const __global uint*)p)[k];
      break;
  }
  return m;
}

float4 __parasol_image_texel_f(Image d, int4 at) {
  uint order = d->channel_order;
  return rgba_of_float(channels_f(texel_address(d, at), d->channel_data_type, used_channels(order)),
                       order);
}

int4 __parasol_image_texel_i(Image d, int4 at) {
  uint order = d->channel_order;
  return rgba_of_int(channels_i(texel_address(d, at), d->channel_data_type, used_channels(order)),
                     order);
}

uint4 __parasol_image_texel_ui(Image d, int4 at) {
  uint order = d->channel_order;
  return rgba_of_uint(channels_ui(texel_address(d, at), d->channel_data_type, used_channels(order)),
                      order);
}

// Transparent black where the channel order has an alpha channel and for
// CL_Rx, CL_RGx, CL_RGBx; opaque black for CL_R, CL_RG, CL_RGB and
// CL_LUMINANCE (s8.2).
INL static int border_alpha(uint order) {
  return order == CLK_R || order == CLK_RG || order == CLK_RGB || order == CLK_LUMINANCE;
}
float4 __parasol_image_border_f(Image d) {
  return (float4)(0.0f, 0.0f, 0.0f, (float)border_alpha(d->channel_order));
}
int4 __parasol_image_border_i(Image d) { return (int4)(0, 0, 0, border_alpha(d->channel_order)); }

// ---- writing ----------------------------------------------------------------
// Float to a normalized integer code: the value scaled, saturated to
// [lo, hi] and rounded to nearest even, as convert_<type>_sat_rte(f * scale)
// (s8.3.1.2); NaN gives 0, as in every saturating conversion (s6.2.3.3).
INL static float sat_rte(float scaled, float lo, float hi) {
  return scaled != scaled ? 0.0f : __builtin_rintf(__builtin_fminf(__builtin_fmaxf(scaled, lo), hi));
}

INL static void store_channels_f(__global uchar* p, uint type, int n, float4 m) {
  switch (type) {
    case CLK_UNORM_INT8:
      EACH_CHANNEL(k, n) p[k] = (uchar)sat_rte(m[k] * 255.0f, 0.0f, 255.0f);
      break;
    case CLK_UNORM_INT16:
      EACH_CHANNEL(k, n)
        ((__global ushort*)p)[k] = (ushort)sat_rte(m[k] * 65535.0f, 0.0f, 65535.0f);
      break;
    case CLK_SNORM_INT8:
      EACH_CHANNEL(k, n)
        ((__global char*)p)[k] = (char)sat_rte(m[k] * 127.0f, -128.0f, 127.0f);
      break;
    case CLK_SNORM_INT16:
      EACH_CHANNEL(k, n)
        ((__global short*)p)[k] = (short)sat_rte(m[k] * 32767.0f, -32768.0f, 32767.0f);
      break;
    case CLK_HALF_FLOAT:  // round to nearest even; NaN stays NaN, INF INF (s8.3.2)
      EACH_CHANNEL(k, n) vstore_half_rte(m[k], k, (__global half*)p);
      break;
    case CLK_FLOAT:
      EACH_CHANNEL(k, n) ((__global float*)p)[k] = m[k];
      break;
    case CLK_UNORM_SHORT_565:
      *(__global ushort*)p = (ushort)(((uint)sat_rte(m.s0 * 31.0f, 0.0f, 31.0f) << 11) |
                                      ((uint)sat_rte(m.s1 * 63.0f, 0.0f, 63.0f) << 5) |
                                      (uint)sat_rte(m.s2 * 31.0f, 0.0f, 31.0f));
      break;
    case CLK_UNORM_SHORT_555:
      *(__global ushort*)p = (ushort)(((uint)sat_rte(m.s0 * 31.0f, 0.0f, 31.0f) << 10) |
                                      ((uint)sat_rte(m.s1 * 31.0f, 0.0f, 31.0f) << 5) |
                                      (uint)sat_rte(m.s2 * 31.0f, 0.0f, 31.0f));
      break;
    case CLK_UNORM_INT_101010:
      *(__global uint*)p = ((uint)sat_rte(m.s0 * 1023.0f, 0.0f, 1023.0f) << 20) |
                           ((uint)sat_rte(m.s1 * 1023.0f, 0.0f, 1023.0f) << 10) |
                           (uint)sat_rte(m.s2 * 1023.0f, 0.0f, 1023.0f);
      break;
  }
}

// Integers saturate to the channel's range (s8.3.4).
INL static void store_channels_i(__global uchar* p, uint type, int n, int4 m) {
  switch (type) {
    case CLK_SIGNED_INT8:
      EACH_CHANNEL(k, n)
        ((__global char*)p)[k] = (char)(m[k] < -128 ? -128 : m[k] > 127 ? 127 : m[k]);
      break;
    case CLK_SIGNED_INT16:
      EACH_CHANNEL(k, n)
        ((__global short*)p)[k] = (short)(m[k] < -32768 ? -32768 : m[k] > 32767 ? 32767 : m[k]);
      break;
    case CLK_SIGNED_INT32:
      EACH_CHANNEL(k, n) ((__global int*)p)[k] = m[k];
      break;
  }
}

INL static void store_channels_ui(__global uchar* p, uint type, int n, uint4 m) {
  switch (type) {
    case CLK_UNSIGNED_INT8:
      EACH_CHANNEL(k, n) p[k] = (uchar)(m[k] > 255u ? 255u : m[k]);
      break;
    case CLK_UNSIGNED_INT16:
      EACH_CHANNEL(k, n) ((__global ushort*)p)[k] = (ushort)(m[k] > 65535u ? 65535u : m[k]);
      break;
    case CLK_UNSIGNED_INT32:
      EACH_CHANNEL(k, n) ((__global uint*)p)[k] = m[k];
      break;
  }
}

void __parasol_image_store_f(Image d, int4 at, float4 rgba) {
  uint order = d->channel_order;
  store_channels_f(texel_address(d, at), d->channel_data_type, used_channels(order),
                   memory_order_float(rgba, order));
}

void __parasol_image_store_i(Image d, int4 at, int4 rgba) {
  uint order = d->channel_order;
  store_channels_i(texel_address(d, at), d->channel_data_type, used_channels(order),
                   memory_order_int(rgba, order));
}

void __parasol_image_store_ui(Image d, int4 at, uint4 rgba) {
  uint order = d->channel_order;
  store_channels_ui(texel_address(d, at), d->channel_data_type, used_channels(order),
                    memory_order_uint(rgba, order));
}
