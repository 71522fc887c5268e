// Which texels an image coordinate selects, and what a read returns: the
// sampler's addressing and filter modes on normalized or unnormalized
// coordinates (OpenCL 1.2 s8.2), the layer of an image array (s8.4), the
// integer-coordinate reads (s6.12.14.2, 6.12.14.3) and the range of writes.
//
// Where the spec leaves a result undefined, a read returns a value of the
// image or the border color and a write writes nothing, never memory outside
// the image: CLK_ADDRESS_NONE and an integer coordinate outside the image
// read the border color (as CLK_ADDRESS_CLAMP), REPEAT and MIRRORED_REPEAT
// with unnormalized coordinates act as CLAMP, LINEAR for read_imagei/ui acts
// as NEAREST, and a NaN coordinate selects as -INF does.
#include "image.h"

#define ADDRESS_MASK 0xE
#define FILTER_MASK 0x30

// Texels along each axis; w is 1 so that position 0 there is inside.
INL static int4 extent(Image d, int dims, int arrayed) {
  int4 n = (int4)((int)d->width, 1, 1, 1);
  if (dims >= 2) n.y = (int)d->height;
  if (dims == 3) n.z = (int)d->depth;
  if (arrayed) n[dims] = (int)d->array_size;
  return n;
}

INL static int outside(int4 at, int4 n) {
  int4 out = at < 0 | at >= n;
  return (out.x | out.y | out.z | out.w) != 0;
}

// f, a whole number, clamped to [lo, hi] as an int: clamping in float first
// keeps a huge coordinate from overflowing the conversion; NaN gives lo.
INL static int index_in(float f, int lo, int hi) {
  return (int)__builtin_fminf(__builtin_fmaxf(f, (float)lo), (float)hi);
}

// s8.4: the layer is rint(coordinate), clamped to the array.
INL static int layer_index(float c, int n) { return index_in(__builtin_rintf(c), 0, n - 1); }

// The normalized coordinate s of the repeating modes, mapped into [0, n]:
// u = (s - floor(s)) * n for REPEAT, u = |s - 2 rint(s / 2)| * n for
// MIRRORED_REPEAT.
INL static float repeated(float s, int n) { return (s - __builtin_floorf(s)) * (float)n; }
INL static float mirrored(float s, int n) {
  return __builtin_fabsf(s - 2.0f * __builtin_rintf(0.5f * s)) * (float)n;
}

// NEAREST along one axis: the texel index; -1 or n stand for the border.
INL static int nearest(float c, int n, uint addressing, int normalized) {
  if (normalized && addressing == CLK_ADDRESS_REPEAT) {
    int i = index_in(__builtin_floorf(repeated(c, n)), 0, n);
    return i > n - 1 ? i - n : i;
  }
  if (normalized && addressing == CLK_ADDRESS_MIRRORED_REPEAT)
    return index_in(__builtin_floorf(mirrored(c, n)), 0, n - 1);
  float u = __builtin_floorf(normalized ? c * (float)n : c);
  if (addressing == CLK_ADDRESS_CLAMP_TO_EDGE) return index_in(u, 0, n - 1);
  return index_in(u, -1, n);
}

// LINEAR along one axis: the two texels blended (i0, i1) and the weight of
// the second, frac(u - 0.5) (NaN, from an infinite or NaN coordinate, as 0).
INL static int2 linear(float c, int n, uint addressing, int normalized, float* weight) {
  int repeat = normalized && addressing == CLK_ADDRESS_REPEAT;
  int mirror = normalized && addressing == CLK_ADDRESS_MIRRORED_REPEAT;
  float u = repeat ? repeated(c, n) : mirror ? mirrored(c, n) : normalized ? c * (float)n : c;
  float x = u - 0.5f;
  float f = __builtin_floorf(x);
  *weight = __builtin_fminf(__builtin_fmaxf(x - f, 0.0f), 1.0f);
  if (repeat) {  // u in [0, n]: i0 in [-1, n - 1], wrapped
    int i0 = index_in(f, -1, n - 1), i1 = i0 + 1;
    return (int2)(i0 < 0 ? i0 + n : i0, i1 > n - 1 ? i1 - n : i1);
  }
  if (mirror) {
    int i0 = index_in(f, -1, n - 1);
    return (int2)(i0 < 0 ? 0 : i0, i0 + 1 > n - 1 ? n - 1 : i0 + 1);
  }
  if (addressing == CLK_ADDRESS_CLAMP_TO_EDGE)
    return (int2)(index_in(f, 0, n - 1), index_in(f + 1.0f, 0, n - 1));
  return (int2)(index_in(f, -1, n), index_in(f + 1.0f, -1, n));
}

// The texel NEAREST selects (spatial axes, then the layer).
INL static int4 nearest_texel(float4 coord, int4 n, uint sampler, int dims, int arrayed) {
  int4 at = 0;
  for (int k = 0; k < dims; ++k)
    at[k] = nearest(coord[k], n[k], sampler & ADDRESS_MASK, sampler & CLK_NORMALIZED_COORDS_TRUE);
  if (arrayed) at[dims] = layer_index(coord[dims], n[dims]);
  return at;
}

// The texel an integer coordinate names: clamped under CLAMP_TO_EDGE, the
// layer always clamped (s8.4).
INL static int4 integer_texel(int4 coord, int4 n, uint sampler, int dims, int arrayed) {
  int4 at = 0;
  for (int k = 0; k < dims; ++k) {
    int c = coord[k];
    if ((sampler & ADDRESS_MASK) == CLK_ADDRESS_CLAMP_TO_EDGE) c = c < 0 ? 0 : c > n[k] - 1 ? n[k] - 1 : c;
    at[k] = c;
  }
  if (arrayed) {
    int c = coord[dims];
    at[dims] = c < 0 ? 0 : c > n[dims] - 1 ? n[dims] - 1 : c;
  }
  return at;
}

// The texel at `at`, or the border color where `at` lies outside the image.
#define TEXEL_OR_BORDER(S, BORDER) (outside(at, n) ? (BORDER) : __parasol_image_texel_##S(d, at))

float4 __parasol_image_sample_f(Image d, uint sampler, float4 coord, int dims, int arrayed) {
  int4 n = extent(d, dims, arrayed);
  int4 i0 = 0, i1 = 0;
  float4 a = 0.0f;
  int taps = 1;
  if ((sampler & FILTER_MASK) == CLK_FILTER_LINEAR) {
    for (int k = 0; k < dims; ++k) {
      float w;
      int2 pair = linear(coord[k], n[k], sampler & ADDRESS_MASK, sampler & CLK_NORMALIZED_COORDS_TRUE, &w);
      i0[k] = pair.x;
      i1[k] = pair.y;
      a[k] = w;
    }
    if (arrayed) i0[dims] = i1[dims] = layer_index(coord[dims], n[dims]);
    taps = 1 << dims;
  } else {
    i0 = i1 = nearest_texel(coord, n, sampler, dims, arrayed);
  }
  // LINEAR: the 2, 4 or 8 texels around the coordinate, weighted as s8.2
  // writes it, T = (1 - a)(1 - b)(1 - c) T_i0j0k0 + a(1 - b)(1 - c) T_i1j0k0
  // + ..., a texel outside the image counting as the border color. NEAREST
  // is the one tap of weight 1 (1 * T is T, -0.0 and NaN included). One
  // loop, not unrolled, keeps one copy of the texel decoding (a switch over
  // the formats) per read.
  float4 sum;
#pragma clang loop unroll(disable)
  for (int t = 0; t < taps; ++t) {
    int4 second = (int4)(t & 1, t & 2, t & 4, 0) != 0;
    int4 at = second ? i1 : i0;
    float4 factor = second ? a : 1.0f - a;
    float4 term = factor.x * factor.y * factor.z * TEXEL_OR_BORDER(f, __parasol_image_border_f(d));
    sum = t == 0 ? term : sum + term;
  }
  return sum;
}

int4 __parasol_image_sample_i(Image d, uint sampler, float4 coord, int dims, int arrayed) {
  int4 n = extent(d, dims, arrayed);
  int4 at = nearest_texel(coord, n, sampler, dims, arrayed);
  return TEXEL_OR_BORDER(i, __parasol_image_border_i(d));
}

uint4 __parasol_image_sample_ui(Image d, uint sampler, float4 coord, int dims, int arrayed) {
  int4 n = extent(d, dims, arrayed);
  int4 at = nearest_texel(coord, n, sampler, dims, arrayed);
  return TEXEL_OR_BORDER(ui, as_uint4(__parasol_image_border_i(d)));
}

float4 __parasol_image_fetch_f(Image d, uint sampler, int4 coord, int dims, int arrayed) {
  int4 n = extent(d, dims, arrayed);
  int4 at = integer_texel(coord, n, sampler, dims, arrayed);
  return TEXEL_OR_BORDER(f, __parasol_image_border_f(d));
}

int4 __parasol_image_fetch_i(Image d, uint sampler, int4 coord, int dims, int arrayed) {
  int4 n = extent(d, dims, arrayed);
  int4 at = integer_texel(coord, n, sampler, dims, arrayed);
  return TEXEL_OR_BORDER(i, __parasol_image_border_i(d));
}

uint4 __parasol_image_fetch_ui(Image d, uint sampler, int4 coord, int dims, int arrayed) {
  int4 n = extent(d, dims, arrayed);
  int4 at = integer_texel(coord, n, sampler, dims, arrayed);
  return TEXEL_OR_BORDER(ui, as_uint4(__parasol_image_border_i(d)));
}

// The texel a write names; none (w = -1) outside the image.
INL static int4 write_texel(Image d, int4 coord, int dims, int arrayed) {
  int4 n = extent(d, dims, arrayed);
  int4 at = 0;
  for (int k = 0; k < dims + (arrayed ? 1 : 0); ++k) at[k] = coord[k];
  return outside(at, n) ? (int4)(-1) : at;
}

void __parasol_image_write_f(Image d, int4 coord, int dims, int arrayed, float4 rgba) {
  int4 at = write_texel(d, coord, dims, arrayed);
  if (at.w == 0) __parasol_image_store_f(d, at, rgba);
}

void __parasol_image_write_i(Image d, int4 coord, int dims, int arrayed, int4 rgba) {
  int4 at = write_texel(d, coord, dims, arrayed);
  if (at.w == 0) __parasol_image_store_i(d, at, rgba);
}

void __parasol_image_write_ui(Image d, int4 coord, int dims, int arrayed, uint4 rgba) {
  int4 at = write_texel(d, coord, dims, arrayed);
  if (at.w == 0) __parasol_image_store_ui(d, at, rgba);
}
