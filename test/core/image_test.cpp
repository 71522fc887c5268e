// Images and samplers: every image type written, read, copied, filled and
// mapped through Parasol, checked against a CPU model of the pixels; image
// kernels and samplers against the vendor's own answer (the same kernel on
// PoCL directly); one image written on one vendor and read on another;
// image kernels on a context queue; the formats a context offers against
// its vendors' lists; misuse answered with the spec's errors.
#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

const cl_image_format kRgba8{CL_RGBA, CL_UNORM_INT8};

struct TypeCase {
  cl_mem_object_type type;
  size_t width, height, depth, array_size;
  const char* name;
};
const TypeCase kTypes[] = {
    {CL_MEM_OBJECT_IMAGE1D, 37, 1, 1, 0, "1D"},
    {CL_MEM_OBJECT_IMAGE1D_ARRAY, 19, 1, 1, 5, "1D array"},
    {CL_MEM_OBJECT_IMAGE2D, 23, 17, 1, 0, "2D"},
    {CL_MEM_OBJECT_IMAGE2D_ARRAY, 11, 7, 1, 4, "2D array"},
    {CL_MEM_OBJECT_IMAGE3D, 9, 6, 5, 0, "3D"},
};

cl_image_desc desc_of(const TypeCase& t) {
  cl_image_desc d{};
  d.image_type = t.type;
  d.image_width = t.width;
  d.image_height = t.height;
  d.image_depth = t.depth;
  d.image_array_size = t.array_size;
  return d;
}

// The box of pixels commands address: width, height or layers, depth or layers.
std::array<size_t, 3> extent(const TypeCase& t) {
  switch (t.type) {
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: return {t.width, t.array_size, 1};
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: return {t.width, t.height, t.array_size};
    default: return {t.width, t.height, t.depth};
  }
}

std::vector<unsigned char> pattern(size_t bytes, unsigned seed) {
  std::vector<unsigned char> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<unsigned char>((i * 37 + seed * 11) % 251);
  return v;
}

cl_mem make_image(cl_context ctx, cl_mem_flags flags, const cl_image_format& f,
                  const cl_image_desc& d, void* host, cl_int* err_out = nullptr) {
  cl_int err;
  cl_mem m = clCreateImage(ctx, flags, &f, &d, host, &err);
  if (err_out) *err_out = err;
  else CL_REQUIRE(err);
  return m;
}

std::vector<cl_image_format> formats(cl_context ctx, cl_mem_object_type type) {
  cl_uint n = 0;
  CL_REQUIRE(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, type, 0, nullptr, &n));
  std::vector<cl_image_format> f(n);
  if (n) CL_REQUIRE(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, type, n, f.data(), nullptr));
  return f;
}

bool has(const std::vector<cl_image_format>& list, const cl_image_format& f) {
  return std::any_of(list.begin(), list.end(), [&](const cl_image_format& g) {
    return g.image_channel_order == f.image_channel_order &&
           g.image_channel_data_type == f.image_channel_data_type;
  });
}

// The same formats, whatever the order.
bool same_set(const std::vector<cl_image_format>& a, const std::vector<cl_image_format>& b) {
  if (a.size() != b.size()) return false;
  return std::all_of(a.begin(), a.end(), [&](const cl_image_format& f) { return has(b, f); });
}

// A context on PoCL's platform directly: the vendor's own answers.
struct PoclDirect {
  cl_device_id device = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue q = nullptr;
  PoclDirect() {
    cl_platform_id p = vendor_platform("Portable Computing Language");
    CL_REQUIRE(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &device, nullptr));
    cl_int err;
    ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    CL_REQUIRE(err);
    q = clCreateCommandQueue(ctx, device, 0, &err);
    CL_REQUIRE(err);
  }
  ~PoclDirect() {
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
  }
};

// Runs kernel `name` of `source` over the image's pixels (global = its
// extent) on queue q of ctx, with arguments (in, out image, sampler).
void run_image_kernel(cl_context ctx, cl_device_id d, cl_command_queue q, const char* source,
                      const char* name, cl_mem in, cl_mem out, cl_sampler sampler,
                      cl_int normalized, const std::array<size_t, 3>& global, cl_uint dims) {
  cl_int err;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &source, nullptr, &err);
  CL_REQUIRE(err);
  CL_REQUIRE(clBuildProgram(prog, 1, &d, "", nullptr, nullptr));
  cl_kernel k = clCreateKernel(prog, name, &err);
  CL_REQUIRE(err);
  CL_REQUIRE(clSetKernelArg(k, 0, sizeof in, &in));
  CL_REQUIRE(clSetKernelArg(k, 1, sizeof out, &out));
  if (sampler) {
    CL_REQUIRE(clSetKernelArg(k, 2, sizeof sampler, &sampler));
    CL_REQUIRE(clSetKernelArg(k, 3, sizeof normalized, &normalized));
  }
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, dims, nullptr, global.data(), nullptr, 0, nullptr, nullptr));
  CL_REQUIRE(clFinish(q));
  clReleaseKernel(k);
  clReleaseProgram(prog);
}

// A 2D kernel reading `in` through a sampler at shifted, scaled float
// coordinates (outside the image too) and writing what it read to `out`;
// normalized: the coordinates are divided by the image's size.
const char* kSample =
    "__kernel void sample(__read_only image2d_t in, __write_only image2d_t out, sampler_t s,\n"
    "                     int normalized) {\n"
    "  int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "  float2 c = (float2)(p.x * 0.37f - 1.3f, p.y * 0.41f - 0.9f);\n"
    "  if (normalized) c = c / (float2)(get_image_width(in), get_image_height(in));\n"
    "  write_imagef(out, p, read_imagef(in, s, c));\n"
    "}\n";

}  // namespace

TEST_CASE("a context offers the image formats every one of its devices takes") {
  PoclDirect pocl;
  for (const TypeCase& t : kTypes) {
    INFO(t.name);
    cl_uint n = 0;
    CL_REQUIRE(clGetSupportedImageFormats(pocl.ctx, CL_MEM_READ_WRITE, t.type, 0, nullptr, &n));
    std::vector<cl_image_format> reference(n);
    CL_REQUIRE(clGetSupportedImageFormats(pocl.ctx, CL_MEM_READ_WRITE, t.type, n,
                                          reference.data(), nullptr));
    Context ctx{{pocl_devices().at(0)}};
    CHECK(same_set(formats(ctx, t.type), reference));
    // Two vendors: what both take, nothing else.
    Context mixed{{pocl_devices().at(0), oclgrind_devices().at(0)}};
    for (const cl_image_format& f : formats(mixed, t.type)) CHECK(has(reference, f));
    CHECK(has(formats(mixed, t.type), kRgba8));
  }
  cl_bool images = CL_FALSE;
  CL_REQUIRE(clGetDeviceInfo(pocl_devices().at(0), CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images,
                             nullptr));
  cl_bool vendor_images = CL_FALSE;
  CL_REQUIRE(clGetDeviceInfo(pocl.device, CL_DEVICE_IMAGE_SUPPORT, sizeof vendor_images,
                             &vendor_images, nullptr));
  CHECK(images == vendor_images);
}

// A PoCL device, the Oclgrind device, and the native device when there is one.
static std::vector<cl_device_id> image_devices() {
  std::vector<cl_device_id> out = {pocl_devices().at(0), oclgrind_devices().at(0)};
  for (cl_device_id d : native_devices()) out.push_back(d);
  return out;
}

TEST_CASE("every image type: written, read back, in boxes, with host pitches") {
  for (cl_device_id d : image_devices()) {
    Context ctx{{d}};
    Queue q{ctx, d};
    for (const TypeCase& t : kTypes) {
      INFO(device_name(d) << ", " << t.name);
      const auto e = extent(t);
      const size_t bytes = e[0] * e[1] * e[2] * 4;
      std::vector<unsigned char> model = pattern(bytes, 1);
      cl_mem img = make_image(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kRgba8, desc_of(t),
                              model.data());
      // A box written from host memory with pitches of its own.
      const size_t origin[3] = {1, e[1] > 2 ? 1u : 0u, e[2] > 2 ? 1u : 0u};
      const size_t region[3] = {e[0] - 2, e[1] > 2 ? e[1] - 2 : e[1], e[2] > 2 ? e[2] - 2 : e[2]};
      const size_t row = region[0] * 4 + 12;  // padded rows
      const bool has_slices = t.type == CL_MEM_OBJECT_IMAGE3D ||
                              t.type == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                              t.type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
      const size_t slice = t.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? row : row * region[1] + 8;
      std::vector<unsigned char> host = pattern(slice * region[2] + row * region[1], 2);
      CL_REQUIRE(clEnqueueWriteImage(q, img, CL_TRUE, origin, region,
                                     t.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 0 : row,
                                     has_slices ? slice : 0, host.data(), 0, nullptr, nullptr));
      for (size_t z = 0; z < region[2]; ++z)
        for (size_t y = 0; y < region[1]; ++y)
          std::memcpy(&model[(((origin[2] + z) * e[1] + origin[1] + y) * e[0] + origin[0]) * 4],
                      &host[z * slice + y * (t.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? slice : row)],
                      region[0] * 4);
      // The whole image read back, packed.
      std::vector<unsigned char> back(bytes);
      const size_t zero[3] = {0, 0, 0}, whole[3] = {e[0], e[1], e[2]};
      CL_REQUIRE(clEnqueueReadImage(q, img, CL_TRUE, zero, whole, 0, 0, back.data(), 0, nullptr,
                                    nullptr));
      CHECK(back == model);
      size_t width = 0, element = 0;
      CL_REQUIRE(clGetImageInfo(img, CL_IMAGE_WIDTH, sizeof width, &width, nullptr));
      CL_REQUIRE(clGetImageInfo(img, CL_IMAGE_ELEMENT_SIZE, sizeof element, &element, nullptr));
      CHECK(width == t.width);
      CHECK(element == 4);
      cl_mem_object_type type = 0;
      CL_REQUIRE(clGetMemObjectInfo(img, CL_MEM_TYPE, sizeof type, &type, nullptr));
      CHECK(type == t.type);
      clReleaseMemObject(img);
    }
  }
}

TEST_CASE("images copied, filled, mapped, to and from buffers, against a CPU model") {
  cl_device_id d = pocl_devices().at(0);
  Context ctx{{d}};
  Queue q{ctx, d};
  const TypeCase t{CL_MEM_OBJECT_IMAGE2D, 16, 12, 1, 0, "2D"};
  const size_t bytes = 16 * 12 * 4;
  std::vector<unsigned char> a_model = pattern(bytes, 3), b_model(bytes, 0);
  cl_mem a = make_image(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kRgba8, desc_of(t),
                        a_model.data());
  cl_mem b = make_image(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kRgba8, desc_of(t),
                        b_model.data());
  auto at = [](std::vector<unsigned char>& m, size_t x, size_t y) { return &m[(y * 16 + x) * 4]; };
  // Copy a box of a into b at another place.
  const size_t from[3] = {2, 3, 0}, to[3] = {5, 1, 0}, region[3] = {7, 6, 1};
  CL_REQUIRE(clEnqueueCopyImage(q, a, b, from, to, region, 0, nullptr, nullptr));
  for (size_t y = 0; y < 6; ++y)
    std::memcpy(at(b_model, 5, 1 + y), at(a_model, 2, 3 + y), 7 * 4);
  // Fill a box with a color: as write_imagef would (0.5 -> 128).
  const float color[4] = {1.0f, 0.5f, 0.0f, 0.25f};
  const size_t fill_at[3] = {0, 10, 0}, fill_region[3] = {16, 2, 1};
  CL_REQUIRE(clEnqueueFillImage(q, b, color, fill_at, fill_region, 0, nullptr, nullptr));
  for (size_t y = 10; y < 12; ++y)
    for (size_t x = 0; x < 16; ++x) {
      const unsigned char px[4] = {255, 128, 0, 64};
      std::memcpy(at(b_model, x, y), px, 4);
    }
  // Image to buffer to image.
  Mem buf(ctx, CL_MEM_READ_WRITE, bytes + 64);
  const size_t zero[3] = {0, 0, 0}, whole[3] = {16, 12, 1};
  CL_REQUIRE(clEnqueueCopyImageToBuffer(q, b, buf, zero, whole, 64, 0, nullptr, nullptr));
  std::vector<unsigned char> via(bytes);
  CL_REQUIRE(clEnqueueReadBuffer(q, buf, CL_TRUE, 64, bytes, via.data(), 0, nullptr, nullptr));
  CHECK(via == b_model);
  const size_t into[3] = {0, 0, 0};
  CL_REQUIRE(clEnqueueCopyBufferToImage(q, buf, a, 64, into, whole, 0, nullptr, nullptr));
  a_model = b_model;
  // Map a box, write it, unmap, read everything.
  size_t row_pitch = 0;
  const size_t map_at[3] = {3, 4, 0}, map_region[3] = {4, 2, 1};
  cl_int err;
  auto* mapped = static_cast<unsigned char*>(
      clEnqueueMapImage(q, a, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, map_at, map_region, &row_pitch,
                        nullptr, 0, nullptr, nullptr, &err));
  CL_REQUIRE(err);
  REQUIRE(row_pitch >= 16);
  for (size_t y = 0; y < 2; ++y) {
    CHECK(std::memcmp(mapped + y * row_pitch, at(a_model, 3, 4 + y), 16) == 0);
    std::memset(mapped + y * row_pitch, 0xA5, 16);
    std::memset(at(a_model, 3, 4 + y), 0xA5, 16);
  }
  CL_REQUIRE(clEnqueueUnmapMemObject(q, a, mapped, 0, nullptr, nullptr));
  std::vector<unsigned char> back(bytes);
  CL_REQUIRE(clEnqueueReadImage(q, a, CL_TRUE, zero, whole, 0, 0, back.data(), 0, nullptr, nullptr));
  CHECK(back == a_model);
  CL_REQUIRE(clEnqueueReadImage(q, b, CL_TRUE, zero, whole, 0, 0, back.data(), 0, nullptr, nullptr));
  CHECK(back == b_model);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
}

TEST_CASE("image kernels read through every sampler mode as the vendor itself does") {
  // PoCL through Parasol must answer exactly as PoCL directly; the native
  // device too, up to the float rounding of linear filtering (the spec
  // leaves its precision to the implementation).
  PoclDirect pocl;
  std::vector<cl_device_id> under_test = {pocl_devices().at(0)};
  for (cl_device_id d : native_devices()) under_test.push_back(d);
  for (cl_device_id d : under_test) {
  INFO(device_name(d));
  Context ctx{{d}};
  Queue q{ctx, d};
  const size_t w = 13, h = 9;
  std::vector<float> pixels(w * h * 4);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = float((i * 7) % 23) / 22.0f;
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = w;
  desc.image_height = h;
  const cl_image_format rgba_f{CL_RGBA, CL_FLOAT};
  const std::array<size_t, 3> global{2 * w, 2 * h, 1};
  cl_image_desc out_desc = desc;
  out_desc.image_width = global[0];
  out_desc.image_height = global[1];
  for (cl_bool normalized : {CL_FALSE, CL_TRUE})
    for (cl_addressing_mode addressing :
         {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT,
          CL_ADDRESS_MIRRORED_REPEAT})
      for (cl_filter_mode filter : {CL_FILTER_NEAREST, CL_FILTER_LINEAR}) {
        if (!normalized && (addressing == CL_ADDRESS_REPEAT || addressing == CL_ADDRESS_MIRRORED_REPEAT))
          continue;  // the spec allows these with normalized coordinates only
        if (addressing == CL_ADDRESS_NONE) continue;  // reads outside the image are undefined
        INFO("normalized " << normalized << ", addressing 0x" << std::hex << addressing
                           << ", filter 0x" << filter);
        std::vector<float> results[2];
        for (int through = 0; through < 2; ++through) {
          cl_context c = through ? ctx.ctx : pocl.ctx;
          cl_device_id dev = through ? d : pocl.device;
          cl_command_queue qq = through ? q.q : pocl.q;
          cl_int err;
          cl_mem in = clCreateImage(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &rgba_f, &desc,
                                    pixels.data(), &err);
          CL_REQUIRE(err);
          cl_mem out = clCreateImage(c, CL_MEM_WRITE_ONLY, &rgba_f, &out_desc, nullptr, &err);
          CL_REQUIRE(err);
          cl_sampler s = clCreateSampler(c, normalized, addressing, filter, &err);
          CL_REQUIRE(err);
          run_image_kernel(c, dev, qq, kSample, "sample", in, out, s, normalized, global, 2);
          results[through].resize(global[0] * global[1] * 4);
          const size_t zero[3] = {0, 0, 0}, whole[3] = {global[0], global[1], 1};
          CL_REQUIRE(clEnqueueReadImage(qq, out, CL_TRUE, zero, whole, 0, 0,
                                        results[through].data(), 0, nullptr, nullptr));
          clReleaseSampler(s);
          clReleaseMemObject(in);
          clReleaseMemObject(out);
        }
        if (d == pocl_devices().at(0) || filter == CL_FILTER_NEAREST) {
          CHECK(results[1] == results[0]);
        } else {
          for (size_t i = 0; i < results[0].size(); ++i)
            REQUIRE(results[1][i] == Approx(results[0][i]).margin(1e-5));
        }
      }
  }
}

TEST_CASE("an image written by a kernel on one vendor is read by a kernel on another") {
  cl_device_id p = pocl_devices().at(0);
  // Oclgrind, and the native device when there is one.
  std::vector<cl_device_id> readers = {oclgrind_devices().at(0)};
  for (cl_device_id d : native_devices()) readers.push_back(d);
  for (cl_device_id g : readers) {
  INFO("read on " << device_name(g));
  Context ctx{{p, g}};
  Queue qp{ctx, p}, qg{ctx, g};
  const size_t w = 8, h = 6;
  const char* source =
      "__kernel void gradient(__write_only image2d_t out, int base) {\n"
      "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
      "  write_imageui(out, c, (uint4)(base + c.x, c.y, c.x * c.y, 7));\n"
      "}\n"
      "__kernel void twice(__read_only image2d_t in, __write_only image2d_t out) {\n"
      "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
      "  write_imageui(out, c, read_imageui(in, c) * 2u);\n"
      "}\n";
  Program prog(ctx, source);
  Kernel gradient(prog, "gradient"), twice(prog, "twice");
  const cl_image_format rgba_u{CL_RGBA, CL_UNSIGNED_INT32};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = w;
  desc.image_height = h;
  cl_mem a = make_image(ctx, CL_MEM_READ_WRITE, rgba_u, desc, nullptr);
  cl_mem b = make_image(ctx, CL_MEM_READ_WRITE, rgba_u, desc, nullptr);
  const int base = 100;
  CL_REQUIRE(clSetKernelArg(gradient, 0, sizeof a, &a));
  CL_REQUIRE(clSetKernelArg(gradient, 1, sizeof base, &base));
  const size_t global[2] = {w, h};
  Event written;
  CL_REQUIRE(clEnqueueNDRangeKernel(qp, gradient, 2, nullptr, global, nullptr, 0, nullptr, &written));
  CL_REQUIRE(clSetKernelArg(twice, 0, sizeof a, &a));
  CL_REQUIRE(clSetKernelArg(twice, 1, sizeof b, &b));
  Event doubled;
  CL_REQUIRE(clEnqueueNDRangeKernel(qg, twice, 2, nullptr, global, nullptr, 1, &written.e, &doubled));
  CL_REQUIRE(clWaitForEvents(1, &doubled.e));
  CHECK(ran_on(written) == p);
  CHECK(ran_on(doubled) == g);
  std::vector<cl_uint> out(w * h * 4);
  const size_t zero[3] = {0, 0, 0}, whole[3] = {w, h, 1};
  CL_REQUIRE(clEnqueueReadImage(qp, b, CL_TRUE, zero, whole, 0, 0, out.data(), 0, nullptr, nullptr));
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x) {
      const cl_uint* px = &out[(y * w + x) * 4];
      CHECK(px[0] == 2 * (base + x));
      CHECK(px[1] == 2 * y);
      CHECK(px[2] == 2 * x * y);
      CHECK(px[3] == 14u);
    }
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  }
}

TEST_CASE("image kernels on a context queue run where the policy places them, correctly") {
  std::vector<cl_device_id> devs = {pocl_devices().at(0), pocl_devices().at(1),
                                    oclgrind_devices().at(0)};
  Context ctx{devs, Policy("eager")};
  Queue q{ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
  const char* source =
      "__kernel void add(__read_only image2d_t in, __write_only image2d_t out, int v) {\n"
      "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
      "  write_imagei(out, c, read_imagei(in, c) + (int4)(v));\n"
      "}\n";
  Program prog(ctx, source);
  Kernel add(prog, "add");
  const cl_image_format rgba_i{CL_RGBA, CL_SIGNED_INT32};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = 5;
  desc.image_height = 4;
  std::vector<cl_int> init(5 * 4 * 4);
  std::iota(init.begin(), init.end(), -10);
  cl_mem imgs[2] = {make_image(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, rgba_i, desc, init.data()),
                    make_image(ctx, CL_MEM_READ_WRITE, rgba_i, desc, nullptr)};
  // Ping-pong through the images, each step waiting for the one before.
  const size_t global[2] = {5, 4};
  cl_event last = nullptr;
  for (int step = 0; step < 6; ++step) {
    int v = step + 1;
    CL_REQUIRE(clSetKernelArg(add, 0, sizeof(cl_mem), &imgs[step % 2]));
    CL_REQUIRE(clSetKernelArg(add, 1, sizeof(cl_mem), &imgs[(step + 1) % 2]));
    CL_REQUIRE(clSetKernelArg(add, 2, sizeof v, &v));
    cl_event e;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 2, nullptr, global, nullptr, last ? 1 : 0,
                                      last ? &last : nullptr, &e));
    if (last) clReleaseEvent(last);
    last = e;
  }
  CL_REQUIRE(clWaitForEvents(1, &last));
  clReleaseEvent(last);
  std::vector<cl_int> out(init.size());
  const size_t zero[3] = {0, 0, 0}, whole[3] = {5, 4, 1};
  CL_REQUIRE(clEnqueueReadImage(q, imgs[0], CL_TRUE, zero, whole, 0, 0, out.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < out.size(); ++i) CHECK(out[i] == init[i] + 21);  // 1 + 2 + ... + 6
  clReleaseMemObject(imgs[0]);
  clReleaseMemObject(imgs[1]);
}

TEST_CASE("image and sampler misuse is refused with the spec's errors") {
  cl_device_id d = pocl_devices().at(0);
  Context ctx{{d}};
  Queue q{ctx, d};
  const TypeCase t{CL_MEM_OBJECT_IMAGE2D, 8, 8, 1, 0, "2D"};
  cl_image_desc desc = desc_of(t);
  cl_int err;
  const cl_image_format bogus{CL_RGB, CL_UNORM_INT8};  // RGB takes packed types only
  CHECK(clCreateImage(ctx, CL_MEM_READ_WRITE, &bogus, &desc, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  CHECK(clCreateImage(ctx, CL_MEM_READ_WRITE, nullptr, &desc, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  CHECK(clCreateImage(ctx, CL_MEM_READ_WRITE, &kRgba8, nullptr, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_IMAGE_DESCRIPTOR);
  cl_image_desc zero_width = desc;
  zero_width.image_width = 0;
  CHECK(clCreateImage(ctx, CL_MEM_READ_WRITE, &kRgba8, &zero_width, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_IMAGE_DESCRIPTOR);
  cl_image_desc huge = desc;
  huge.image_width = size_t(1) << 40;
  CHECK(clCreateImage(ctx, CL_MEM_READ_WRITE, &kRgba8, &huge, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_IMAGE_SIZE);
  cl_image_desc pitched = desc;
  pitched.image_row_pitch = 64;
  CHECK(clCreateImage(ctx, CL_MEM_READ_WRITE, &kRgba8, &pitched, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_IMAGE_DESCRIPTOR);
  CHECK(clCreateImage(ctx, CL_MEM_COPY_HOST_PTR, &kRgba8, &desc, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_HOST_PTR);

  cl_mem img = make_image(ctx, CL_MEM_READ_WRITE, kRgba8, desc, nullptr);
  Mem buf(ctx, CL_MEM_READ_WRITE, 256);
  std::vector<unsigned char> host(8 * 8 * 4);
  const size_t origin[3] = {0, 0, 0}, too_big[3] = {9, 8, 1}, third_axis[3] = {8, 8, 2};
  CHECK(clEnqueueReadImage(q, img, CL_TRUE, origin, too_big, 0, 0, host.data(), 0, nullptr,
                           nullptr) == CL_INVALID_VALUE);
  CHECK(clEnqueueReadImage(q, img, CL_TRUE, origin, third_axis, 0, 0, host.data(), 0, nullptr,
                           nullptr) == CL_INVALID_VALUE);
  // Buffer commands refuse images; image commands refuse buffers.
  CHECK(clEnqueueReadBuffer(q, img, CL_TRUE, 0, 16, host.data(), 0, nullptr, nullptr) ==
        CL_INVALID_MEM_OBJECT);
  const size_t region[3] = {4, 4, 1};
  CHECK(clEnqueueReadImage(q, buf, CL_TRUE, origin, region, 0, 0, host.data(), 0, nullptr,
                           nullptr) == CL_INVALID_MEM_OBJECT);
  size_t width;
  CHECK(clGetImageInfo(buf, CL_IMAGE_WIDTH, sizeof width, &width, nullptr) == CL_INVALID_MEM_OBJECT);
  const cl_image_format other{CL_RGBA, CL_FLOAT};
  cl_mem float_img = make_image(ctx, CL_MEM_READ_WRITE, other, desc, nullptr);
  CHECK(clEnqueueCopyImage(q, img, float_img, origin, origin, region, 0, nullptr, nullptr) ==
        CL_IMAGE_FORMAT_MISMATCH);
  // Kernel arguments: an image argument takes an image, a sampler one a sampler.
  Program prog(ctx, kSample);
  Kernel k(prog, "sample");
  CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &buf.m) == CL_INVALID_MEM_OBJECT);
  // A read_only argument refuses an image the kernel may not read, and the
  // other way round.
  cl_mem write_only = make_image(ctx, CL_MEM_WRITE_ONLY, kRgba8, desc, nullptr);
  cl_mem read_only = make_image(ctx, CL_MEM_READ_ONLY, kRgba8, desc, nullptr);
  CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &write_only) == CL_INVALID_ARG_VALUE);
  CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &read_only) == CL_INVALID_ARG_VALUE);
  CL_REQUIRE(clSetKernelArg(k, 0, sizeof(cl_mem), &read_only));
  clReleaseMemObject(write_only);
  clReleaseMemObject(read_only);
  CHECK(clSetKernelArg(k, 2, sizeof(cl_sampler), &img) == CL_INVALID_SAMPLER);
  CHECK(clCreateSampler(ctx, CL_TRUE, 0x1234, CL_FILTER_NEAREST, &err) == nullptr);
  CHECK(err == CL_INVALID_VALUE);
  cl_sampler s = clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, &err);
  CL_REQUIRE(err);
  cl_addressing_mode mode = 0;
  CL_REQUIRE(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof mode, &mode, nullptr));
  CHECK(mode == CL_ADDRESS_REPEAT);
  clReleaseSampler(s);
  CHECK(clReleaseSampler(nullptr) == CL_INVALID_SAMPLER);
  clReleaseMemObject(float_img);
  clReleaseMemObject(img);
}

TEST_CASE("a 1D image buffer shares its buffer's bytes, in kernels too") {
  for (cl_device_id d : image_devices()) {
    INFO(device_name(d));
    Context ctx{{d}};
    Queue q{ctx, d};
    const size_t n = 64;
    std::vector<cl_uint> values(n * 4);
    std::iota(values.begin(), values.end(), 5u);
    Mem buf(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, values.size() * 4, values.data());
    cl_image_desc desc{};
    desc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
    desc.image_width = n;
    desc.buffer = buf.m;
    const cl_image_format rgba_u{CL_RGBA, CL_UNSIGNED_INT32};
    cl_mem img = make_image(ctx, CL_MEM_READ_WRITE, rgba_u, desc, nullptr);
    cl_mem assoc = nullptr;
    CL_REQUIRE(clGetImageInfo(img, CL_IMAGE_BUFFER, sizeof assoc, &assoc, nullptr));
    CHECK(assoc == buf.m);
    const char* source =
        "__kernel void bump(__read_only image1d_buffer_t in, __global uint4* out) {\n"
        "  int i = get_global_id(0);\n"
        "  out[i] = read_imageui(in, i) + (uint4)(1000u);\n"
        "}\n";
    Program prog(ctx, source);
    Kernel bump(prog, "bump");
    Mem out(ctx, CL_MEM_READ_WRITE, values.size() * 4);
    CL_REQUIRE(clSetKernelArg(bump, 0, sizeof img, &img));
    CL_REQUIRE(clSetKernelArg(bump, 1, sizeof out.m, &out.m));
    CL_REQUIRE(clEnqueueNDRangeKernel(q, bump, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    std::vector<cl_uint> got(values.size());
    CL_REQUIRE(clEnqueueReadBuffer(q, out, CL_TRUE, 0, got.size() * 4, got.data(), 0, nullptr, nullptr));
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == values[i] + 1000u);
    // The image reads what the buffer holds, and the other way round.
    std::vector<cl_uint> through_image(values.size());
    const size_t zero[3] = {0, 0, 0}, whole[3] = {n, 1, 1};
    CL_REQUIRE(clEnqueueReadImage(q, img, CL_TRUE, zero, whole, 0, 0, through_image.data(), 0,
                                  nullptr, nullptr));
    CHECK(through_image == values);
    clReleaseMemObject(img);
  }
}

TEST_CASE("an image in the application's memory (CL_MEM_USE_HOST_PTR) keeps its pitches") {
  cl_device_id d = pocl_devices().at(0);
  Context ctx{{d}};
  Queue q{ctx, d};
  // A 3D image whose rows and slices are padded (a slice pitch is a whole
  // number of rows, as the spec requires).
  const size_t w = 5, h = 4, depth = 3, row = w * 4 + 12, slice = row * (h + 1);
  std::vector<unsigned char> host = pattern(slice * depth, 9);
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE3D;
  desc.image_width = w;
  desc.image_height = h;
  desc.image_depth = depth;
  desc.image_row_pitch = row;
  desc.image_slice_pitch = slice;
  cl_mem img = make_image(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, kRgba8, desc, host.data());
  std::vector<unsigned char> packed(w * h * depth * 4);
  const size_t zero[3] = {0, 0, 0}, whole[3] = {w, h, depth};
  CL_REQUIRE(clEnqueueReadImage(q, img, CL_TRUE, zero, whole, 0, 0, packed.data(), 0, nullptr, nullptr));
  for (size_t z = 0; z < depth; ++z)
    for (size_t y = 0; y < h; ++y)
      CHECK(std::memcmp(&packed[((z * h + y) * w) * 4], &host[z * slice + y * row], w * 4) == 0);
  size_t row_pitch = 0, slice_pitch = 0;
  CL_REQUIRE(clGetImageInfo(img, CL_IMAGE_ROW_PITCH, sizeof row_pitch, &row_pitch, nullptr));
  CL_REQUIRE(clGetImageInfo(img, CL_IMAGE_SLICE_PITCH, sizeof slice_pitch, &slice_pitch, nullptr));
  CHECK(row_pitch == row);
  CHECK(slice_pitch == slice);
  clReleaseMemObject(img);
}
