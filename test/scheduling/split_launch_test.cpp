// Split launches (runtime/split_launch.h): one clEnqueueNDRangeKernel on a
// context queue runs as blocks of work-groups on several devices, and gives
// exactly what one launch on one device gives. The events say which devices
// took part (CL_EVENT_SPLIT_DEVICES_PARASOL), so each test knows the launch
// really was split.
#include <CL/cl_parasol.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

// Context properties asking for every launch that can be split to be.
const cl_context_properties kSplitAlways[] = {CL_CONTEXT_SPLIT_PARASOL, CL_TRUE, 0};

// An event query whose answer is an array of T.
template <typename T>
std::vector<T> event_array(cl_event e, cl_event_info param) {
  size_t bytes = 0;
  CL_REQUIRE(clGetEventInfo(e, param, 0, nullptr, &bytes));
  std::vector<T> out(bytes / sizeof(T));
  if (bytes) CL_REQUIRE(clGetEventInfo(e, param, bytes, out.data(), nullptr));
  return out;
}

std::vector<cl_device_id> split_devices(cl_event e) {
  return event_array<cl_device_id>(e, CL_EVENT_SPLIT_DEVICES_PARASOL);
}

std::vector<size_t> split_groups(cl_event e) {
  return event_array<size_t>(e, CL_EVENT_SPLIT_GROUPS_PARASOL);
}

// The device sets the suite offers: PoCL's two devices, with the native
// device, and PoCL, native and Oclgrind (a simulator: slow, and another
// vendor's compiler).
std::vector<std::pair<std::string, std::vector<cl_device_id>>> device_sets() {
  std::vector<std::pair<std::string, std::vector<cl_device_id>>> sets;
  const auto pocl = pocl_devices(), native = native_devices(), grind = oclgrind_devices();
  if (pocl.size() >= 2) sets.push_back({"PoCL x2", pocl});
  if (pocl.size() >= 2 && !native.empty())
    sets.push_back({"PoCL x2 + native", {pocl[0], pocl[1], native[0]}});
  if (!pocl.empty() && !grind.empty()) {
    std::vector<cl_device_id> mixed{pocl[0], grind[0]};
    if (!native.empty()) mixed.push_back(native[0]);
    sets.push_back({"PoCL + Oclgrind" + std::string(native.empty() ? "" : " + native"), mixed});
  }
  return sets;
}

// Runs check on a split context of each device set.
void on_each_set(const std::function<void(cl_context, cl_command_queue, size_t devices)>& check) {
  const auto sets = device_sets();
  REQUIRE(!sets.empty());
  for (const auto& [name, devs] : sets) {
    SECTION(name) {
      Context ctx(devs, kSplitAlways);
      Queue q(ctx, nullptr);
      check(ctx, q, devs.size());
    }
  }
}

// The launch of e ran on two devices or more, whose groups add up to total.
void require_split(cl_event e, size_t total_groups) {
  const auto devs = split_devices(e);
  const auto groups = split_groups(e);
  INFO("devices that took part: " << devs.size());
  REQUIRE(devs.size() >= 2);
  REQUIRE(groups.size() == devs.size());
  CHECK(std::accumulate(groups.begin(), groups.end(), size_t{0}) == total_groups);
  CHECK(ran_on(e) != nullptr);
}

template <typename T>
std::vector<T> read_all(cl_command_queue q, cl_mem m, size_t n) {
  std::vector<T> out(n);
  CL_REQUIRE(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof(T), out.data(), 0, nullptr, nullptr));
  return out;
}

}  // namespace

TEST_CASE("a split launch with a global offset and a group count no device count divides") {
  on_each_set([](cl_context ctx, cl_command_queue q, size_t) {
    Program prog(ctx, R"(
      __kernel void scale(__global const int* in, __global int* out, int k) {
        size_t i = get_global_id(0);
        out[i] = in[i] * k + (int)i;
      })");
    Kernel k(prog, "scale");
    const size_t n = 4096, local = 16, offset = 48, global = 16 * 211;  // 211 groups: prime
    std::vector<int> in(n), sentinel(n, -7);
    std::iota(in.begin(), in.end(), 1);
    Mem a(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), in.data());
    Mem b(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), sentinel.data());
    // Several launches: the shares move between them, the result must not.
    for (int round = 0; round < 4; ++round) {
      const int factor = 3 + round;
      set_args(k, a.m, b.m, factor);
      Event e;
      CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, &offset, &global, &local, 0, nullptr, &e));
      CL_REQUIRE(clWaitForEvents(1, &e.e));
      require_split(e, global / local);
      const auto out = read_all<int>(q, b, n);
      for (size_t i = 0; i < n; ++i) {
        const int want = i >= offset && i < offset + global ? in[i] * factor + static_cast<int>(i)
                         : round == 0                       ? -7
                                                            : out[i];
        if (out[i] != want) FAIL("element " << i << ": " << out[i] << ", want " << want);
      }
      for (size_t i = 0; i < offset; ++i) REQUIRE(out[i] == -7);
      for (size_t i = offset + global; i < n; ++i) REQUIRE(out[i] == -7);
    }
  });
}

TEST_CASE("a split stencil reads its halo from the neighbouring blocks") {
  on_each_set([](cl_context ctx, cl_command_queue q, size_t) {
    Program prog(ctx, R"(
      __kernel void blur(__global const int* in, __global int* out, uint n) {
        size_t i = get_global_id(0);
        if (i == 0 || i >= n - 1) { out[i] = in[i]; return; }
        out[i] = in[i - 1] + 2 * in[i] + in[i + 1];
      })");
    Kernel k(prog, "blur");
    const size_t n = 64 * 97, local = 64;
    std::vector<int> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = static_cast<int>((i * 7919) % 1013);
    Mem a(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), in.data());
    Mem b(ctx, CL_MEM_READ_WRITE, n * sizeof(int));
    const cl_uint count = static_cast<cl_uint>(n);
    set_args(k, a.m, b.m, count);
    Event e;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &local, 0, nullptr, &e));
    CL_REQUIRE(clFinish(q));
    require_split(e, n / local);
    const auto out = read_all<int>(q, b, n);
    for (size_t i = 0; i < n; ++i) {
      const int want = i == 0 || i == n - 1 ? in[i] : in[i - 1] + 2 * in[i] + in[i + 1];
      if (out[i] != want) FAIL("element " << i << ": " << out[i] << ", want " << want);
    }
  });
}

TEST_CASE("a split launch with a __local argument: each group reverses its tile") {
  on_each_set([](cl_context ctx, cl_command_queue q, size_t) {
    Program prog(ctx, R"(
      __kernel void reverse_tiles(__global const int* in, __global int* out, __local int* tile) {
        size_t l = get_local_id(0), s = get_local_size(0);
        tile[l] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = tile[s - 1 - l];
      })");
    Kernel k(prog, "reverse_tiles");
    const size_t local = 32, n = local * 75;
    std::vector<int> in(n);
    std::iota(in.begin(), in.end(), 100);
    Mem a(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), in.data());
    Mem b(ctx, CL_MEM_READ_WRITE, n * sizeof(int));
    set_args(k, a.m, b.m);
    CL_REQUIRE(clSetKernelArg(k, 2, local * sizeof(int), nullptr));
    Event e;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &local, 0, nullptr, &e));
    CL_REQUIRE(clFinish(q));
    require_split(e, n / local);
    const auto out = read_all<int>(q, b, n);
    for (size_t i = 0; i < n; ++i) {
      const size_t g = i / local, l = i % local;
      if (out[i] != in[g * local + local - 1 - l]) FAIL("element " << i);
    }
  });
}

TEST_CASE("a split launch over sub-buffers of one buffer writes only its window") {
  on_each_set([](cl_context ctx, cl_command_queue q, size_t) {
    cl_uint align_bits = 0;
    size_t ndev = 0;
    CL_REQUIRE(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, 0, nullptr, &ndev));
    std::vector<cl_device_id> devs(ndev / sizeof(cl_device_id));
    CL_REQUIRE(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, ndev, devs.data(), nullptr));
    for (cl_device_id d : devs) {
      cl_uint bits = 0;
      CL_REQUIRE(clGetDeviceInfo(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, nullptr));
      align_bits = std::max(align_bits, bits);
    }
    const size_t align = align_bits / 8, n = 2048;
    const size_t total = 2 * align + 2 * n * sizeof(int) + align;
    std::vector<unsigned char> init(total, 0xAB);
    Mem parent(ctx, CL_MEM_COPY_HOST_PTR, total, init.data());
    std::vector<int> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = static_cast<int>(i * 3 - 1000);
    const size_t in_at = align, out_at = align * (1 + (n * sizeof(int) + align - 1) / align) + align;
    REQUIRE(out_at + n * sizeof(int) <= total);
    CL_REQUIRE(clEnqueueWriteBuffer(q, parent, CL_TRUE, in_at, n * sizeof(int), in.data(), 0,
                                    nullptr, nullptr));
    cl_int err = CL_SUCCESS;
    cl_buffer_region rin{in_at, n * sizeof(int)}, rout{out_at, n * sizeof(int)};
    Mem sin(clCreateSubBuffer(parent, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &rin, &err));
    CL_REQUIRE(err);
    Mem sout(clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &rout, &err));
    CL_REQUIRE(err);
    Program prog(ctx, R"(
      __kernel void negate(__global const int* in, __global int* out) {
        size_t i = get_global_id(0);
        out[i] = -in[i];
      })");
    Kernel k(prog, "negate");
    set_args(k, sin.m, sout.m);
    const size_t local = 16;
    Event e;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &local, 0, nullptr, &e));
    CL_REQUIRE(clFinish(q));
    require_split(e, n / local);
    const auto all = read_all<unsigned char>(q, parent, total);
    for (size_t i = 0; i < total; ++i) {
      if (i >= in_at && i < in_at + n * sizeof(int)) continue;
      if (i >= out_at && i < out_at + n * sizeof(int)) continue;
      if (all[i] != 0xAB) FAIL("byte " << i << " outside both windows changed");
    }
    std::vector<int> out(n);
    std::memcpy(out.data(), all.data() + out_at, n * sizeof(int));
    for (size_t i = 0; i < n; ++i)
      if (out[i] != -in[i]) FAIL("element " << i);
  });
}

TEST_CASE("a split 2D launch runs blocks of rows") {
  on_each_set([](cl_context ctx, cl_command_queue q, size_t) {
    Program prog(ctx, R"(
      __kernel void mark(__global const int* in, __global int* out, uint width) {
        size_t x = get_global_id(0), y = get_global_id(1);
        out[y * width + x] = in[y * width + x] + (int)(y * 1000 + x);
      })");
    Kernel k(prog, "mark");
    const size_t w = 96, h = 53;
    std::vector<int> in(w * h);
    std::iota(in.begin(), in.end(), -50);
    Mem a(ctx, CL_MEM_COPY_HOST_PTR, in.size() * sizeof(int), in.data());
    Mem b(ctx, CL_MEM_READ_WRITE, in.size() * sizeof(int));
    const cl_uint width = static_cast<cl_uint>(w);
    set_args(k, a.m, b.m, width);
    const size_t global[2] = {w, h}, local[2] = {16, 1};
    Event e;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 2, nullptr, global, local, 0, nullptr, &e));
    CL_REQUIRE(clFinish(q));
    require_split(e, h);
    const auto out = read_all<int>(q, b, w * h);
    for (size_t y = 0; y < h; ++y)
      for (size_t x = 0; x < w; ++x)
        if (out[y * w + x] != in[y * w + x] + static_cast<int>(y * 1000 + x))
          FAIL("element " << x << ", " << y);
  });
}

TEST_CASE("kernels the analysis refuses run whole and right: atomics, group slots") {
  on_each_set([](cl_context ctx, cl_command_queue q, size_t) {
    Program prog(ctx, R"(
      __kernel void histogram(__global const int* in, __global int* bins) {
        atomic_inc(&bins[in[get_global_id(0)] & 7]);
      }
      __kernel void group_sums(__global const int* in, __global int* sums, __local int* tmp) {
        size_t l = get_local_id(0);
        tmp[l] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l == 0) {
          int s = 0;
          for (size_t j = 0; j < get_local_size(0); ++j) s += tmp[j];
          sums[get_group_id(0)] = s;
        }
      })");
    const size_t n = 64 * 40, local = 64;
    std::vector<int> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = static_cast<int>(i * 13 % 29);
    Mem a(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), in.data());
    std::vector<int> zeros(n / local, 0);
    Mem bins(ctx, CL_MEM_COPY_HOST_PTR, 8 * sizeof(int), zeros.data());
    Mem sums(ctx, CL_MEM_COPY_HOST_PTR, n / local * sizeof(int), zeros.data());

    Kernel hist(prog, "histogram");
    set_args(hist, a.m, bins.m);
    Event e1;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, hist, 1, nullptr, &n, &local, 0, nullptr, &e1));
    Kernel sum(prog, "group_sums");
    set_args(sum, a.m, sums.m);
    CL_REQUIRE(clSetKernelArg(sum, 2, local * sizeof(int), nullptr));
    Event e2;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, sum, 1, nullptr, &n, &local, 0, nullptr, &e2));
    CL_REQUIRE(clFinish(q));
    CHECK(split_devices(e1).empty());
    CHECK(split_devices(e2).empty());
    std::vector<int> want_bins(8, 0), want_sums(n / local, 0);
    for (size_t i = 0; i < n; ++i) {
      ++want_bins[in[i] & 7];
      want_sums[i / local] += in[i];
    }
    CHECK(read_all<int>(q, bins, 8) == want_bins);
    CHECK(read_all<int>(q, sums, n / local) == want_sums);
  });
}

TEST_CASE("CL_CONTEXT_SPLIT_PARASOL = CL_FALSE keeps launches whole; a bad value is refused") {
  const auto pocl = pocl_devices();
  REQUIRE(pocl.size() >= 2);
  const cl_context_properties off[] = {CL_CONTEXT_SPLIT_PARASOL, CL_FALSE, 0};
  Context ctx(pocl, off);
  Queue q(ctx, nullptr);
  Program prog(ctx, "__kernel void inc(__global int* x) { x[get_global_id(0)] += 1; }");
  Kernel k(prog, "inc");
  const size_t n = size_t{1} << 20, local = 64;  // large enough to split by default
  std::vector<int> zeros(n, 0);
  Mem a(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), zeros.data());
  set_args(k, a.m);
  Event e;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &local, 0, nullptr, &e));
  CL_REQUIRE(clFinish(q));
  CHECK(split_devices(e).empty());
  const auto out = read_all<int>(q, a, n);
  CHECK(std::count(out.begin(), out.end(), 1) == static_cast<long>(n));

  cl_int err = CL_SUCCESS;
  const cl_context_properties bad[] = {CL_CONTEXT_SPLIT_PARASOL, 7, 0};
  CHECK(clCreateContext(bad, 1, pocl.data(), nullptr, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_PROPERTY);
}

TEST_CASE("by default a large launch splits and a small one runs whole") {
  const auto pocl = pocl_devices();
  REQUIRE(pocl.size() >= 2);
  Context ctx(pocl);
  Queue q(ctx, nullptr);
  Program prog(ctx, "__kernel void inc(__global int* x) { x[get_global_id(0)] += 1; }");
  Kernel k(prog, "inc");
  const size_t large = size_t{1} << 20, small = 4096, local = 64;
  std::vector<int> zeros(large, 0);
  Mem a(ctx, CL_MEM_COPY_HOST_PTR, large * sizeof(int), zeros.data());
  set_args(k, a.m);
  Event big, little;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &large, &local, 0, nullptr, &big));
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &small, &local, 0, nullptr, &little));
  CL_REQUIRE(clFinish(q));
  require_split(big, large / local);
  CHECK(split_devices(little).empty());
  const auto out = read_all<int>(q, a, large);
  for (size_t i = 0; i < large; ++i)
    if (out[i] != (i < small ? 2 : 1)) FAIL("element " << i << ": " << out[i]);
}

TEST_CASE("by default a large launch beside the application's own blocks in flight runs whole") {
  const auto pocl = pocl_devices();
  REQUIRE(pocl.size() >= 2);
  Context ctx(pocl);
  Program prog(ctx, "__kernel void inc(__global int* x) { x[get_global_id(0)] += 1; }");
  Kernel k(prog, "inc");
  const size_t n = size_t{1} << 20, local = 64;
  std::vector<int> zeros(n, 0);
  Mem a(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), zeros.data());
  Mem b(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), zeros.data());
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(ctx, &err);
  CL_REQUIRE(err);
  // One block in flight (held by the gate) on one queue; launches that do
  // not wait for it, on an out-of-order queue and on a second in-order
  // queue, run whole.
  Queue held(ctx, nullptr), ooo(ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE), other(ctx, nullptr);
  Event first, beside, beside_in_order, after;
  set_args(k, a.m);
  CL_REQUIRE(clEnqueueNDRangeKernel(held, k, 1, nullptr, &n, &local, 1, &gate, &first));
  set_args(k, b.m);
  CL_REQUIRE(clEnqueueNDRangeKernel(ooo, k, 1, nullptr, &n, &local, 0, nullptr, &beside));
  CL_REQUIRE(clEnqueueNDRangeKernel(other, k, 1, nullptr, &n, &local, 0, nullptr, &beside_in_order));
  CHECK(split_devices(beside).empty());
  CHECK(split_devices(beside_in_order).empty());
  // Waiting for the block is not running beside it: after it, a launch
  // alone splits, but not one of the kernel object that ran beside others
  // (the first of an application's blocks comes alone).
  CL_REQUIRE(clFinish(ooo));
  CL_REQUIRE(clFinish(other));
  CL_REQUIRE(clSetUserEventStatus(gate, CL_COMPLETE));
  Kernel fresh(prog, "inc");
  set_args(fresh, a.m);
  CL_REQUIRE(clEnqueueNDRangeKernel(ooo, fresh, 1, nullptr, &n, &local, 1, &first.e, &after));
  CL_REQUIRE(clFinish(ooo));
  CL_REQUIRE(clFinish(held));
  require_split(after, n / local);
  Event alone;
  CL_REQUIRE(clEnqueueNDRangeKernel(ooo, k, 1, nullptr, &n, &local, 0, nullptr, &alone));
  CL_REQUIRE(clFinish(ooo));
  CHECK(split_devices(alone).empty());
  CL_REQUIRE(clReleaseEvent(gate));
  const auto got_a = read_all<int>(ooo, a, n), got_b = read_all<int>(ooo, b, n);
  CHECK(std::count(got_a.begin(), got_a.end(), 2) == static_cast<long>(n));
  CHECK(std::count(got_b.begin(), got_b.end(), 3) == static_cast<long>(n));
}

TEST_CASE("a split launch without a local size, in a dependent chain, on an out-of-order queue") {
  const auto pocl = pocl_devices();
  REQUIRE(pocl.size() >= 2);
  Context ctx(pocl, kSplitAlways);
  Queue q(ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  Program prog(ctx, "__kernel void twice(__global int* x) { x[get_global_id(0)] *= 2; }");
  Kernel k(prog, "twice");
  const size_t n = 3000;  // 3000 = 2^3 * 3 * 5^3: Parasol picks the local size
  std::vector<int> ones(n, 1);
  Mem a(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), ones.data());
  set_args(k, a.m);
  Event e1, e2, e3;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &e1));
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 1, &e1.e, &e2));
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 1, &e2.e, &e3));
  CL_REQUIRE(clWaitForEvents(1, &e3.e));
  CHECK(split_devices(e3).size() >= 2);
  std::vector<int> out(n);
  CL_REQUIRE(clEnqueueReadBuffer(q, a, CL_TRUE, 0, n * sizeof(int), out.data(), 0, nullptr, nullptr));
  CHECK(std::count(out.begin(), out.end(), 8) == static_cast<long>(n));
}

namespace {

struct Halves {
  cl_kernel kernel;
  size_t global;
  std::vector<cl_event> launches;  // the divide function's, kept to ask them
};

// Runs the kernel as two launches, each over half of the range.
cl_int CL_CALLBACK two_halves(cl_command_queue q, cl_uint, const cl_event before, cl_event* after,
                              void* user_data) {
  auto* h = static_cast<Halves*>(user_data);
  const size_t half = h->global / 2, local = 64;
  cl_event pieces[2];
  for (size_t i = 0; i < 2; ++i) {
    const size_t offset = i * half;
    if (cl_int err = clEnqueueNDRangeKernel(q, h->kernel, 1, &offset, &half, &local, 1, &before,
                                            &pieces[i]))
      return err;
    h->launches.push_back(pieces[i]);
  }
  return clEnqueueMarkerWithWaitList(q, 2, pieces, after);
}

}  // namespace

TEST_CASE("a kernel with a divide function keeps its own split") {
  const auto pocl = pocl_devices();
  REQUIRE(pocl.size() >= 2);
  Context ctx(pocl, kSplitAlways);
  Queue q(ctx, nullptr);
  Program prog(ctx, "__kernel void inc(__global int* x) { x[get_global_id(0)] += 1; }");
  Kernel k(prog, "inc");
  const size_t n = 64 * 64;
  std::vector<int> zeros(n, 0);
  Mem a(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), zeros.data());
  set_args(k, a.m);
  auto set_divide = reinterpret_cast<clSetKernelDivideFunctionPARASOL_fn>(
      clGetExtensionFunctionAddressForPlatform(parasol_platform(), "clSetKernelDivideFunctionPARASOL"));
  REQUIRE(set_divide);
  Halves halves{k, n, {}};
  CL_REQUIRE(set_divide(k, two_halves, 1, 1, &halves));
  std::vector<Event> events(6);
  for (Event& e : events)
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
  CL_REQUIRE(clFinish(q));
  for (const Event& e : events) CHECK(split_devices(e).empty());
  for (cl_event e : halves.launches) {
    CHECK(split_devices(e).empty());
    clReleaseEvent(e);
  }
  const auto out = read_all<int>(q, a, n);
  CHECK(std::count(out.begin(), out.end(), 6) == static_cast<long>(n));
}
