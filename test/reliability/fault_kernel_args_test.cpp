// A vendor kernel's buffer argument is set once and kept across launches
// while the data leases holding that buffer on the device stay
// (backend/vendor_arg_values.h): a buffer given back and another made in its
// place, at the same vendor handle, is set again. The Fault Device hands a
// destroyed buffer's handle to the next buffer made and resolves a buffer
// argument when it is set (as vendors that translate it to a device address
// at clSetKernelArg do), so a launch that kept a stale setting would write
// into the freed buffer; it refuses such a launch (test/fault-vendor/
// README.md), which fails its command and leaves the live buffer as it was.
// With the argument kept regardless of the leases, the first case fails
// (rounds 4 and 9 of 12, where StarPU frees the earlier rounds' device
// copies to make room).
#include <vector>

#include "fault_control.h"
#include "fault_device.h"
#include "support/parasol_test.h"

using namespace parasol_test;
using fault_test::FaultScope;
using fault_test::fault_device;
using fault_test::kN;
using fault_test::kScaleShift;

namespace {

// x = a * x + b, three times, from ramp: what the CPU expects.
std::vector<float> expected(const std::vector<float>& ramp, float a, float b) {
  std::vector<float> out(ramp);
  for (float& v : out)
    for (int r = 0; r < 3; ++r) v = a * v + b;
  return out;
}

size_t mismatches(const std::vector<float>& got, const std::vector<float>& want) {
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) wrong += got[i] != Approx(want[i]).epsilon(1e-6);
  return wrong;
}

}  // namespace

// First in the file: StarPU sizes the device's memory when Parasol starts
// it (ctest runs each case in a process of its own). With 64 MiB, buffers of
// changing sizes make StarPU free the device copies it kept of released
// buffers, and PoCL then makes new ones at the freed addresses.
TEST_CASE("a kernel run on buffer after buffer, each released after its launches, writes the live one") {
  FaultScope f("global_mem_mb 64");
  cl_device_id fd = fault_device();
  Context ctx{{fd}};
  Queue q{ctx, fd};
  Program prog{ctx, kScaleShift};
  Kernel k{prog, "scale_shift"};
  for (int round = 0; round < 12; ++round) {
    const size_t n = ((8u + 4u * (round % 5)) << 20) / sizeof(float);  // 8 to 24 MiB
    std::vector<float> ramp(n);
    for (size_t i = 0; i < n; ++i) ramp[i] = float((i + round) % 37);
    Mem m(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), ramp.data());
    const float b = float(round % 5);
    set_args(k, m.m, 2.0f, b);
    // The first launch brings the buffer to the device (a lease); the
    // others go straight to the vendor with the argument kept.
    for (int r = 0; r < 3; ++r)
      CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    std::vector<float> out(n);
    CL_REQUIRE(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof(float), out.data(), 0, nullptr,
                                   nullptr));
    INFO("round " << round);
    CHECK(mismatches(out, expected(ramp, 2.0f, b)) == 0);
  }
}

TEST_CASE("a kernel alternating between two buffers, one recalled to the host between launches, writes each right") {
  cl_device_id fd = fault_device();
  Context ctx{{fd}};
  Queue q{ctx, fd};
  Program prog{ctx, kScaleShift};
  Kernel k{prog, "scale_shift"};
  std::vector<float> ramp_a(kN), ramp_b(kN);
  for (size_t i = 0; i < kN; ++i) {
    ramp_a[i] = float(i % 29);
    ramp_b[i] = float(i % 31) + 100.0f;
  }
  Mem a(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), ramp_a.data());
  Mem b(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), ramp_b.data());
  std::vector<float> want_a = ramp_a, want_b = ramp_b;
  for (int round = 0; round < 8; ++round) {
    for (int which = 0; which < 2; ++which) {
      Mem& m = which ? b : a;
      std::vector<float>& want = which ? want_b : want_a;
      set_args(k, m.m, 1.0f, 1.0f);
      CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &kN, nullptr, 0, nullptr, nullptr));
      for (float& v : want) v += 1.0f;
    }
    // Buffer a goes to main RAM (its lease on the device is given back);
    // its next launch leases it again.
    CL_REQUIRE(clEnqueueMigrateMemObjects(q, 1, &a.m, CL_MIGRATE_MEM_OBJECT_HOST, 0, nullptr,
                                          nullptr));
  }
  std::vector<float> out_a(kN), out_b(kN);
  CL_REQUIRE(clEnqueueReadBuffer(q, a, CL_TRUE, 0, kN * sizeof(float), out_a.data(), 0, nullptr,
                                 nullptr));
  CL_REQUIRE(clEnqueueReadBuffer(q, b, CL_TRUE, 0, kN * sizeof(float), out_b.data(), 0, nullptr,
                                 nullptr));
  CHECK(mismatches(out_a, want_a) == 0);
  CHECK(mismatches(out_b, want_b) == 0);
}
