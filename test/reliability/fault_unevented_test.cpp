// Direct commands without a vendor event of their own (runtime/direct_launch.h,
// DirectSlot) complete when a later event of their device proves them done.
// NVIDIA's commands go so, because an execution error there fails every
// later command too. Here the Fault Device poses as NVIDIA's
// (PARASOL_FAULT_PLATFORM_NAME): when the proving event fails, the commands
// it proves are reported failed as well, never silently successful. The
// proof may be a marker Parasol enqueued; the fault vendor's exec_fail fails
// it, as CUDA's sticky errors would (test/fault-vendor/README.md).
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
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

// Before main(): the fault vendor reads it when Parasol first asks its name.
const bool kPosesAsNvidia = (setenv("PARASOL_FAULT_PLATFORM_NAME", "NVIDIA CUDA", 1), true);

// A queue on the Fault Device, its kernel set to scale a buffer of ones.
struct OnFaultDevice {
  cl_device_id fd = fault_device();
  Context ctx{{fd}};
  Queue q{ctx, fd};
  Program prog{ctx, kScaleShift};
  Kernel k{prog, "scale_shift"};
  std::vector<float> host = std::vector<float>(kN, 1.0f);
  Mem buf{ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), host.data()};
  OnFaultDevice() { set_args(k, buf.m, 2.0f, 0.5f); }
};

// 32 launches on the Fault Device under `control`, which fails them: every
// one is reported failed. Then, without faults, the queue goes on.
void check_failed_stream(const std::string& control) {
  REQUIRE(kPosesAsNvidia);
  OnFaultDevice on;
  auto& [fd, ctx, q, prog, k, host, buf] = on;

  std::vector<Event> failed(32);
  {
    FaultScope f(control);
    for (auto& e : failed)
      CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &kN, nullptr, 0, nullptr, &e));
    CHECK(clWaitForEvents(1, &failed.back().e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  }
  int reported_failed = 0;
  for (auto& e : failed) reported_failed += event_status(e) == -4;
  INFO("commands reported failed: " << reported_failed << " of 32");
  CHECK(reported_failed == 32);

  // The queue goes on: without faults, a fresh buffer gets right values.
  std::vector<float> ramp(kN);
  for (size_t i = 0; i < kN; ++i) ramp[i] = float(i % 53);
  Mem fresh(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), ramp.data());
  set_args(k, fresh.m, 3.0f, 1.0f);
  for (int i = 0; i < 40; ++i)
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &kN, nullptr, 0, nullptr, nullptr));
  std::vector<float> out(kN);
  CL_REQUIRE(clEnqueueReadBuffer(q, fresh, CL_TRUE, 0, kN * sizeof(float), out.data(), 0, nullptr,
                                 nullptr));
  size_t wrong = 0;
  for (size_t i = 0; i < kN; ++i) {
    double v = ramp[i];
    for (int r = 0; r < 40; ++r) v = 3.0 * v + 1.0;
    wrong += out[i] != Approx(v).epsilon(1e-5);
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("a failed event fails the commands without events that it proves done") {
  // The first 31 launches go without an event (the device's first direct
  // commands), the 32nd asks for one, and the vendor fails it; unless a slow
  // run let the waiter push a marker meanwhile (next case).
  check_failed_stream("exec_fail -4");
}

TEST_CASE("a failed marker fails the commands without events that it proves done") {
  // Each launch takes 2 ms in the vendor: the waiter's markers (pushed once
  // the stream paused 200 us) come between them and restart the count, so no
  // launch asks for an event and markers prove them all done. The marker
  // behind a failed command fails as well (the fault vendor's exec_fail is
  // sticky): with a marker that succeeded, this reported 0 of 32 failed.
  check_failed_stream("exec_fail -4\nslow_ms 2");
}

// A write without an event of a leased buffer joins its lane without an
// entry (runtime/direct_launch.h, RecordEnd): nothing completes it but the
// queue's clFinish, and a failure shows in the lane's next command with an
// event of its own, here the periodic proof (the 32nd launch), whose status
// the sticky failure before it fails.
TEST_CASE("writes without events that fail in the vendor are reported by the lane's next event") {
  OnFaultDevice on;
  auto& [fd, ctx, q, prog, k, host, buf] = on;
  // A kernel leaves the buffer leased on the Fault Device: writes go there.
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &kN, nullptr, 0, nullptr, nullptr));
  CL_REQUIRE(clFinish(q));
  const cl_parasol_device_paths before = device_paths(fd);
  constexpr size_t kPart = 25;  // 100 bytes: the faulted size
  std::vector<float> part(kPart, 7.0f);
  {
    FaultScope f("exec_fail -4\ntransfer_bytes 100");
    for (int i = 0; i < 40; ++i) {
      CL_REQUIRE(clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, kPart * sizeof(float), part.data(), 0,
                                      nullptr, nullptr));
      // A proof is asked once a millisecond (every 32nd launch looks).
      if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    CL_REQUIRE(clFinish(q));
    const cl_parasol_device_paths after = device_paths(fd);
    // Only the writes ran: the failures counted are theirs.
    CHECK(after.records - before.records == 40u);
    CHECK(after.vendor_failures - before.vendor_failures >= 1u);
  }
  const cl_parasol_device_paths faultless = device_paths(fd);
  // Without faults the same writes land, and nothing is said to have failed.
  for (int i = 0; i < 40; ++i)
    CL_REQUIRE(clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, kPart * sizeof(float), part.data(), 0,
                                    nullptr, nullptr));
  CL_REQUIRE(clFinish(q));
  const cl_parasol_device_paths after = device_paths(fd);
  CHECK(after.records - faultless.records == 40u);
  CHECK(after.vendor_failures == faultless.vendor_failures);
  CHECK(after.failed_drains == faultless.failed_drains);
  std::vector<float> out(kPart);
  CL_REQUIRE(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, kPart * sizeof(float), out.data(), 0,
                                 nullptr, nullptr));
  CHECK(out == part);
}
