// Reads, writes and copies of data resident on a device go straight to its
// vendor (runtime/direct_launch.h). When the vendor refuses one at enqueue or
// fails it while running, its event takes the vendor's status, a command
// waiting for it fails too, and a refused write leaves the buffer as it was.
// The Fault Device faults only transfers of one size (transfer_bytes): the
// partial transfers below, never StarPU's whole-buffer moves.
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

constexpr size_t kPartFloats = 25;  // 100 bytes: the faulted size
constexpr size_t kPartBytes = kPartFloats * sizeof(float);
constexpr size_t kOffset = 16 * sizeof(float);

// Two buffers left on the Fault Device by a kernel (so a lease holds them
// there), with the values the CPU expects: x = 2 * (i % 53) + 0.5.
struct Resident {
  cl_device_id fd = fault_device();
  Context ctx{{fd}};
  Queue q{ctx, fd};
  Program prog{ctx, kScaleShift};
  Kernel k{prog, "scale_shift"};
  std::vector<float> expect = std::vector<float>(kN);
  Mem a{ctx, CL_MEM_READ_WRITE, kN * sizeof(float)};
  Mem b{ctx, CL_MEM_READ_WRITE, kN * sizeof(float)};

  Resident() {
    std::vector<float> ramp(kN);
    for (size_t i = 0; i < kN; ++i) {
      ramp[i] = float(i % 53);
      expect[i] = 2.0f * ramp[i] + 0.5f;
    }
    for (cl_mem m : {a.m, b.m}) {
      CL_REQUIRE(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, kN * sizeof(float), ramp.data(), 0,
                                      nullptr, nullptr));
      set_args(k, m, 2.0f, 0.5f);
      CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &kN, nullptr, 0, nullptr, nullptr));
    }
    CL_REQUIRE(clFinish(q));
  }

  std::vector<float> read_all(cl_mem m) {
    std::vector<float> out(kN, -1.0f);
    CL_REQUIRE(clEnqueueReadBuffer(q, m, CL_TRUE, 0, kN * sizeof(float), out.data(), 0, nullptr,
                                   nullptr));
    return out;
  }

  // A marker waiting for e: fails with e's status.
  cl_int dependent_status(cl_event e) {
    Event after;
    CL_REQUIRE(clEnqueueMarkerWithWaitList(q, 1, &e, &after));
    clWaitForEvents(1, &after.e);
    return event_status(after);
  }
};

}  // namespace

TEST_CASE("a direct write the vendor refuses fails its event and leaves the buffer as it was") {
  Resident r;
  std::vector<float> part(kPartFloats, 99.0f);
  Event w;
  {
    FaultScope f("enqueue_fail -5\ntransfer_bytes 100");
    CL_REQUIRE(clEnqueueWriteBuffer(r.q, r.a, CL_FALSE, kOffset, kPartBytes, part.data(), 0,
                                    nullptr, &w));
    CHECK(clWaitForEvents(1, &w.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  }
  CHECK(event_status(w) == CL_OUT_OF_RESOURCES);
  CHECK(r.dependent_status(w) == CL_OUT_OF_RESOURCES);
  CHECK(r.read_all(r.a) == r.expect);

  // Without the fault the same write lands.
  CL_REQUIRE(clEnqueueWriteBuffer(r.q, r.a, CL_TRUE, kOffset, kPartBytes, part.data(), 0, nullptr,
                                  nullptr));
  std::copy(part.begin(), part.end(), r.expect.begin() + kOffset / sizeof(float));
  CHECK(r.read_all(r.a) == r.expect);
}

TEST_CASE("a direct read that fails on the vendor fails its event, and the blocking read says so") {
  Resident r;
  std::vector<float> part(kPartFloats, -1.0f);
  FaultScope f("exec_fail -4\ntransfer_bytes 100");
  Event rd;
  CL_REQUIRE(clEnqueueReadBuffer(r.q, r.a, CL_FALSE, kOffset, kPartBytes, part.data(), 0, nullptr,
                                 &rd));
  CHECK(clWaitForEvents(1, &rd.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  CHECK(event_status(rd) == -4);
  CHECK(r.dependent_status(rd) == -4);
  CHECK(clEnqueueReadBuffer(r.q, r.a, CL_TRUE, kOffset, kPartBytes, part.data(), 0, nullptr,
                            nullptr) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
}

TEST_CASE("a direct copy the vendor refuses fails its event, and the queue goes on") {
  Resident r;
  Event c;
  {
    FaultScope f("enqueue_fail -5\ntransfer_bytes 100");
    CL_REQUIRE(clEnqueueCopyBuffer(r.q, r.a, r.b, 0, kOffset, kPartBytes, 0, nullptr, &c));
    CHECK(clWaitForEvents(1, &c.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  }
  CHECK(event_status(c) == CL_OUT_OF_RESOURCES);
  CHECK(r.read_all(r.b) == r.expect);

  // The same copy without the fault, then a kernel on the copy's result.
  CL_REQUIRE(clEnqueueCopyBuffer(r.q, r.a, r.b, 0, kOffset, kPartBytes, 0, nullptr, nullptr));
  set_args(r.k, r.b.m, 1.0f, 1.0f);
  CL_REQUIRE(clEnqueueNDRangeKernel(r.q, r.k, 1, nullptr, &kN, nullptr, 0, nullptr, nullptr));
  std::vector<float> want = r.expect;
  std::copy(r.expect.begin(), r.expect.begin() + kPartFloats, want.begin() + kOffset / sizeof(float));
  for (float& v : want) v += 1.0f;
  CHECK(r.read_all(r.b) == want);
}

// Enqueued at once behind the refused write, before anyone waited for it:
// the kernel naming it in its wait list fails with it, the one after it in
// queue order only runs (queue order does not propagate failures).
TEST_CASE("a kernel waiting for a refused write fails with it, the queue goes on") {
  Resident r;
  std::vector<float> part(kPartFloats, 99.0f);
  Event w, k1, k2;
  {
    FaultScope f("enqueue_fail -5\ntransfer_bytes 100");
    CL_REQUIRE(clEnqueueWriteBuffer(r.q, r.a, CL_FALSE, kOffset, kPartBytes, part.data(), 0,
                                    nullptr, &w));
    set_args(r.k, r.a.m, 3.0f, 0.0f);
    CL_REQUIRE(clEnqueueNDRangeKernel(r.q, r.k, 1, nullptr, &kN, nullptr, 1, &w.e, &k1));
    set_args(r.k, r.a.m, 1.0f, 1.0f);
    CL_REQUIRE(clEnqueueNDRangeKernel(r.q, r.k, 1, nullptr, &kN, nullptr, 0, nullptr, &k2));
    CL_REQUIRE(clFinish(r.q));
  }
  CHECK(event_status(w) == CL_OUT_OF_RESOURCES);
  CHECK(event_status(k1) == CL_OUT_OF_RESOURCES);
  CHECK(event_status(k2) == CL_COMPLETE);
  // Neither the write nor the first kernel touched the data: only the second.
  std::vector<float> want = r.expect;
  for (float& v : want) v += 1.0f;
  CHECK(r.read_all(r.a) == want);
}

// Without an event the write would go as a record (core::CommandQueue); the
// vendor refusing it sends it the way of one with an event, which fails:
// nobody holds that event, the log says so, the data stays as it was.
TEST_CASE("a write without an event that the vendor refuses leaves the buffer as it was") {
  Resident r;
  std::vector<float> part(kPartFloats, 99.0f);
  {
    FaultScope f("enqueue_fail -5\ntransfer_bytes 100");
    CL_REQUIRE(clEnqueueWriteBuffer(r.q, r.a, CL_FALSE, kOffset, kPartBytes, part.data(), 0,
                                    nullptr, nullptr));
    CL_REQUIRE(clFinish(r.q));
  }
  CHECK(r.read_all(r.a) == r.expect);
  CL_REQUIRE(clEnqueueWriteBuffer(r.q, r.a, CL_FALSE, kOffset, kPartBytes, part.data(), 0,
                                  nullptr, nullptr));
  std::copy(part.begin(), part.end(), r.expect.begin() + kOffset / sizeof(float));
  CHECK(r.read_all(r.a) == r.expect);
}

// A read without an event that fails while the vendor runs it: clFinish
// still returns, and once the fault is gone the queue computes right.
TEST_CASE("a read without an event that fails on the vendor does not stall its queue") {
  Resident r;
  std::vector<float> part(kPartFloats, -1.0f);
  {
    FaultScope f("exec_fail -4\ntransfer_bytes 100");
    CL_REQUIRE(clEnqueueReadBuffer(r.q, r.a, CL_FALSE, kOffset, kPartBytes, part.data(), 0,
                                   nullptr, nullptr));
    CL_REQUIRE(clFinish(r.q));
  }
  set_args(r.k, r.a.m, 1.0f, 1.0f);
  CL_REQUIRE(clEnqueueNDRangeKernel(r.q, r.k, 1, nullptr, &kN, nullptr, 0, nullptr, nullptr));
  std::vector<float> want = r.expect;
  for (float& v : want) v += 1.0f;
  CHECK(r.read_all(r.a) == want);
}

// A small blocking read is the vendor's own blocking call on the direct path
// (DirectTransfer::kVendorBlockingBytes): one that fails while running still
// says so, and one the vendor refuses fails without waiting forever; once
// the fault is gone, the same read returns the data.
TEST_CASE("a blocking read that fails in the vendor's own blocking call says so") {
  Resident r;
  std::vector<float> part(kPartFloats, -1.0f);
  SECTION("failing while it runs") {
    FaultScope f("exec_fail -4\ntransfer_bytes 100");
    CHECK(clEnqueueReadBuffer(r.q, r.a, CL_TRUE, kOffset, kPartBytes, part.data(), 0, nullptr,
                              nullptr) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  }
  SECTION("refused at enqueue") {
    FaultScope f("enqueue_fail -5\ntransfer_bytes 100");
    Event rd;
    CHECK(clEnqueueReadBuffer(r.q, r.a, CL_TRUE, kOffset, kPartBytes, part.data(), 0, nullptr,
                              &rd) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    CHECK(event_status(rd) == CL_OUT_OF_RESOURCES);
  }
  CL_REQUIRE(clEnqueueReadBuffer(r.q, r.a, CL_TRUE, kOffset, kPartBytes, part.data(), 0, nullptr,
                                 nullptr));
  const auto from = r.expect.begin() + kOffset / sizeof(float);
  CHECK(part == std::vector<float>(from, from + kPartFloats));
}
