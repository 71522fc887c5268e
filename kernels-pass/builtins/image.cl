// The image functions of OpenCL C 1.2 (s6.12.14) and the read_write images
// of OpenCL C 2.0, for image1d_t, image1d_buffer_t, image1d_array_t,
// image2d_t, image2d_array_t and image3d_t (3D writes: cl_khr_3d_image_writes):
// read_image{f,i,ui} with a sampler (float and integer coordinates) and
// without one, write_image{f,i,ui}, and the queries. Each is a thin wrapper
// over the shared entry points of image.h, with its image type's geometry
// as constants; literal samplers come through __translate_sampler_initializer.
#include "image.h"

// A literal sampler's value is its CLK_* bits, as a sampler argument's.
__constant void* __translate_sampler_initializer(int bits) {
  return (__constant void*)(size_t)(uint)bits;
}

// What a read without a sampler does (s6.12.14.3).
#define PLAIN_SAMPLER (CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST)

// A coordinate of 1, 2 or 4 components as the 4 the entry points take;
// what a type does not use (coord.w, the rest) is 0.
#define WIDEN1(T, c) ((T##4)((c), 0, 0, 0))
#define WIDEN2(T, c) ((T##4)((c), 0, 0))
#define WIDEN4(T, c) ((T##4)((c).xyz, 0))

// IMG: the image type; FC, IC: its float and integer coordinate types, of
// W components; DIMS: its spatial axes; ARR: whether it is an array.
#define SAMPLED_READS(IMG, FC, IC, W, DIMS, ARR)                                                \
  OVL float4 read_imagef(read_only IMG i, sampler_t s, FC c) {                                 \
    return __parasol_image_sample_f(IMAGE_DESC(i), SAMPLER_BITS(s), WIDEN##W(float, c), DIMS, ARR); \
  }                                                                                            \
  OVL int4 read_imagei(read_only IMG i, sampler_t s, FC c) {                                   \
    return __parasol_image_sample_i(IMAGE_DESC(i), SAMPLER_BITS(s), WIDEN##W(float, c), DIMS, ARR); \
  }                                                                                            \
  OVL uint4 read_imageui(read_only IMG i, sampler_t s, FC c) {                                 \
    return __parasol_image_sample_ui(IMAGE_DESC(i), SAMPLER_BITS(s), WIDEN##W(float, c), DIMS, ARR); \
  }                                                                                            \
  OVL float4 read_imagef(read_only IMG i, sampler_t s, IC c) {                                 \
    return __parasol_image_fetch_f(IMAGE_DESC(i), SAMPLER_BITS(s), WIDEN##W(int, c), DIMS, ARR); \
  }                                                                                            \
  OVL int4 read_imagei(read_only IMG i, sampler_t s, IC c) {                                   \
    return __parasol_image_fetch_i(IMAGE_DESC(i), SAMPLER_BITS(s), WIDEN##W(int, c), DIMS, ARR); \
  }                                                                                            \
  OVL uint4 read_imageui(read_only IMG i, sampler_t s, IC c) {                                 \
    return __parasol_image_fetch_ui(IMAGE_DESC(i), SAMPLER_BITS(s), WIDEN##W(int, c), DIMS, ARR); \
  }

#define PLAIN_READS(ACC, IMG, IC, W, DIMS, ARR)                                                 \
  OVL float4 read_imagef(ACC IMG i, IC c) {                                                    \
    return __parasol_image_fetch_f(IMAGE_DESC(i), PLAIN_SAMPLER, WIDEN##W(int, c), DIMS, ARR);  \
  }                                                                                            \
  OVL int4 read_imagei(ACC IMG i, IC c) {                                                      \
    return __parasol_image_fetch_i(IMAGE_DESC(i), PLAIN_SAMPLER, WIDEN##W(int, c), DIMS, ARR);  \
  }                                                                                            \
  OVL uint4 read_imageui(ACC IMG i, IC c) {                                                    \
    return __parasol_image_fetch_ui(IMAGE_DESC(i), PLAIN_SAMPLER, WIDEN##W(int, c), DIMS, ARR); \
  }

#define WRITES(ACC, IMG, IC, W, DIMS, ARR)                                                      \
  OVL void write_imagef(ACC IMG i, IC c, float4 v) {                                           \
    __parasol_image_write_f(IMAGE_DESC(i), WIDEN##W(int, c), DIMS, ARR, v);                     \
  }                                                                                            \
  OVL void write_imagei(ACC IMG i, IC c, int4 v) {                                             \
    __parasol_image_write_i(IMAGE_DESC(i), WIDEN##W(int, c), DIMS, ARR, v);                     \
  }                                                                                            \
  OVL void write_imageui(ACC IMG i, IC c, uint4 v) {                                           \
    __parasol_image_write_ui(IMAGE_DESC(i), WIDEN##W(int, c), DIMS, ARR, v);                    \
  }

#define COMMON_QUERIES(ACC, IMG)                                                                \
  OVL int get_image_width(ACC IMG i) { return (int)IMAGE_DESC(i)->width; }                     \
  OVL int get_image_channel_data_type(ACC IMG i) { return (int)IMAGE_DESC(i)->channel_data_type; } \
  OVL int get_image_channel_order(ACC IMG i) { return (int)IMAGE_DESC(i)->channel_order; }
#define HEIGHT_QUERY(ACC, IMG) \
  OVL int get_image_height(ACC IMG i) { return (int)IMAGE_DESC(i)->height; }
#define ARRAY_QUERY(ACC, IMG) \
  OVL size_t get_image_array_size(ACC IMG i) { return (size_t)IMAGE_DESC(i)->array_size; }
#define DIM2_QUERY(ACC, IMG)                                                                    \
  OVL int2 get_image_dim(ACC IMG i) {                                                          \
    return (int2)((int)IMAGE_DESC(i)->width, (int)IMAGE_DESC(i)->height);                      \
  }

// Everything an image type offers under one access qualifier.
#define FOR_ACCESS(M, IMG) M(read_only, IMG) M(write_only, IMG) M(read_write, IMG)

#define IMAGE1D(ACC, IMG) COMMON_QUERIES(ACC, IMG)
#define IMAGE1D_ARRAY(ACC, IMG) COMMON_QUERIES(ACC, IMG) ARRAY_QUERY(ACC, IMG)
#define IMAGE2D(ACC, IMG) COMMON_QUERIES(ACC, IMG) HEIGHT_QUERY(ACC, IMG) DIM2_QUERY(ACC, IMG)
#define IMAGE2D_ARRAY(ACC, IMG) IMAGE2D(ACC, IMG) ARRAY_QUERY(ACC, IMG)
#define IMAGE3D(ACC, IMG)                                                                       \
  COMMON_QUERIES(ACC, IMG) HEIGHT_QUERY(ACC, IMG)                                               \
  OVL int get_image_depth(ACC IMG i) { return (int)IMAGE_DESC(i)->depth; }                     \
  OVL int4 get_image_dim(ACC IMG i) {                                                          \
    Image d = IMAGE_DESC(i);                                                                   \
    return (int4)((int)d->width, (int)d->height, (int)d->depth, 0);                            \
  }

FOR_ACCESS(IMAGE1D, image1d_t)
FOR_ACCESS(IMAGE1D, image1d_buffer_t)
FOR_ACCESS(IMAGE1D_ARRAY, image1d_array_t)
FOR_ACCESS(IMAGE2D, image2d_t)
FOR_ACCESS(IMAGE2D_ARRAY, image2d_array_t)
FOR_ACCESS(IMAGE3D, image3d_t)

// Reads and writes: (type, float coordinate, integer coordinate, its
// components, spatial axes, arrayed). image1d_buffer_t has no sampler.
#define READS_AND_WRITES(IMG, FC, IC, W, DIMS, ARR)                                             \
  SAMPLED_READS(IMG, FC, IC, W, DIMS, ARR)                                                      \
  PLAIN_READS(read_only, IMG, IC, W, DIMS, ARR)                                                 \
  PLAIN_READS(read_write, IMG, IC, W, DIMS, ARR)                                                \
  WRITES(write_only, IMG, IC, W, DIMS, ARR)                                                     \
  WRITES(read_write, IMG, IC, W, DIMS, ARR)
READS_AND_WRITES(image1d_t, float, int, 1, 1, 0)
READS_AND_WRITES(image1d_array_t, float2, int2, 2, 1, 1)
READS_AND_WRITES(image2d_t, float2, int2, 2, 2, 0)
READS_AND_WRITES(image2d_array_t, float4, int4, 4, 2, 1)
READS_AND_WRITES(image3d_t, float4, int4, 4, 3, 0)
PLAIN_READS(read_only, image1d_buffer_t, int, 1, 1, 0)
PLAIN_READS(read_write, image1d_buffer_t, int, 1, 1, 0)
WRITES(write_only, image1d_buffer_t, int, 1, 1, 0)
WRITES(read_write, image1d_buffer_t, int, 1, 1, 0)
