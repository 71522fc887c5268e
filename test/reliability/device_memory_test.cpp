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

TEST_CASE("one buffer larger than the device memory limit fails cleanly or runs right",
          "[reliability]") {
  INFO(limit_note());
  const auto pocl = pocl_devices();
  Context ctx({pocl.at(0)});
  Program prog(ctx, kKernels);
  Kernel scale(prog, "scale_add");
  Queue q(ctx, pocl.at(0));
  // 12 MiB: more than an 8 MiB limit on its own.
  const std::size_t n = 12 * kMiB / sizeof(int);
  std::vector<int> ref = iota_vector(n);
  Mem buf(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), ref.data());
  set_args(scale, buf.m, 3, 1);
  Event e;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, scale, 1, nullptr, &n, nullptr, 0, nullptr, &e));
  cl_int status = wait_bounded(e, 60);
  INFO("kernel status " << status);
  // Either StarPU could not place it (an error status, never a hang) or it ran.
  REQUIRE(status <= CL_COMPLETE);
  if (status == CL_COMPLETE) {
    for (auto& x : ref) x = 3 * x + 1;
    CHECK(read_ints(q, buf, n) == ref);
  } else {
    // The buffer stays usable on the host.
    CHECK(read_ints(q, buf, n) == ref);
  }
}
