// Every channel order and channel data type of OpenCL 1.2 read and written
// by the image built-ins, against image_reference.h (the spec's conversion
// rules and channel mapping): reads with and without a sampler, the border
// color of each order, writes with rounding ties, saturation, NaN and
// infinities, row padding left untouched.
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

namespace {

struct Format {
  cl_channel_order order;
  cl_channel_type type;
};

std::string name_of(const Format& f) {
  return "order 0x" + std::to_string(f.order) + " type 0x" + std::to_string(f.type) + " (" +
         channel_letters(f.order) + ")";
}

// The formats of s5.3.1.1: every order with the types it allows.
std::vector<Format> all_formats() {
  const cl_channel_type every[] = {CL_SNORM_INT8,    CL_SNORM_INT16,    CL_UNORM_INT8,
                                   CL_UNORM_INT16,   CL_SIGNED_INT8,    CL_SIGNED_INT16,
                                   CL_SIGNED_INT32,  CL_UNSIGNED_INT8,  CL_UNSIGNED_INT16,
                                   CL_UNSIGNED_INT32, CL_HALF_FLOAT,    CL_FLOAT};
  const cl_channel_type bytes[] = {CL_UNORM_INT8, CL_SNORM_INT8, CL_SIGNED_INT8, CL_UNSIGNED_INT8};
  const cl_channel_type normalized[] = {CL_UNORM_INT8, CL_UNORM_INT16, CL_SNORM_INT8,
                                        CL_SNORM_INT16, CL_HALF_FLOAT,  CL_FLOAT};
  const cl_channel_type packed_types[] = {CL_UNORM_SHORT_565, CL_UNORM_SHORT_555, CL_UNORM_INT_101010};
  std::vector<Format> out;
  for (cl_channel_order o : {CL_R, CL_A, CL_RG, CL_RA, CL_RGBA, CL_Rx, CL_RGx})
    for (cl_channel_type t : every) out.push_back({o, t});
  for (cl_channel_order o : {CL_BGRA, CL_ARGB})
    for (cl_channel_type t : bytes) out.push_back({o, t});
  for (cl_channel_order o : {CL_INTENSITY, CL_LUMINANCE})
    for (cl_channel_type t : normalized) out.push_back({o, t});
  for (cl_channel_order o : {CL_RGB, CL_RGBx})
    for (cl_channel_type t : packed_types) out.push_back({o, t});
  return out;
}

const char* const kFormatKernels = R"(
  // Global size (w + 2, h + 2): a ring of texels around the image reads the
  // border color through the sampler (unnormalized, CLAMP, NEAREST).
  #define READ(S, T)                                                                    \
  __kernel void read_##S(read_only image2d_t im, sampler_t s, __global T* plain,       \
                         __global T* sampled) {                                        \
    int x = get_global_id(0), y = get_global_id(1), i = y * get_global_size(0) + x;    \
    int2 at = (int2)(x - 1, y - 1);                                                    \
    sampled[i] = read_image##S(im, s, convert_float2(at) + 0.5f);                      \
    if (all(at >= 0) && all(at < get_image_dim(im))) plain[i] = read_image##S(im, at); \
  }                                                                                    \
  __kernel void write_##S(write_only image2d_t im, __global const T* v) {              \
    int x = get_global_id(0), y = get_global_id(1);                                    \
    write_image##S(im, (int2)(x, y), v[y * get_image_width(im) + x]);                  \
  }
  READ(f, float4)
  READ(i, int4)
  READ(ui, uint4)
)";

// Units in the last place between two floats of the same sign.
double ulps(float a, float b) {
  if (a == b) return 0;
  return std::fabs(double(a) - double(b)) / std::ldexp(1.0, std::ilogb(std::max(std::fabs(a), std::fabs(b))) - 23);
}

// s8.3.1.1: within 1.5 ulp, and exact for 0, +-1 (the codes the spec names).
bool read_matches(float got, float want) {
  if (std::isnan(want)) return std::isnan(got);
  if (want == 0.0f || want == 1.0f || want == -1.0f || std::isinf(want))
    return got == want && std::signbit(got) == std::signbit(want);
  return ulps(got, want) <= 1.5;
}

const std::size_t W = 5, H = 3;

}  // namespace

TEST_CASE("every channel order and type reads as s8.3 and s6.12.14.7 say, border colors included",
          "[image][format]") {
  auto p = build_ok(kFormatKernels);
  std::mt19937 rng(7);
  for (const Format& f : all_formats()) {
    INFO(name_of(f));
    Image img(CL_MEM_OBJECT_IMAGE2D, f.order, f.type, W, H, 1, 0, /*row_pad=*/4);
    for (auto& b : img.bytes) b = static_cast<unsigned char>(rng());
    // The codes the spec singles out, in the first texels' first channel.
    if (f.type == CL_SNORM_INT8) *reinterpret_cast<std::int8_t*>(img.at(0, 0)) = -128;
    if (f.type == CL_SNORM_INT8) *reinterpret_cast<std::int8_t*>(img.at(1, 0)) = -127;
    if (f.type == CL_SNORM_INT16) store_bits(img.at(0, 0), 2, 0x8000);
    if (f.type == CL_UNORM_INT8) *img.at(0, 0) = 255, *img.at(1, 0) = 0;
    if (f.type == CL_UNORM_INT16) store_bits(img.at(0, 0), 2, 0xffff);
    if (f.type == CL_UNORM_INT_101010) store_bits(img.at(0, 0), 4, 0x3fffffff);
    if (f.type == CL_UNORM_SHORT_565) store_bits(img.at(0, 0), 2, 0xffff);
    const std::size_t n = (W + 2) * (H + 2);
    Sampler border{false, CLK_ADDRESS_CLAMP, false};
    Kind kind = kind_of(f.type);
    const char* kernel = kind == Kind::Float ? "read_f" : kind == Kind::Int ? "read_i" : "read_ui";
    Buf<Float4> plain_f(n), sampled_f(n);
    Buf<Int4> plain_i(n), sampled_i(n);
    void* plain = kind == Kind::Float ? static_cast<void*>(plain_f.data()) : plain_i.data();
    void* sampled = kind == Kind::Float ? static_cast<void*>(sampled_f.data()) : sampled_i.data();
    Args args;
    args.ptr(&img.desc).value(border.bits()).ptr(plain).ptr(sampled);
    run(*p, kernel, args, range(2, {W + 2, H + 2}, {1, 1}));
    for (std::size_t y = 0; y < H + 2; ++y)
      for (std::size_t x = 0; x < W + 2; ++x) {
        std::size_t i = y * (W + 2) + x;
        bool inside = x >= 1 && y >= 1 && x <= W && y <= H;
        INFO("texel " << int(x) - 1 << "," << int(y) - 1);
        if (kind == Kind::Float) {
          Float4 want = inside ? decode_float(img.at(x - 1, y - 1), f.order, f.type)
                               : Float4{0, 0, 0, border_alpha(f.order)};
          for (int c = 0; c < 4; ++c) {
            INFO("channel " << c << ": want " << want[c] << ", sampled " << sampled_f[i][c]
                            << ", plain " << plain_f[i][c]);
            CHECK(read_matches(sampled_f[i][c], want[c]));
            if (inside) CHECK(read_matches(plain_f[i][c], want[c]));
          }
        } else {
          Int4 want = inside ? decode_int(img.at(x - 1, y - 1), f.order, f.type)
                             : Int4{0, 0, 0, int(border_alpha(f.order))};
          CHECK(sampled_i[i] == want);
          if (inside) CHECK(plain_i[i] == want);
        }
      }
  }
}

TEST_CASE("every channel order and type writes as s8.3 says: round to nearest even, saturation, NaN",
          "[image][format]") {
  auto p = build_ok(kFormatKernels);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // One value per texel channel: ties (x.5 after scaling, for 8, 10, 16 bits
  // and for 5 and 6 bits), the limits, beyond them, NaN and infinities,
  // half's overflow threshold (65520) and its subnormals, and plain values.
  const std::vector<float> special = {0.5f,  -0.5f,      1.0f,       -1.0f,     1.7f,         -3.0f,
                                      nan,   inf,        -inf,       0.0f,      -0.0f,        0.25f,
                                      0.75f, 1.0f / 3,   65519.0f,   65520.0f,  0x1.8p-24f,   0x1p-25f,
                                      -2.5f, 1e-3f,      0.999f,     0.0019607843f, 0.5f / 31, 1.5f / 63};
  const std::vector<std::int64_t> special_int = {-200, 300, std::numeric_limits<std::int32_t>::min(),
                                                 std::numeric_limits<std::int32_t>::max(), 70000, -40000,
                                                 127, -128, 128, -129, 255, 256, 0, -1, 65535, 65536,
                                                 32767, -32768, 32768, 1, 2, 100, -100, 4000000000LL};
  for (const Format& f : all_formats()) {
    INFO(name_of(f));
    Image img(CL_MEM_OBJECT_IMAGE2D, f.order, f.type, W, H, 1, 0, /*row_pad=*/8);
    Buf<unsigned char> want(img.bytes.begin(), img.bytes.end());  // 0xAB everywhere
    Kind kind = kind_of(f.type);
    Buf<Float4> vf(W * H);
    Buf<Int4> vi(W * H);
    for (std::size_t t = 0; t < W * H; ++t)
      for (int c = 0; c < 4; ++c) {
        vf[t][c] = special[(t * 4 + c) % special.size()];
        vi[t][c] = std::int32_t(special_int[(t * 4 + c) % special_int.size()]);
      }
    for (std::size_t y = 0; y < H; ++y)
      for (std::size_t x = 0; x < W; ++x) {
        unsigned char* texel = want.data() + (img.at(x, y) - img.bytes.data());
        if (kind == Kind::Float) encode_float(texel, f.order, f.type, vf[y * W + x]);
        else encode_int(texel, f.order, f.type, vi[y * W + x]);
      }
    Args args;
    args.ptr(&img.desc).ptr(kind == Kind::Float ? static_cast<void*>(vf.data()) : vi.data());
    const char* kernel = kind == Kind::Float ? "write_f" : kind == Kind::Int ? "write_i" : "write_ui";
    run(*p, kernel, args, range(2, {W, H}, {1, 1}));
    // Any NaN may stand for a NaN (s8.3.2, s8.3.3): where both are NaN,
    // the channel counts as written as wanted.
    if (f.type == CL_HALF_FLOAT || f.type == CL_FLOAT)
      for (std::size_t y = 0; y < H; ++y)
        for (std::size_t x = 0; x < W; ++x)
          for (std::size_t c = 0; c < channel_letters(f.order).size(); ++c) {
            std::size_t at = (img.at(x, y) - img.bytes.data()) + c * channel_bytes(f.type);
            std::uint32_t got_bits = load_bits(img.bytes.data() + at, channel_bytes(f.type));
            std::uint32_t want_bits = load_bits(want.data() + at, channel_bytes(f.type));
            if (std::isnan(normalized_read(f.type, got_bits)) && std::isnan(normalized_read(f.type, want_bits)))
              store_bits(img.bytes.data() + at, channel_bytes(f.type), want_bits);
          }
    for (std::size_t b = 0; b < want.size(); ++b) {
      INFO("byte " << b << " (row " << b / img.desc.row_pitch << ", offset " << b % img.desc.row_pitch
                   << ")");
      REQUIRE(int(img.bytes[b]) == int(want[b]));
    }
  }
}
