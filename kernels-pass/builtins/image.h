// Images and samplers in kernel code: what their values are, and the
// internal entry points the image built-ins share (image_format.cl,
// image_addressing.cl, image.cl).
//
// An image value is the address of a parasol::kernels::ImageDesc
// (compiler.h). OpenCL C cannot name the struct an opaque image type points
// to, but __builtin_astype reinterprets the value (same size, same bits) as
// a pointer to the struct below, which is all the built-ins need: they stay
// OpenCL C, with Clang's own declarations and mangling. A sampler value is
// its CLK_* bits (normalized coordinates | addressing mode | filter mode):
// an argument's slot holds them, and __translate_sampler_initializer (the
// function Clang calls for a literal sampler) returns them.
#pragma once
#include "parasol_builtins.h"

// parasol::kernels::ImageDesc, field for field; Compiler.cpp asserts the
// same offsets on the C++ side.
struct ImageDesc {
  __global uchar* data;
  ulong width, height, depth;  // 1 where the type has no such axis
  ulong array_size;            // layers of an image array
  ulong row_pitch, slice_pitch;
  uint channel_order, channel_data_type, element_size, image_type;
};
_Static_assert(__builtin_offsetof(struct ImageDesc, width) == 8, "ImageDesc layout");
_Static_assert(__builtin_offsetof(struct ImageDesc, array_size) == 32, "ImageDesc layout");
_Static_assert(__builtin_offsetof(struct ImageDesc, row_pitch) == 40, "ImageDesc layout");
_Static_assert(__builtin_offsetof(struct ImageDesc, slice_pitch) == 48, "ImageDesc layout");
_Static_assert(__builtin_offsetof(struct ImageDesc, channel_order) == 56, "ImageDesc layout");
_Static_assert(__builtin_offsetof(struct ImageDesc, element_size) == 64, "ImageDesc layout");
_Static_assert(sizeof(struct ImageDesc) == 72, "ImageDesc layout");

typedef const __global struct ImageDesc* Image;

#define IMAGE_DESC(img) __builtin_astype((img), Image)
#define SAMPLER_BITS(s) ((uint)__builtin_astype((s), ulong))

// Texel positions are int4 (x, y, z, 0): an image has 1 to 3 spatial axes
// (dims), and an image array one more axis, its layer, right after them:
// a 1D array's layers are its rows (y), a 2D array's its slices (z). That
// is also how the pixels lie in memory (x * element_size + y * row_pitch
// + z * slice_pitch); unused axes are 0, of extent 1.

// ---- image_format.cl: a texel's bytes <-> the RGBA value of the image
// functions (OpenCL 1.2 s8.3 conversions, s6.12.14.7 channel mapping). `at`
// must lie inside the image.
float4 __parasol_image_texel_f(Image d, int4 at);
int4 __parasol_image_texel_i(Image d, int4 at);
uint4 __parasol_image_texel_ui(Image d, int4 at);
void __parasol_image_store_f(Image d, int4 at, float4 rgba);
void __parasol_image_store_i(Image d, int4 at, int4 rgba);
void __parasol_image_store_ui(Image d, int4 at, uint4 rgba);
// CLK_ADDRESS_CLAMP's border color for the image's channel order.
float4 __parasol_image_border_f(Image d);
int4 __parasol_image_border_i(Image d);

// ---- image_addressing.cl: which texels a coordinate selects (s8.2
// addressing and filtering, s8.4 array layers) and what a read returns.
// coord holds the spatial coordinates, then the layer; sampler is CLK_* bits.
float4 __parasol_image_sample_f(Image d, uint sampler, float4 coord, int dims, int arrayed);
int4 __parasol_image_sample_i(Image d, uint sampler, float4 coord, int dims, int arrayed);
uint4 __parasol_image_sample_ui(Image d, uint sampler, float4 coord, int dims, int arrayed);
// Integer coordinates (unnormalized, nearest: the only samplers s6.12.14.2
// allows with them).
float4 __parasol_image_fetch_f(Image d, uint sampler, int4 coord, int dims, int arrayed);
int4 __parasol_image_fetch_i(Image d, uint sampler, int4 coord, int dims, int arrayed);
uint4 __parasol_image_fetch_ui(Image d, uint sampler, int4 coord, int dims, int arrayed);
// Writes; a coordinate outside the image writes nothing.
void __parasol_image_write_f(Image d, int4 coord, int dims, int arrayed, float4 rgba);
void __parasol_image_write_i(Image d, int4 coord, int dims, int arrayed, int4 rgba);
void __parasol_image_write_ui(Image d, int4 coord, int dims, int arrayed, uint4 rgba);
