// Buffers totalling more than a device's memory: StarPU evicts copies to
// main RAM to make room, so every command still runs and every result is
// right. The limit is StarPU's STARPU_LIMIT_OPENCL_MEM (MiB per OpenCL
// device), which must be set before StarPU starts: the ctest test
// test_device_memory_limited runs this binary with STARPU_LIMIT_OPENCL_MEM=8
// (see CMakeLists.txt); the same cases also run without a limit.
#include <cstdlib>

#include "core/core_fixture.h"

using namespace parasol_test;

namespace {

constexpr std::size_t kMiB = 1u << 20;

const char* kKernels =
    "__kernel void scale_add(__global int* x, int a, int b) {\n"
    "  size_t i = get_global_id(0);\n"
    "  x[i] = a * x[i] + b;\n"
    "}\n"
    "__kernel void accumulate(__global const int* src, __global int* dst) {\n"
    "  size_t i = get_global_id(0);\n"
    "  dst[i] += src[i];\n"
    "}\n";

std::string limit_note() {
  const char* limit = std::getenv("STARPU_LIMIT_OPENCL_MEM");
  return limit ? std::string("STARPU_LIMIT_OPENCL_MEM=") + limit + " MiB" : "no device memory limit";
}

}  // namespace

TEST_CASE("32 MiB of buffers run through kernels on PoCL devices limited to less memory",
          "[reliability]") {
  INFO(limit_note());
  const auto pocl = pocl_devices();
  REQUIRE(!pocl.empty());
  Context ctx(pocl);
  Program prog(ctx, kKernels);
  Kernel scale(prog, "scale_add"), acc(prog, "accumulate");
  // Sixteen 2 MiB buffers: 32 MiB, four times an 8 MiB limit; one command
  // uses at most two of them.
  const std::size_t per_buffer = 2 * kMiB, n = per_buffer / sizeof(int), count = 16;
  std::vector<std::unique_ptr<Mem>> bufs;
  std::vector<std::vector<int>> model;
  for (std::size_t b = 0; b < count; ++b) {
    model.push_back(iota_vector(n, static_cast<int>(b) * 7));
    bufs.push_back(std::make_unique<Mem>(ctx, CL_MEM_COPY_HOST_PTR, per_buffer, model.back().data()));
  }
  std::vector<std::unique_ptr<Queue>> queues;
  for (cl_device_id d : pocl) queues.push_back(std::make_unique<Queue>(ctx, d));

  // Two passes over every buffer, on alternating devices, then a chain that
  // accumulates each buffer into the next: every buffer goes to a device,
  // is pushed out by the others, and comes back.
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t b = 0; b < count; ++b) {
      cl_command_queue q = queues[(b + pass) % queues.size()]->q;
      int a = pass + 2, c = static_cast<int>(b) - 3;
      set_args(scale, bufs[b]->m, a, c);
      CL_REQUIRE(clEnqueueNDRangeKernel(q, scale, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
      for (auto& x : model[b]) x = a * x + c;
    }
  for (auto& q : queues) CL_REQUIRE(clFinish(q->q));
  for (std::size_t b = 1; b < count; ++b) {
    cl_command_queue q = queues[b % queues.size()]->q;
    set_args(acc, bufs[b - 1]->m, bufs[b]->m);
    // One queue's order is not the other's: chain the queues with a marker.
    Event prev;
    CL_REQUIRE(clEnqueueMarkerWithWaitList(queues[(b - 1) % queues.size()]->q, 0, nullptr, &prev));
    CL_REQUIRE(clEnqueueNDRangeKernel(q, acc, 1, nullptr, &n, nullptr, 1, &prev, nullptr));
    for (std::size_t i = 0; i < n; ++i) model[b][i] += model[b - 1][i];
  }
  for (auto& q : queues) CL_REQUIRE(clFinish(q->q));
  for (std::size_t b = 0; b < count; ++b) {
    INFO("buffer " << b);
    auto got = read_ints(queues[0]->q, bufs[b]->m, n);
    CHECK(got == model[b]);
  }
}

TEST_CASE("devices report the memory StarPU may use there", "[reliability]") {
  INFO(limit_note());
  for (cl_device_id d : devices()) {
    cl_ulong global = 0, max_alloc = 0, vendor_global = 0;
    CL_REQUIRE(clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, nullptr));
    CL_REQUIRE(clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc,
                               nullptr));
    INFO(device_name(d));
    CHECK(max_alloc <= global);
    // Parasol's native device is main RAM, with no vendor and no OpenCL limit.
    if (vendor_of(d) == "Parasol") continue;
    CL_REQUIRE(clGetDeviceInfo(vendor_device(d), CL_DEVICE_GLOBAL_MEM_SIZE, sizeof vendor_global,
                               &vendor_global, nullptr));
    CHECK(global <= vendor_global);
    if (const char* limit = std::getenv("STARPU_LIMIT_OPENCL_MEM"))
      CHECK(global == std::strtoull(limit, nullptr, 10) * kMiB);
  }
}

TEST_CASE("a buffer or a command larger than the device memory is refused, never left hanging",
          "[reliability]") {
  INFO(limit_note());
  const auto pocl = pocl_devices();
  Context ctx({pocl.at(0)});
  Program prog(ctx, kKernels);
  Kernel acc(prog, "accumulate");
  Queue q(ctx, pocl.at(0));
  cl_ulong global = 0;
  CL_REQUIRE(clGetDeviceInfo(pocl.at(0), CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, nullptr));
  if (global > 64 * kMiB) {
    SUCCEED("no device memory limit: nothing to oversubscribe with small buffers");
    return;
  }
  // One buffer above the device's memory: clCreateBuffer refuses it.
  cl_int err = CL_SUCCESS;
  cl_mem big = clCreateBuffer(ctx, CL_MEM_READ_WRITE, global + kMiB, nullptr, &err);
  CHECK(err == CL_INVALID_BUFFER_SIZE);
  CHECK(big == nullptr);
  // Two buffers that fit one by one but not together: the kernel that needs
  // both at once fails with an error status instead of waiting for room.
  const std::size_t n = (global * 3 / 4) / sizeof(int);
  std::vector<int> a = iota_vector(n), b = iota_vector(n, 5);
  Mem ma(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), a.data());
  Mem mb(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), b.data());
  set_args(acc, ma.m, mb.m);
  Event e;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, acc, 1, nullptr, &n, nullptr, 0, nullptr, &e));
  CHECK(wait_bounded(e, 60) == CL_MEM_OBJECT_ALLOCATION_FAILURE);
  // The same on a context queue: no device can take it.
  Queue cq(ctx, nullptr);
  Event e2;
  CL_REQUIRE(clEnqueueNDRangeKernel(cq, acc, 1, nullptr, &n, nullptr, 0, nullptr, &e2));
  CHECK(wait_bounded(e2, 60) < 0);
  // Both buffers stay usable, and each one alone still goes to the device.
  CHECK(read_ints(q, mb, n) == b);
  Kernel scale(prog, "scale_add");
  set_args(scale, ma.m, 2, 1);
  CL_REQUIRE(clEnqueueNDRangeKernel(q, scale, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  for (auto& x : a) x = 2 * x + 1;
  CHECK(read_ints(q, ma, n) == a);
}
