// Image types and the image functions around sampling: writes, reads
// without a sampler and with integer coordinates, the queries, every
// access qualifier, image1d_buffer_t, literal samplers, read_write images,
// the arguments' KernelInfo; and what Parasol does where the spec leaves a
// result undefined (never touching memory outside the image).
#include "image_reference.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace test;
using namespace test::image;
using parasol::kernels::ArgKind;

namespace {

// Per image type: writes and sampler-less reads of every texel (the
// texel's coordinate from the global id; linear index LIN), and queries.
const char* const kTypeKernels = R"(
  #pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable
  #define LIN ((get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0))
  #define C1 ((int)get_global_id(0))
  #define C2 ((int2)(get_global_id(0), get_global_id(1)))
  #define C4 ((int4)(get_global_id(0), get_global_id(1), get_global_id(2), 7))
  #define RW(N, T, C)                                                                           \
  __kernel void wf_##N(write_only T im, __global const float4* v) { write_imagef(im, C, v[LIN]); } \
  __kernel void wi_##N(write_only T im, __global const int4* v) { write_imagei(im, C, v[LIN]); }   \
  __kernel void wui_##N(write_only T im, __global const uint4* v) { write_imageui(im, C, v[LIN]); } \
  __kernel void rf_##N(read_only T im, __global float4* o) { o[LIN] = read_imagef(im, C); }       \
  __kernel void ri_##N(read_only T im, __global int4* o) { o[LIN] = read_imagei(im, C); }         \
  __kernel void rui_##N(read_only T im, __global uint4* o) { o[LIN] = read_imageui(im, C); }
  RW(1d, image1d_t, C1)
  RW(1db, image1d_buffer_t, C1)
  RW(1da, image1d_array_t, C2)
  RW(2d, image2d_t, C2)
  RW(2da, image2d_array_t, C4)
  RW(3d, image3d_t, C4)

  // Queries, of a read_only and of a write_only image: width, height, depth,
  // dim (x, y, z, w), array size, channel data type, channel order (-1: no such query).
  #define FORMAT(i, o, k) o[k + 6] = get_image_channel_data_type(i); o[k + 7] = get_image_channel_order(i);
  #define QUERIES(N, T, BODY)                                                                   \
  __kernel void q_##N(read_only T a, write_only T b, __global long* o) {                       \
    for (int k = 0; k < 16; ++k) o[k] = -1;                                                    \
    BODY(a, o, 0) BODY(b, o, 8)                                                                \
  }
  #define Q1(i, o, k) o[k] = get_image_width(i); FORMAT(i, o, k)
  #define Q1A(i, o, k) Q1(i, o, k) o[k + 5] = get_image_array_size(i);
  #define Q2(i, o, k) Q1(i, o, k) o[k + 1] = get_image_height(i); \
    o[k + 3] = get_image_dim(i).x; o[k + 4] = get_image_dim(i).y;
  #define Q2A(i, o, k) Q2(i, o, k) o[k + 5] = get_image_array_size(i);
  #define Q3(i, o, k) Q2(i, o, k) o[k + 2] = get_image_depth(i); \
    o[k + 3] = get_image_dim(i).x + 1000 * get_image_dim(i).w; o[k + 5] = get_image_dim(i).z;
  QUERIES(1d, image1d_t, Q1)
  QUERIES(1db, image1d_buffer_t, Q1)
  QUERIES(1da, image1d_array_t, Q1A)
  QUERIES(2d, image2d_t, Q2)
  QUERIES(2da, image2d_array_t, Q2A)
  QUERIES(3d, image3d_t, Q3)
)";

struct TypeCase {
  const char* suffix;
  cl_mem_object_type type;
  std::size_t w, h, d, layers;
};
const TypeCase kTypes[] = {
    {"1d", CL_MEM_OBJECT_IMAGE1D, 9, 1, 1, 0},
    {"1db", CL_MEM_OBJECT_IMAGE1D_BUFFER, 11, 1, 1, 0},
    {"1da", CL_MEM_OBJECT_IMAGE1D_ARRAY, 6, 1, 1, 4},
    {"2d", CL_MEM_OBJECT_IMAGE2D, 5, 4, 1, 0},
    {"2da", CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 3, 1, 3},
    {"3d", CL_MEM_OBJECT_IMAGE3D, 3, 4, 5, 0},
};

Image make(const TypeCase& t, cl_channel_order order, cl_channel_type data_type) {
  return Image(t.type, order, data_type, t.w, t.h, t.d, t.layers, /*row_pad=*/8, /*slice_pad=*/24);
}

NDRange texels(Image& img) {
  auto n = img.extent();
  return range(3, {n[0], n[1], n[2]}, {1, 1, 1});
}

}  // namespace

TEST_CASE("write_imagef/i/ui on every image type store each texel at its pitches, nothing else",
          "[image]") {
  auto p = build_ok(kTypeKernels);
  for (const TypeCase& t : kTypes) {
    INFO(t.suffix);
    // write_imagef into BGRA UNORM_INT8, write_imagei into RG SIGNED_INT16,
    // write_imageui into RGBA UNSIGNED_INT32: a value from each coordinate.
    struct W {
      const char* kernel;
      cl_channel_order order;
      cl_channel_type type;
    };
    for (W w : {W{"wf_", CL_BGRA, CL_UNORM_INT8}, W{"wi_", CL_RG, CL_SIGNED_INT16},
                W{"wui_", CL_RGBA, CL_UNSIGNED_INT32}}) {
      INFO(w.kernel);
      Image img = make(t, w.order, w.type);
      Buf<unsigned char> want(img.bytes.begin(), img.bytes.end());
      auto n = img.extent();
      Buf<Float4> vf;
      Buf<Int4> vi;
      for (std::size_t z = 0; z < n[2]; ++z)
        for (std::size_t y = 0; y < n[1]; ++y)
          for (std::size_t x = 0; x < n[0]; ++x) {
            Float4 f{float(x) / 10, float(y) / 10, float(z) / 10, 0.5f};
            Int4 i{int(x) - 3, -int(y) * 1000, int(z) + 40000, int(x + 16 * y + 256 * z)};
            vf.push_back(f);
            vi.push_back(i);
            unsigned char* at = want.data() + (img.at(x, y, z) - img.bytes.data());
            if (w.type == CL_UNORM_INT8) encode_float(at, w.order, w.type, f);
            else encode_int(at, w.order, w.type, i);
          }
      Args args;
      args.ptr(&img.desc).ptr(w.type == CL_UNORM_INT8 ? static_cast<void*>(vf.data()) : vi.data());
      run(*p, std::string(w.kernel) + t.suffix, args, texels(img));
      CHECK(img.bytes == want);
    }
  }
}

TEST_CASE("read_imagef/i/ui without a sampler on every image type", "[image]") {
  auto p = build_ok(kTypeKernels);
  std::mt19937 rng(3);
  for (const TypeCase& t : kTypes) {
    INFO(t.suffix);
    struct R {
      const char* kernel;
      cl_channel_order order;
      cl_channel_type type;
    };
    for (R r : {R{"rf_", CL_RGBA, CL_HALF_FLOAT}, R{"ri_", CL_RA, CL_SIGNED_INT8},
                R{"rui_", CL_R, CL_UNSIGNED_INT16}}) {
      INFO(r.kernel);
      Image img = make(t, r.order, r.type);
      for (auto& b : img.bytes) b = static_cast<unsigned char>(rng() & 0x3f);  // finite halves
      auto n = img.extent();
      std::size_t count = n[0] * n[1] * n[2];
      Buf<Float4> of(count);
      Buf<Int4> oi(count);
      Args args;
      args.ptr(&img.desc).ptr(r.type == CL_HALF_FLOAT ? static_cast<void*>(of.data()) : oi.data());
      run(*p, std::string(r.kernel) + t.suffix, args, texels(img));
      std::size_t i = 0;
      for (std::size_t z = 0; z < n[2]; ++z)
        for (std::size_t y = 0; y < n[1]; ++y)
          for (std::size_t x = 0; x < n[0]; ++x, ++i) {
            INFO(x << "," << y << "," << z);
            if (r.type == CL_HALF_FLOAT) CHECK(of[i] == decode_float(img.at(x, y, z), r.order, r.type));
            else CHECK(oi[i] == decode_int(img.at(x, y, z), r.order, r.type));
          }
    }
  }
}

TEST_CASE("image queries on every image type, read_only and write_only", "[image]") {
  auto p = build_ok(kTypeKernels);
  for (const TypeCase& t : kTypes) {
    INFO(t.suffix);
    Image a = make(t, CL_RGBA, CL_UNORM_INT8), b = make(t, CL_INTENSITY, CL_FLOAT);
    Buf<long> o(16);
    Args args;
    args.ptr(&a.desc).ptr(&b.desc).ptr(o.data());
    run(*p, std::string("q_") + t.suffix, args, range(1, {1}, {1}));
    for (int k : {0, 8}) {
      const Image& img = k == 0 ? a : b;
      long w = long(t.w), h = long(t.h), d = long(t.d), layers = long(t.layers);
      CHECK(o[k] == w);
      CHECK(o[k + 6] == long(img.data_type));
      CHECK(o[k + 7] == long(img.order));
      switch (t.type) {
        case CL_MEM_OBJECT_IMAGE1D_ARRAY: CHECK(o[k + 5] == layers); break;
        case CL_MEM_OBJECT_IMAGE2D:
          CHECK((o[k + 1] == h && o[k + 3] == w && o[k + 4] == h));
          break;
        case CL_MEM_OBJECT_IMAGE2D_ARRAY:
          CHECK((o[k + 1] == h && o[k + 3] == w && o[k + 4] == h && o[k + 5] == layers));
          break;
        case CL_MEM_OBJECT_IMAGE3D:  // get_image_dim: (w, h, d, 0)
          CHECK((o[k + 1] == h && o[k + 2] == d && o[k + 3] == w && o[k + 4] == h && o[k + 5] == d));
          break;
        default: break;
      }
    }
  }
}

TEST_CASE("integer coordinates with a sampler: CLAMP_TO_EDGE clamps, CLAMP gives the border, layers clamp",
          "[image][sampler]") {
  auto p = build_ok(R"(
    __kernel void r2(read_only image2d_t im, sampler_t s, __global const int4* c, __global float4* o) {
      size_t i = get_global_id(0); o[i] = read_imagef(im, s, c[i].xy);
    }
    __kernel void r2a(read_only image2d_array_t im, sampler_t s, __global const int4* c, __global uint4* o) {
      size_t i = get_global_id(0); o[i] = read_imageui(im, s, c[i]);
    })");
  std::mt19937 rng(5);
  Image img(CL_MEM_OBJECT_IMAGE2D, CL_RG, CL_UNORM_INT8, 4, 3);
  Image arr(CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_RGBA, CL_UNSIGNED_INT8, 3, 2, 1, 3);
  for (auto& b : img.bytes) b = static_cast<unsigned char>(rng());
  for (auto& b : arr.bytes) b = static_cast<unsigned char>(rng());
  for (cl_uint mode : {CLK_ADDRESS_NONE, CLK_ADDRESS_CLAMP_TO_EDGE, CLK_ADDRESS_CLAMP}) {
    INFO("addressing 0x" << std::hex << mode);
    Sampler sm{false, mode, false};
    Buf<Int4> coords;
    for (int y = -2; y <= 4; ++y)
      for (int x = -2; x <= 5; ++x)
        for (int layer : {-1, 0, 2, 5}) {
          bool inside = x >= 0 && x < 4 && y >= 0 && y < 3;
          if (mode == CLK_ADDRESS_NONE && !inside) continue;  // undefined (s8.2)
          coords.push_back({x, y, layer, 0});
        }
    Buf<Float4> o(coords.size());
    Buf<Int4> oa(coords.size());
    Args a1, a2;
    a1.ptr(&img.desc).value(sm.bits()).ptr(coords.data()).ptr(o.data());
    a2.ptr(&arr.desc).value(sm.bits()).ptr(coords.data()).ptr(oa.data());
    run(*p, "r2", a1, range(1, {coords.size()}, {1}));
    run(*p, "r2a", a2, range(1, {coords.size()}, {1}));
    for (std::size_t i = 0; i < coords.size(); ++i) {
      int x = coords[i][0], y = coords[i][1], layer = coords[i][2];
      INFO(x << "," << y << " layer " << layer);
      int i2 = address_mode(x, 4, mode), j2 = address_mode(y, 3, mode);
      Float4 want = i2 < 0 || j2 < 0 || i2 >= 4 || j2 >= 3 ? Float4{0, 0, 0, 1}  // CL_RG: opaque
                                                            : decode_float(img.at(i2, j2), CL_RG, CL_UNORM_INT8);
      CHECK(o[i] == want);
      int ia = address_mode(x, 3, mode), ja = address_mode(y, 2, mode);
      int k = std::clamp(layer, 0, 2);  // s8.4
      if (mode == CLK_ADDRESS_NONE && (x >= 3 || y >= 2)) continue;
      Int4 want_a = ia < 0 || ja < 0 || ia >= 3 || ja >= 2 ? Int4{0, 0, 0, 0}  // CL_RGBA: transparent
                                                           : decode_int(arr.at(ia, ja, k), CL_RGBA, CL_UNSIGNED_INT8);
      CHECK(oa[i] == want_a);
    }
  }
}

TEST_CASE("read_imagei and read_imageui with float coordinates sample NEAREST in every mode",
          "[image][sampler]") {
  auto p = build_ok(R"(
    __kernel void ri(read_only image2d_t im, sampler_t s, __global const float2* c, __global int4* o) {
      size_t i = get_global_id(0); o[i] = read_imagei(im, s, c[i]);
    }
    __kernel void rui(read_only image3d_t im, sampler_t s, __global const float4* c, __global uint4* o) {
      size_t i = get_global_id(0); o[i] = read_imageui(im, s, c[i]);
    })");
  std::mt19937 rng(9);
  Image im2(CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_SIGNED_INT32, 5, 3);
  Image im3(CL_MEM_OBJECT_IMAGE3D, CL_R, CL_UNSIGNED_INT16, 3, 2, 4);
  for (auto& b : im2.bytes) b = static_cast<unsigned char>(rng());
  for (auto& b : im3.bytes) b = static_cast<unsigned char>(rng());
  std::uniform_real_distribution<float> coord(-3.0f, 8.0f);
  for (cl_uint mode : {CLK_ADDRESS_CLAMP_TO_EDGE, CLK_ADDRESS_CLAMP, CLK_ADDRESS_REPEAT,
                       CLK_ADDRESS_MIRRORED_REPEAT})
    for (bool normalized : {false, true}) {
      if (!normalized && (mode == CLK_ADDRESS_REPEAT || mode == CLK_ADDRESS_MIRRORED_REPEAT)) continue;
      INFO("addressing 0x" << std::hex << mode << (normalized ? " normalized" : ""));
      Sampler sm{normalized, mode, false};
      Buf<std::array<float, 2>> c2;
      Buf<Float4> c3;
      for (int i = 0; i < 300; ++i) {
        float scale = normalized ? 0.25f : 1.0f;
        c2.push_back({coord(rng) * scale, coord(rng) * scale});
        c3.push_back({coord(rng) * scale, coord(rng) * scale, coord(rng) * scale, 0});
      }
      c2.push_back({2.0f, 1.0f});  // texel boundaries
      c3.push_back({1.0f, 1.0f, 2.0f, 0});
      Buf<Int4> o2(c2.size()), o3(c3.size());
      Args a2, a3;
      a2.ptr(&im2.desc).value(sm.bits()).ptr(c2.data()).ptr(o2.data());
      a3.ptr(&im3.desc).value(sm.bits()).ptr(c3.data()).ptr(o3.data());
      run(*p, "ri", a2, range(1, {c2.size()}, {1}));
      run(*p, "rui", a3, range(1, {c3.size()}, {1}));
      for (std::size_t i = 0; i < c2.size(); ++i) {
        Axis x = sample_axis(c2[i][0], 5, sm), y = sample_axis(c2[i][1], 3, sm);
        bool out = x.i0 < 0 || y.i0 < 0 || x.i0 >= 5 || y.i0 >= 3;
        INFO(c2[i][0] << "," << c2[i][1]);
        CHECK(o2[i] == (out ? Int4{0, 0, 0, 0} : decode_int(im2.at(x.i0, y.i0), CL_RGBA, CL_SIGNED_INT32)));
      }
      for (std::size_t i = 0; i < c3.size(); ++i) {
        Axis x = sample_axis(c3[i][0], 3, sm), y = sample_axis(c3[i][1], 2, sm), z = sample_axis(c3[i][2], 4, sm);
        bool out = x.i0 < 0 || y.i0 < 0 || z.i0 < 0 || x.i0 >= 3 || y.i0 >= 2 || z.i0 >= 4;
        INFO(c3[i][0] << "," << c3[i][1] << "," << c3[i][2]);
        CHECK(o3[i] == (out ? Int4{0, 0, 0, 1} : decode_int(im3.at(x.i0, y.i0, z.i0), CL_R, CL_UNSIGNED_INT16)));
      }
    }
}

TEST_CASE("literal samplers: program scope, kernel scope, in the call, through a function", "[image][sampler]") {
  auto p = build_ok(R"(
    __constant sampler_t repeat_linear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
    const sampler_t mirror = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_NEAREST;
    float4 through(read_only image2d_t im, sampler_t s, float2 c) { return read_imagef(im, s, c); }
    __kernel void k(read_only image2d_t im, __global const float2* c, __global float4* o) {
      const sampler_t edge_linear = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;
      size_t i = get_global_id(0);
      o[4 * i] = read_imagef(im, repeat_linear, c[i]);
      o[4 * i + 1] = through(im, mirror, c[i]);
      o[4 * i + 2] = read_imagef(im, edge_linear, c[i] * 4.0f);
      o[4 * i + 3] = read_imagef(im, CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST,
                                 c[i] * 4.0f);
    })");
  Image img(CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_FLOAT, 4, 3);
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> v(0.0f, 1.0f);
  for (std::size_t y = 0; y < 3; ++y)
    for (std::size_t x = 0; x < 4; ++x) {
      Float4 f{v(rng), v(rng), v(rng), v(rng)};
      std::memcpy(img.at(x, y), f.data(), 16);
    }
  Buf<std::array<float, 2>> c;
  for (float s : {-1.3f, -0.2f, 0.0f, 0.1f, 0.37f, 0.5f, 0.99f, 1.0f, 1.6f, 2.3f})
    for (float t : {-0.6f, 0.0f, 0.4f, 0.95f, 1.2f}) c.push_back({s, t});
  Buf<Float4> o(4 * c.size());
  Args args;
  args.ptr(&img.desc).ptr(c.data()).ptr(o.data());
  run(*p, "k", args, range(1, {c.size()}, {1}));
  const Sampler samplers[] = {{true, CLK_ADDRESS_REPEAT, true},
                              {true, CLK_ADDRESS_MIRRORED_REPEAT, false},
                              {false, CLK_ADDRESS_CLAMP_TO_EDGE, true},
                              {false, CLK_ADDRESS_CLAMP, false}};
  for (std::size_t i = 0; i < c.size(); ++i)
    for (int s = 0; s < 4; ++s) {
      float scale = s >= 2 ? 4.0f : 1.0f;
      Float4 want = read_float(img, samplers[s], {c[i][0] * scale, c[i][1] * scale, 0, 0});
      INFO("sampler " << s << " at " << c[i][0] << "," << c[i][1]);
      for (int q = 0; q < 4; ++q) CHECK(std::fabs(o[4 * i + s][q] - want[q]) <= 4e-6f);
    }
}

TEST_CASE("read_write images (OpenCL C 2.0): read, write, query the same image", "[image]") {
  auto p = build_ok(R"(
    __kernel void bump(read_write image2d_t im, read_write image1d_buffer_t b) {
      int2 at = (int2)(get_global_id(0), get_global_id(1));
      uint4 v = read_imageui(im, at);
      write_imageui(im, at, v + (uint4)(get_image_width(im), get_image_height(im), 1, 2));
      if (at.y == 0) write_imagef(b, at.x, read_imagef(b, at.x) * 2.0f);
    })", "-cl-std=CL2.0");
  REQUIRE(p->kernels()[0].args[0].access == CL_KERNEL_ARG_ACCESS_READ_WRITE);
  Image img(CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_UNSIGNED_INT8, 5, 2);
  Image buf(CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_R, CL_FLOAT, 5);
  for (std::size_t i = 0; i < img.bytes.size(); ++i) img.bytes[i] = static_cast<unsigned char>(i % 50);
  for (std::size_t x = 0; x < 5; ++x) {
    float f = float(x) + 0.25f;
    std::memcpy(buf.at(x), &f, 4);
  }
  Buf<unsigned char> before(img.bytes.begin(), img.bytes.end());
  Args args;
  args.ptr(&img.desc).ptr(&buf.desc);
  run(*p, "bump", args, range(2, {5, 2}, {1, 1}));
  for (std::size_t y = 0; y < 2; ++y)
    for (std::size_t x = 0; x < 5; ++x) {
      std::size_t at = img.at(x, y) - img.bytes.data();
      CHECK(int(img.bytes[at]) == before[at] + 5);
      CHECK(int(img.bytes[at + 1]) == before[at + 1] + 2);
      CHECK(int(img.bytes[at + 2]) == before[at + 2] + 1);
      CHECK(int(img.bytes[at + 3]) == before[at + 3] + 2);
      float f;
      std::memcpy(&f, buf.at(x), 4);
      CHECK(f == (float(x) + 0.25f) * 2.0f);
    }
}

TEST_CASE("image and sampler arguments in KernelInfo: kind, access, address space, type name", "[image][build]") {
  auto p = build_ok(R"(
    __kernel void k(__read_only image2d_t a, __write_only image3d_t b, image1d_buffer_t c,
                    sampler_t s, read_only image2d_array_t d, write_only image1d_array_t e,
                    __global float4* out) {
      out[0] = read_imagef(a, s, (float2)(0.5f)) + read_imagef(c, 0) + read_imagef(d, s, (float4)(0.5f));
      write_imagef(e, (int2)(0, 0), out[1]);
    })");
  const auto& args = p->kernels()[0].args;
  REQUIRE(args.size() == 7);
  struct Want {
    const char* type;
    ArgKind kind;
    cl_kernel_arg_access_qualifier access;
    cl_kernel_arg_address_qualifier address;
  };
  const Want want[] = {
      {"image2d_t", ArgKind::Image, CL_KERNEL_ARG_ACCESS_READ_ONLY, CL_KERNEL_ARG_ADDRESS_GLOBAL},
      {"image3d_t", ArgKind::Image, CL_KERNEL_ARG_ACCESS_WRITE_ONLY, CL_KERNEL_ARG_ADDRESS_GLOBAL},
      {"image1d_buffer_t", ArgKind::Image, CL_KERNEL_ARG_ACCESS_READ_ONLY, CL_KERNEL_ARG_ADDRESS_GLOBAL},
      {"sampler_t", ArgKind::Sampler, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_ADDRESS_PRIVATE},
      {"image2d_array_t", ArgKind::Image, CL_KERNEL_ARG_ACCESS_READ_ONLY, CL_KERNEL_ARG_ADDRESS_GLOBAL},
      {"image1d_array_t", ArgKind::Image, CL_KERNEL_ARG_ACCESS_WRITE_ONLY, CL_KERNEL_ARG_ADDRESS_GLOBAL},
      {"float4*", ArgKind::GlobalPointer, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_ADDRESS_GLOBAL},
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    INFO("argument " << i << " " << args[i].name);
    CHECK(args[i].type_name == want[i].type);
    CHECK(args[i].kind == want[i].kind);
    CHECK(args[i].access == want[i].access);
    CHECK(args[i].address == want[i].address);
    CHECK(args[i].size == sizeof(void*));  // sizeof(cl_mem), sizeof(cl_sampler)
  }
}

TEST_CASE("where the spec leaves it undefined, Parasol reads the border and writes nothing", "[image]") {
  auto p = build_ok(R"(
    __kernel void r(read_only image2d_t im, sampler_t s, __global const float2* c, __global float4* o) {
      size_t i = get_global_id(0); o[i] = read_imagef(im, s, c[i]);
    }
    __kernel void plain(read_only image2d_t im, __global const int2* c, __global float4* o) {
      size_t i = get_global_id(0); o[i] = read_imagef(im, c[i]);
    }
    __kernel void w(write_only image2d_array_t im, __global const int4* c) {
      write_imagef(im, c[get_global_id(0)], (float4)(1.0f));
    })");
  Image img(CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_FLOAT, 3, 2);
  for (std::size_t i = 0; i < 6; ++i) {
    Float4 f{1, 2, 3, 4};
    std::memcpy(img.bytes.data() + 16 * i, f.data(), 16);
  }
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  // CLK_ADDRESS_NONE outside the image, REPEAT on unnormalized coordinates,
  // NaN and infinite coordinates under CLAMP: the border color (transparent).
  Buf<std::array<float, 2>> c{{-1.0f, 0.5f}, {3.5f, 0.5f}, {0.5f, 7.0f}, {1e30f, -1e30f}, {nan, 0.5f}, {-inf, 0.5f}};
  Buf<Float4> o(c.size());
  for (Sampler sm : {Sampler{false, CLK_ADDRESS_NONE, false}, Sampler{false, CLK_ADDRESS_NONE, true},
                     Sampler{false, CLK_ADDRESS_REPEAT, false}, Sampler{false, CLK_ADDRESS_CLAMP, true}}) {
    Args args;
    args.ptr(&img.desc).value(sm.bits()).ptr(c.data()).ptr(o.data());
    run(*p, "r", args, range(1, {c.size()}, {1}));
    for (std::size_t i = 0; i < c.size(); ++i) {
      INFO("sampler " << sm.bits() << " coordinate " << i);
      CHECK(o[i] == Float4{0, 0, 0, 0});
    }
  }
  // Under CLAMP_TO_EDGE a NaN coordinate reads an edge texel, as -INF does.
  Args edge;
  edge.ptr(&img.desc).value(Sampler{true, CLK_ADDRESS_CLAMP_TO_EDGE, true}.bits()).ptr(c.data()).ptr(o.data());
  run(*p, "r", edge, range(1, {c.size()}, {1}));
  CHECK(o[4] == Float4{1, 2, 3, 4});
  // Reads without a sampler outside the image.
  Buf<std::array<int, 2>> ic{{-1, 0}, {3, 0}, {0, 2}, {-100000, 100000}};
  Buf<Float4> io(ic.size());
  Args plain;
  plain.ptr(&img.desc).ptr(ic.data()).ptr(io.data());
  run(*p, "plain", plain, range(1, {ic.size()}, {1}));
  for (const Float4& v : io) CHECK(v == Float4{0, 0, 0, 0});
  // Writes outside the image, layers included, leave every byte as it was.
  Image arr(CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_R, CL_UNORM_INT8, 3, 2, 1, 2, 4, 4);
  Buf<unsigned char> before(arr.bytes.begin(), arr.bytes.end());
  Buf<Int4> wc{{-1, 0, 0, 0}, {3, 0, 0, 0}, {0, 2, 0, 0}, {0, 0, 2, 0}, {0, 0, -1, 0}, {1 << 30, 0, 0, 0}};
  Args w;
  w.ptr(&arr.desc).ptr(wc.data());
  run(*p, "w", w, range(1, {wc.size()}, {1}));
  CHECK(arr.bytes == before);
}
