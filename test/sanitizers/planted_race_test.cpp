// A race planted in the test's own code, for the ThreadSanitizer build only:
// an event callback and the test thread both write one plain int. Parasol
// runs the callback on the thread that completes the command: a StarPU
// worker, or a vendor's callback thread, whose stacks hold library frames.
// expect_tsan_report.sh checks that TSan reports it there: a suppression
// that matches any frame of such a stack (race:libstarpu) hides every race
// in Parasol's code on those threads (docs/reliability.md).
#include <atomic>
#include <thread>

#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

int planted = 0;  // written by both sides without synchronisation: the race
std::atomic<bool> called{false};

void CL_CALLBACK planted_race_callback(cl_event, cl_int, void*) {
  planted = 1;
  called.store(true);
}

// Long enough (tens of ms on PoCL, more under TSan) that the callback is
// registered before the command completes: it then runs on the completing
// thread, not inline on this one.
const char* kSource = R"(
kernel void spin(global float* a) {
  float x = a[get_global_id(0)];
  for (int i = 0; i < 200000; ++i) x = x * 0.999f + 0.5f;
  a[get_global_id(0)] = x;
}
)";

}  // namespace

TEST_CASE("a race in an event callback on a library's thread is reported") {
  auto devs = pocl_devices();
  REQUIRE(!devs.empty());
  Context ctx({devs[0]});
  Queue q(ctx, devs[0]);
  Program prog(ctx, kSource);
  Kernel k(prog, "spin");
  Mem buf(ctx, CL_MEM_READ_WRITE, 64 * sizeof(float));
  // Once, so that the data is resident and the timed launch may go direct.
  const size_t global = 64;
  set_args(k, buf.m);
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  CL_REQUIRE(clFinish(q));

  Event e;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, nullptr, 0, nullptr, &e));
  CL_REQUIRE(clSetEventCallback(e, CL_COMPLETE, &planted_race_callback, nullptr));
  CL_REQUIRE(clFlush(q));
  planted = 2;
  // No OpenCL call until the callback ran: the completing thread stays the
  // library's (a wait here could complete the command on this thread).
  while (!called.load()) std::this_thread::yield();
  CHECK((planted == 1 || planted == 2));  // read, so that the writes are not optimised away
  CHECK(event_status(e) == CL_COMPLETE);
  CL_REQUIRE(clFinish(q));
}
