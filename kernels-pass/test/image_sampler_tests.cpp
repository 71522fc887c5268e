// Sampler semantics (OpenCL 1.2 s8.2, s8.4) on every image type a sampler
// reads: each addressing mode with normalized and unnormalized coordinates
// (REPEAT and MIRRORED_REPEAT only normalized), NEAREST and LINEAR, at
// coordinates inside, outside, negative, on texel boundaries and centers,
// against image_reference.h. NEAREST must pick the very texel; LINEAR,
// whose precision s8.2 leaves open, must agree to float rounding.
#include "image_reference.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace test;
using namespace test::image;

namespace {

// One kernel per image type: out[i] = read_imagef(im, s, coords[i]).
const char* const kSampleKernels = R"(
  __kernel void s1(read_only image1d_t im, sampler_t s, __global const float4* c, __global float4* out) {
    size_t i = get_global_id(0); out[i] = read_imagef(im, s, c[i].x);
  }
  __kernel void s1a(read_only image1d_array_t im, sampler_t s, __global const float4* c, __global float4* out) {
    size_t i = get_global_id(0); out[i] = read_imagef(im, s, c[i].xy);
  }
  __kernel void s2(read_only image2d_t im, sampler_t s, __global const float4* c, __global float4* out) {
    size_t i = get_global_id(0); out[i] = read_imagef(im, s, c[i].xy);
  }
  __kernel void s2a(read_only image2d_array_t im, sampler_t s, __global const float4* c, __global float4* out) {
    size_t i = get_global_id(0); out[i] = read_imagef(im, s, c[i]);
  }
  __kernel void s3(read_only image3d_t im, sampler_t s, __global const float4* c, __global float4* out) {
    size_t i = get_global_id(0); out[i] = read_imagef(im, s, c[i]);
  }
)";

struct Case {
  const char* kernel;
  cl_mem_object_type type;
  std::size_t w, h, d, layers;
};

// Unnormalized coordinates along an axis of n texels: texel boundaries and
// centers, just below a boundary, negative, beyond the far edge, far out.
std::vector<float> unnormalized_coords(int n) {
  float fn = float(n);
  return {-2.5f,  -1.0f,     -0.75f,      -0.5f,      -0.25f,     -1e-6f,     0.0f,
          0.25f,  0.5f,      0.75f,       1.0f,       1.5f,       1.0f - 1e-6f, fn / 2 + 0.3f,
          fn - 1, fn - 0.5f, fn - 0.25f,  fn - 1e-3f, fn,         fn + 0.5f,  fn + 1.7f,
          2 * fn + 0.4f,     -fn - 0.6f};
}

// Normalized ones: the same divided by n, and other periods of the
// repeating modes (negative, exactly 1, odd and even multiples).
std::vector<float> normalized_coords(int n) {
  std::vector<float> s;
  for (float u : unnormalized_coords(n)) s.push_back(u / float(n));
  // -1e-9: s - floor(s) rounds to 1, so REPEAT's u is n and wraps to 0.
  for (float v : {-1.3f, 1.0f, 2.6f, -0.5f, 0.999999f, 1.5f, 3.0f, -2.0f, 0.5f / float(n), -1e-9f})
    s.push_back(v);
  return s;
}

// Array layers (always unnormalized, s8.4): rint's ties, outside the array.
std::vector<float> layer_coords(int layers) {
  return {-1.0f, -0.5f, 0.0f, 0.49f, 0.5f, 1.0f, 1.5f, 2.5f, float(layers - 1), float(layers) + 3.0f};
}

// Whether CLK_ADDRESS_NONE's result is defined at c: every texel the
// filter selects lies inside the image (s8.2).
bool none_defined(float c, int n, const Sampler& sm) {
  Axis a = sample_axis(c, n, sm);
  auto in = [n](int i) { return i >= 0 && i < n; };
  return in(a.i0) && (!sm.linear || in(a.i1));
}

void check_type(const parasol::kernels::CompiledProgram& p, const Case& c, cl_channel_order order,
                cl_channel_type data_type) {
  Image img(c.type, order, data_type, c.w, c.h, c.d, c.layers, /*row_pad=*/16, /*slice_pad=*/32);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  auto n = img.extent();
  for (std::size_t z = 0; z < n[2]; ++z)
    for (std::size_t y = 0; y < n[1]; ++y)
      for (std::size_t x = 0; x < n[0]; ++x) {
        Float4 v{value(rng), value(rng), value(rng), value(rng)};
        if (data_type == CL_FLOAT) std::memcpy(img.at(x, y, z), v.data(), img.element());
        else encode_float(img.at(x, y, z), order, data_type, {std::fabs(v[0]), 0, 0, 0});
      }
  int dims = img.spatial_dims();
  const cl_uint modes[] = {CLK_ADDRESS_NONE, CLK_ADDRESS_CLAMP_TO_EDGE, CLK_ADDRESS_CLAMP,
                           CLK_ADDRESS_REPEAT, CLK_ADDRESS_MIRRORED_REPEAT};
  for (cl_uint mode : modes)
    for (bool normalized : {false, true})
      for (bool linear : {false, true}) {
        bool repeating = mode == CLK_ADDRESS_REPEAT || mode == CLK_ADDRESS_MIRRORED_REPEAT;
        if (repeating && !normalized) continue;  // s8.2: repeating modes need normalized coordinates
        Sampler sm{normalized, mode, linear};
        // Coordinates: the product of each axis' list.
        std::vector<std::vector<float>> axes;
        for (int k = 0; k < dims; ++k) {
          std::vector<float> list = normalized ? normalized_coords(int(n[k])) : unnormalized_coords(int(n[k]));
          if (mode == CLK_ADDRESS_NONE)
            std::erase_if(list, [&](float v) { return !none_defined(v, int(n[k]), sm); });
          axes.push_back(list);
        }
        if (img.arrayed()) axes.push_back(layer_coords(int(n[dims])));
        Buf<Float4> coords;
        std::vector<std::size_t> idx(axes.size(), 0);
        for (;;) {
          Float4 co{0, 0, 0, 0};
          for (std::size_t k = 0; k < axes.size(); ++k) co[k] = axes[k][idx[k]];
          coords.push_back(co);
          std::size_t k = 0;
          while (k < axes.size() && ++idx[k] == axes[k].size()) idx[k++] = 0;
          if (k == axes.size()) break;
        }
        Buf<Float4> out(coords.size());
        Args args;
        args.ptr(&img.desc).value(sm.bits()).ptr(coords.data()).ptr(out.data());
        run(p, c.kernel, args, range(1, {coords.size()}, {1}));
        for (std::size_t i = 0; i < coords.size(); ++i) {
          Float4 want = read_float(img, sm, coords[i]);
          float scale = 1.0f;
          for (float v : want) scale = std::max(scale, std::fabs(v));
          for (int q = 0; q < 4; ++q) {
            bool ok = linear ? std::fabs(out[i][q] - want[q]) <= 4e-6f * scale : out[i][q] == want[q];
            if (!ok) {
              INFO(c.kernel << " order 0x" << std::hex << order << std::dec << " addressing 0x" << std::hex
                            << mode << std::dec << (normalized ? " normalized" : " unnormalized")
                            << (linear ? " LINEAR" : " NEAREST") << " coord (" << coords[i][0] << ", "
                            << coords[i][1] << ", " << coords[i][2] << ") channel " << q << ": got "
                            << out[i][q] << ", want " << want[q]);
              REQUIRE(ok);
            }
          }
        }
      }
}

const Case kCases[] = {
    {"s1", CL_MEM_OBJECT_IMAGE1D, 7, 1, 1, 0},
    {"s1a", CL_MEM_OBJECT_IMAGE1D_ARRAY, 6, 1, 1, 3},
    {"s2", CL_MEM_OBJECT_IMAGE2D, 5, 4, 1, 0},
    {"s2a", CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 3, 1, 3},
    {"s3", CL_MEM_OBJECT_IMAGE3D, 4, 3, 5, 0},
};

}  // namespace

TEST_CASE("every addressing and filter mode, normalized or not, on 1D, 2D, 3D and arrays (RGBA float)",
          "[image][sampler]") {
  auto p = build_ok(kSampleKernels);
  for (const Case& c : kCases) check_type(*p, c, CL_RGBA, CL_FLOAT);
}

TEST_CASE("the same on a CL_R UNORM_INT16 image, whose border color is opaque black",
          "[image][sampler]") {
  auto p = build_ok(kSampleKernels);
  for (const Case& c : kCases) check_type(*p, c, CL_R, CL_UNORM_INT16);
}
