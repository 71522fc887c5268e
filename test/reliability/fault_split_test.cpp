// A split launch (runtime/split_launch.h) whose part fails on one device:
// its one event takes the failure, nothing hangs, and the next launch runs
// right. The Fault Device (test/fault-vendor/README.md) and a PoCL device
// share a context that splits every launch it can.
#include <CL/cl_parasol.h>

#include <vector>

#include "fault_control.h"
#include "fault_device.h"
#include "support/parasol_test.h"

using namespace parasol_test;
using fault_test::FaultScope;
using fault_test::fault_device;
using fault_test::kScaleShift;

namespace {

const cl_context_properties kSplitAlways[] = {CL_CONTEXT_SPLIT_PARASOL, CL_TRUE, 0};

size_t parts_of(cl_event e) {
  size_t bytes = 0;
  CL_REQUIRE(clGetEventInfo(e, CL_EVENT_SPLIT_DEVICES_PARASOL, 0, nullptr, &bytes));
  return bytes / sizeof(cl_device_id);
}

// Runs scale_shift (x = 2x + 1) over n floats from 1, 2, 3...; the event.
void launch(cl_command_queue q, cl_kernel k, cl_mem x, size_t n, Event& e) {
  std::vector<float> ramp(n);
  for (size_t i = 0; i < n; ++i) ramp[i] = static_cast<float>(i + 1);
  CL_REQUIRE(clEnqueueWriteBuffer(q, x, CL_TRUE, 0, n * sizeof(float), ramp.data(), 0, nullptr,
                                  nullptr));
  const float a = 2.0f, b = 1.0f;
  set_args(k, x, a, b);
  const size_t local = 16;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &local, 0, nullptr, &e));
}

}  // namespace

TEST_CASE("a split launch whose part fails on one device fails its one event; the next runs right") {
  const auto pocl = pocl_devices();
  REQUIRE(!pocl.empty());
  Context ctx({fault_device(), pocl[0]}, kSplitAlways);
  Queue q(ctx, nullptr);
  Program prog(ctx, kScaleShift);
  Kernel k(prog, "scale_shift");
  const size_t n = 4096;
  Mem x(ctx, CL_MEM_READ_WRITE, n * sizeof(float));

  for (const char* fault : {"exec_fail -5\nnot_sticky\n", "enqueue_fail -5\n"}) {
    SECTION(fault) {
      {
        FaultScope f(fault);
        Event e;
        launch(q, k, x, n, e);
        REQUIRE(wait_bounded(e) < 0);
        CHECK(parts_of(e) == 2);
      }
      Event e;
      launch(q, k, x, n, e);
      REQUIRE(wait_bounded(e) == CL_COMPLETE);
      CHECK(parts_of(e) == 2);
      std::vector<float> out(n);
      CL_REQUIRE(clEnqueueReadBuffer(q, x, CL_TRUE, 0, n * sizeof(float), out.data(), 0, nullptr,
                                     nullptr));
      for (size_t i = 0; i < n; ++i)
        if (out[i] != 2.0f * static_cast<float>(i + 1) + 1.0f) FAIL("element " << i);
    }
  }
}
