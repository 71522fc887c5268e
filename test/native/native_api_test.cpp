// The OpenCL API on a native-only context: programs and kernels without any
// vendor behind them (names, argument checks, work-group limits), launches
// with offsets, sub-buffers, struct arguments, __constant data, clEnqueueTask,
// and profiling times.
#include <cstring>
#include <random>
#include <set>
#include <utility>

#include "native/native_fixture.h"

using namespace parasol_test;

namespace {

const char* kKernels = R"CLC(
typedef struct { int a; float b; short c[3]; } Params;
__kernel void with_struct(__global float* out, Params p, __constant float* table) {
  size_t i = get_global_id(0);
  out[i] = p.a * table[i % 4] + p.b + p.c[i % 3] + (float)get_global_offset(0);
}
__kernel void one(__global int* out) { out[0] = 42; }
__kernel __attribute__((reqd_work_group_size(4, 1, 1))) void fixed(__global int* out) {
  out[get_global_id(0)] = (int)get_local_size(0);
}
)CLC";

struct Params {
  cl_int a;
  cl_float b;
  cl_short c[3];
};

}  // namespace

TEST_CASE("a native-only program lists its kernels and creates them all") {
  Context ctx(native_devices());
  Program prog(ctx, kKernels);
  size_t size = 0;
  CL_REQUIRE(clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size));
  std::string names(size, '\0');
  CL_REQUIRE(clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr));
  CHECK(std::string(names.c_str()) == "with_struct;one;fixed");
  size_t count = 0;
  CL_REQUIRE(clGetProgramInfo(prog, CL_PROGRAM_NUM_KERNELS, sizeof count, &count, nullptr));
  CHECK(count == 3);
  cl_kernel ks[3] = {};
  cl_uint n = 0;
  CL_REQUIRE(clCreateKernelsInProgram(prog, 3, ks, &n));
  CHECK(n == 3);
  for (cl_kernel k : ks) CL_REQUIRE(clReleaseKernel(k));
  cl_int err = CL_SUCCESS;
  CHECK(clCreateKernel(prog, "missing", &err) == nullptr);
  CHECK(err == CL_INVALID_KERNEL_NAME);
}

TEST_CASE("native kernels check argument sizes, work-group limits and reqd_work_group_size") {
  Context ctx(native_devices());
  cl_device_id dev = native_devices()[0];
  Queue q(ctx, dev);
  Program prog(ctx, kKernels);
  Kernel s(prog, "with_struct"), fixed(prog, "fixed");
  int wrong = 0;
  CHECK(clSetKernelArg(s, 1, sizeof wrong, &wrong) == CL_INVALID_ARG_SIZE);
  CHECK(clSetKernelArg(s, 3, sizeof wrong, &wrong) == CL_INVALID_ARG_INDEX);
  CHECK(clSetKernelArg(s, 0, sizeof(cl_mem) + 1, nullptr) == CL_INVALID_ARG_SIZE);
  Mem out(ctx, CL_MEM_READ_WRITE, 4096);
  CL_REQUIRE(clSetKernelArg(fixed, 0, sizeof(cl_mem), &out.m));
  size_t global = 16, four = 4, eight = 8;
  CHECK(clEnqueueNDRangeKernel(q, fixed, 1, nullptr, &global, &eight, 0, nullptr, nullptr) == CL_INVALID_WORK_GROUP_SIZE);
  // Given, the local size is the required one; not given, the required one
  // is taken (OpenCL 2.0 on).
  for (const size_t* local : std::initializer_list<const size_t*>{&four, nullptr}) {
    CL_REQUIRE(clEnqueueNDRangeKernel(q, fixed, 1, nullptr, &global, local, 0, nullptr, nullptr));
    auto got = read_back<int>(q, out, 16);
    CHECK(got == std::vector<int>(16, 4));
  }
  size_t wg = 0;
  CL_REQUIRE(clGetKernelWorkGroupInfo(fixed, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr));
  CHECK(wg >= 4);
  // Unset arguments are refused at enqueue.
  Kernel fresh(prog, "with_struct");
  CHECK(clEnqueueNDRangeKernel(q, fresh, 1, nullptr, &global, nullptr, 0, nullptr, nullptr) == CL_INVALID_KERNEL_ARGS);
}

TEST_CASE("__local memory past CL_DEVICE_LOCAL_MEM_SIZE is refused on the native device, and fits below it") {
  const char* src =
      "__kernel void stage(__global int* out, __local int* tmp) {\n"
      "  size_t l = get_local_id(0);\n"
      "  tmp[l] = (int)get_global_id(0) * 2;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] = tmp[get_local_size(0) - 1 - l];\n"
      "}\n";
  Context ctx(native_devices());
  cl_device_id dev = native_devices()[0];
  Queue q(ctx, dev);
  Program prog(ctx, src);
  Kernel k(prog, "stage");
  cl_ulong limit = 0;
  CL_REQUIRE(clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof limit, &limit, nullptr));
  REQUIRE(limit > 0);
  Mem out(ctx, CL_MEM_READ_WRITE, 64 * sizeof(int));
  size_t global = 64, local = 16;
  CL_REQUIRE(clSetKernelArg(k, 0, sizeof(cl_mem), &out.m));
  CL_REQUIRE(clSetKernelArg(k, 1, static_cast<size_t>(limit) + 1, nullptr));
  CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr) ==
        CL_OUT_OF_RESOURCES);
  CL_REQUIRE(clSetKernelArg(k, 1, local * sizeof(int), nullptr));
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  auto got = read_back<int>(q, out, 64);
  std::vector<int> want(64);
  for (size_t g = 0; g < 64; ++g) want[g] = int((g / local) * local + (local - 1 - g % local)) * 2;
  CHECK(got == want);
}

TEST_CASE("a struct by value, __constant data, a global offset and a sub-buffer on the native device") {
  NativeAndPocl f;
  Program prog(f.ctx, kKernels);
  Kernel k(prog, "with_struct");
  Params p{3, 0.5f, {10, 20, 30}};
  std::vector<float> table{1, 2, 3, 4};
  const size_t n = 64, offset = 5;
  std::vector<std::vector<float>> got;
  for (auto [name, q] : f.queues()) {
    INFO(name);
    Mem whole(make_buffer(f.ctx, std::vector<float>(4 * n, -1.0f)));
    cl_buffer_region region{n * sizeof(float), 2 * n * sizeof(float)};
    cl_int err = CL_SUCCESS;
    Mem sub(clCreateSubBuffer(whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
    CL_REQUIRE(err);
    Mem t(make_buffer(f.ctx, table));
    CL_REQUIRE(clSetKernelArg(k, 0, sizeof(cl_mem), &sub.m));
    CL_REQUIRE(clSetKernelArg(k, 1, sizeof p, &p));
    CL_REQUIRE(clSetKernelArg(k, 2, sizeof(cl_mem), &t.m));
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, &offset, &n, nullptr, 0, nullptr, nullptr));
    auto all = read_back<float>(q, whole, 4 * n);
    for (size_t i = 0; i < 4 * n; ++i) {
      size_t gid = i - n;  // global id written at sub-buffer index gid
      bool written = i >= n + offset && i < n + offset + n;
      float want = written ? p.a * table[gid % 4] + p.b + p.c[gid % 3] + offset : -1.0f;
      if (all[i] != want) {
        FAIL_CHECK("element " << i << ": " << all[i] << " instead of " << want);
        break;
      }
    }
    got.emplace_back(all.begin() + n + offset, all.begin() + n + offset + n);
  }
  CHECK(got[0] == got[1]);
}

TEST_CASE("clEnqueueTask and profiling times on the native device") {
  Context ctx(native_devices());
  Queue q(ctx, native_devices()[0], CL_QUEUE_PROFILING_ENABLE);
  Program prog(ctx, kKernels);
  Kernel k(prog, "one");
  Mem out(ctx, CL_MEM_READ_WRITE, sizeof(int));
  set_args(k, out.m);
  Event e;
  CL_REQUIRE(clEnqueueTask(q, k, 0, nullptr, &e));
  CHECK(wait_bounded(e, 30) == CL_COMPLETE);
  CHECK(read_back<int>(q, out, 1)[0] == 42);
  cl_ulong t[4] = {};
  const cl_profiling_info what[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                     CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
  for (int i = 0; i < 4; ++i) CL_REQUIRE(clGetEventProfilingInfo(e, what[i], sizeof t[i], &t[i], nullptr));
  CHECK(t[0] > 0);
  CHECK(t[0] <= t[1]);
  CHECK(t[1] <= t[2]);
  CHECK(t[2] <= t[3]);
  cl_command_type type = 0;
  CL_REQUIRE(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  CHECK(type == CL_COMMAND_NDRANGE_KERNEL);
}

namespace {

// A *Rect box as the application passes it: origin (bytes, rows, slices)
// and pitches, 0 meaning the spec's default.
struct RectArgs {
  size_t origin[3];
  size_t row_pitch, slice_pitch;
};

// The pitches a *Rect command uses: 0 stands for region[0], and for
// region[1] times the row pitch.
std::pair<size_t, size_t> effective_pitches(const RectArgs& b, const size_t region[3]) {
  size_t row = b.row_pitch ? b.row_pitch : region[0];
  return {row, b.slice_pitch ? b.slice_pitch : region[1] * row};
}

// Every byte a box covers in its buffer, `base` bytes into the parent.
std::set<size_t> box_bytes(size_t base, const RectArgs& b, const size_t region[3]) {
  auto [row, slice] = effective_pitches(b, region);
  std::set<size_t> out;
  for (size_t z = 0; z < region[2]; ++z)
    for (size_t y = 0; y < region[1]; ++y)
      for (size_t x = 0; x < region[0]; ++x)
        out.insert(base + (b.origin[2] + z) * slice + (b.origin[1] + y) * row + b.origin[0] + x);
  return out;
}

bool share_a_byte(const std::set<size_t>& a, const std::set<size_t>& b) {
  for (size_t x : a)
    if (b.count(x)) return true;
  return false;
}

// A random box of `region` that fits in `size` bytes, with random pitches
// (sometimes 0).
RectArgs random_box(std::mt19937& rng, const size_t region[3], size_t size) {
  for (;;) {
    RectArgs b{};
    b.row_pitch = rng() % 4 == 0 ? 0 : region[0] + rng() % 24;
    size_t row = b.row_pitch ? b.row_pitch : region[0];
    b.slice_pitch = rng() % 4 == 0 ? 0 : row * (region[1] + rng() % 4);
    auto [r, s] = effective_pitches(b, region);
    b.origin[0] = rng() % (2 * r);
    b.origin[1] = rng() % 6;
    b.origin[2] = rng() % 3;
    size_t last = (b.origin[2] + region[2] - 1) * s + (b.origin[1] + region[1] - 1) * r + b.origin[0] + region[0];
    if (last <= size) return b;
  }
}

}  // namespace

TEST_CASE("copies within one buffer, or between sub-buffers of one, are refused exactly when their regions overlap, on native and PoCL") {
  NativeAndPocl f;
  const size_t size = 4096;
  for (auto [name, q] : f.queues()) {
    INFO(name);
    std::mt19937 rng(29);
    std::vector<unsigned char> mirror(size);
    for (size_t i = 0; i < size; ++i) mirror[i] = static_cast<unsigned char>(rng());
    Mem whole(make_buffer(f.ctx, mirror));
    // Two sub-buffers of it whose windows overlap by half.
    cl_int err = CL_SUCCESS;
    cl_buffer_region lo{0, 2048}, hi{1024, 2048};
    Mem a(clCreateSubBuffer(whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &lo, &err));
    CL_REQUIRE(err);
    Mem b(clCreateSubBuffer(whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &hi, &err));
    CL_REQUIRE(err);
    size_t copied = 0, refused = 0;
    // One copy: CL_MEM_COPY_OVERLAP exactly when a byte is in both boxes
    // (brute force), else the CPU's copy of the same boxes.
    auto attempt = [&](bool subs, const RectArgs& src, const RectArgs& dst, const size_t region[3]) {
      const size_t src_base = 0, dst_base = subs ? 1024 : 0;
      const bool overlap = share_a_byte(box_bytes(src_base, src, region), box_bytes(dst_base, dst, region));
      INFO("region " << region[0] << "x" << region[1] << "x" << region[2] << ", src origin (" << src.origin[0] << ","
                     << src.origin[1] << "," << src.origin[2] << ") pitches " << src.row_pitch << "/"
                     << src.slice_pitch << ", dst origin (" << dst.origin[0] << "," << dst.origin[1] << ","
                     << dst.origin[2] << ") pitches " << dst.row_pitch << "/" << dst.slice_pitch
                     << (subs ? ", sub-buffers" : ", one buffer") << ", overlap " << overlap);
      cl_mem s = subs ? a.m : whole.m, d = subs ? b.m : whole.m;
      cl_int e = clEnqueueCopyBufferRect(q, s, d, src.origin, dst.origin, region, src.row_pitch, src.slice_pitch,
                                         dst.row_pitch, dst.slice_pitch, 0, nullptr, nullptr);
      CHECK(e == (overlap ? CL_MEM_COPY_OVERLAP : CL_SUCCESS));
      if (e != CL_SUCCESS) {
        ++refused;
        return;
      }
      ++copied;
      auto [sr, ss] = effective_pitches(src, region);
      auto [dr, ds] = effective_pitches(dst, region);
      for (size_t z = 0; z < region[2]; ++z)
        for (size_t y = 0; y < region[1]; ++y)
          for (size_t x = 0; x < region[0]; ++x)
            mirror[dst_base + (dst.origin[2] + z) * ds + (dst.origin[1] + y) * dr + dst.origin[0] + x] =
                mirror[src_base + (src.origin[2] + z) * ss + (src.origin[1] + y) * sr + src.origin[0] + x];
      CHECK(read_back<unsigned char>(q, whole, size) == mirror);
    };
    // Boxes of one buffer whose byte ranges interleave without a common
    // byte: side by side, and row by row.
    const size_t columns[3] = {16, 8, 4}, rows[3] = {64, 1, 4};
    attempt(false, RectArgs{{0, 0, 0}, 64, 512}, RectArgs{{32, 0, 0}, 64, 512}, columns);
    attempt(false, RectArgs{{0, 0, 0}, 64, 128}, RectArgs{{0, 1, 0}, 64, 128}, rows);
    // And overlapping by one byte.
    attempt(false, RectArgs{{0, 0, 0}, 64, 512}, RectArgs{{15, 7, 3}, 64, 512}, columns);
    CHECK(copied == 2);
    for (int trial = 0; trial < 160; ++trial) {
      // Within the whole buffer (same pitches, or one of the two differing),
      // or from sub-buffer a to b (any pitches).
      const bool subs = trial % 2 == 1;
      const size_t region[3] = {1 + rng() % 20, 1 + rng() % 5, 1 + rng() % 3};
      const size_t space = subs ? 2048 : size;
      RectArgs src = random_box(rng, region, space), dst = random_box(rng, region, space);
      if (!subs) {
        auto [sr, ss] = effective_pitches(src, region);
        dst.row_pitch = sr;
        dst.slice_pitch = ss;
        // One pitch may differ within one buffer (not both: CL_INVALID_VALUE).
        if (trial % 4 == 2) dst.slice_pitch = sr * (region[1] + rng() % 4);
        dst.origin[0] = rng() % (2 * sr);
        auto [dr, ds] = effective_pitches(dst, region);
        size_t last = (dst.origin[2] + region[2] - 1) * ds + (dst.origin[1] + region[1] - 1) * dr + dst.origin[0] + region[0];
        if (last > size) continue;
      }
      INFO("trial " << trial);
      attempt(subs, src, dst, region);
    }
    // clEnqueueCopyBuffer within one buffer: touching ranges copy, overlapping ones are refused.
    for (int trial = 0; trial < 40; ++trial) {
      size_t n = 1 + rng() % 300, so = rng() % (size - n), dof = rng() % (size - n);
      const bool overlap = so < dof + n && dof < so + n;
      INFO("copy of " << n << " bytes from " << so << " to " << dof);
      cl_int e = clEnqueueCopyBuffer(q, whole, whole, so, dof, n, 0, nullptr, nullptr);
      CHECK(e == (overlap ? CL_MEM_COPY_OVERLAP : CL_SUCCESS));
      if (e != CL_SUCCESS) continue;
      std::memmove(&mirror[dof], &mirror[so], n);
      CHECK(read_back<unsigned char>(q, whole, size) == mirror);
    }
    CL_REQUIRE(clEnqueueCopyBuffer(q, whole, whole, 0, 100, 100, 0, nullptr, nullptr));
    std::memmove(&mirror[100], &mirror[0], 100);
    CHECK(read_back<unsigned char>(q, whole, size) == mirror);
    // Both kinds happened.
    CHECK(copied > 20);
    CHECK(refused > 5);
  }
}
