// Kernels alternating between vendors on one buffer: the data must follow.
#include <cmath>
#include <vector>

#include "support/parasol_test.h"

using namespace parasol_test;

static const char* kScaleShift =
    "__kernel void scale_shift(__global float* x, float a, float b) {\n"
    "  size_t i = get_global_id(0);\n"
    "  x[i] = a * x[i] + b;\n"
    "}\n";

TEST_CASE("a kernel chain alternating PoCL and Oclgrind devices on one buffer matches the CPU") {
  auto pocl = pocl_devices();
  auto grind = oclgrind_devices();
  REQUIRE(pocl.size() >= 1);
  REQUIRE(grind.size() >= 1);
  std::vector<cl_device_id> devs{pocl[0], grind[0]};
  Context ctx(devs);
  Queue q0(ctx, devs[0]), q1(ctx, devs[1]);
  Program prog(ctx, kScaleShift);
  Kernel k(prog, "scale_shift");

  const size_t n = 1024;
  std::vector<float> host(n);
  std::vector<double> ref(n);
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<float>(ref[i] = 0.5 * double(i % 31));
  Mem buf(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), host.data());

  cl_event prev = nullptr;
  std::vector<Event> events(6);
  for (int s = 0; s < 6; ++s) {
    float a = 1.0f + 0.5f * float(s % 2), b = float(s);
    set_args(k, buf.m, a, b);
    cl_command_queue q = s % 2 ? q1.q : q0.q;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, prev ? 1 : 0,
                                      prev ? &prev : nullptr, &events[s]));
    prev = events[s];
    for (auto& r : ref) r = a * r + b;
  }
  CL_REQUIRE(clEnqueueReadBuffer(q0, buf, CL_TRUE, 0, n * sizeof(float), host.data(), 1, &prev,
                                 nullptr));
  for (size_t i = 0; i < n; ++i) REQUIRE(host[i] == Approx(ref[i]).epsilon(1e-5));

  // Each step ran where its queue said.
  for (int s = 0; s < 6; ++s) {
    cl_device_id ran = nullptr;
    CL_REQUIRE(clGetEventInfo(events[s], CL_EVENT_DEVICE_PARASOL, sizeof ran, &ran, nullptr));
    CHECK(ran == devs[s % 2]);
  }
}
