// Event callbacks (CL_SUBMITTED, CL_RUNNING, CL_COMPLETE) fire once each,
// with the status they were registered for; profiling times are present and
// ordered on profiling queues and refused elsewhere.
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "core/core_fixture.h"

using namespace parasol_test;

namespace {

struct CallbackLog {
  std::mutex mutex;
  std::vector<std::pair<cl_event, cl_int>> calls;  // (event, reported status)
  int trigger = 0;
  size_t count() {
    std::lock_guard lock(mutex);
    return calls.size();
  }
};

void CL_CALLBACK record(cl_event e, cl_int status, void* user) {
  auto* log = static_cast<CallbackLog*>(user);
  std::lock_guard lock(log->mutex);
  log->calls.emplace_back(e, status);
}

bool wait_for_count(CallbackLog& log, size_t n, double seconds = 20) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (log.count() < n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

}  // namespace

TEST_CASE("event callbacks fire once per registered status, not before the command reaches it") {
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel k(prog, "iota_from");
  const size_t n = 64;
  auto which = GENERATE(0, 1);
  INFO((which ? "Oclgrind" : "PoCL") << " queue");
  cl_command_queue q = which ? m.qg.q : m.qp.q;
  Mem buf(m.ctx, CL_MEM_READ_WRITE, n * sizeof(int));
  set_args(k, buf.m, 3);
  UserEvent gate(m.ctx);
  Event e;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 1, gate.ptr(), &e));
  CallbackLog submitted, running, complete, gate_complete;
  CL_REQUIRE(clSetEventCallback(e, CL_SUBMITTED, record, &submitted));
  CL_REQUIRE(clSetEventCallback(e, CL_RUNNING, record, &running));
  CL_REQUIRE(clSetEventCallback(e, CL_COMPLETE, record, &complete));
  CL_REQUIRE(clSetEventCallback(gate, CL_COMPLETE, record, &gate_complete));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(submitted.count() == 0);
  CHECK(running.count() == 0);
  CHECK(complete.count() == 0);
  CHECK(gate_complete.count() == 0);
  gate.set(CL_COMPLETE);
  REQUIRE(wait_bounded(e) == CL_COMPLETE);
  REQUIRE(wait_for_count(submitted, 1));
  REQUIRE(wait_for_count(running, 1));
  REQUIRE(wait_for_count(complete, 1));
  REQUIRE(wait_for_count(gate_complete, 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(submitted.calls == std::vector<std::pair<cl_event, cl_int>>{{e.e, CL_SUBMITTED}});
  CHECK(running.calls == std::vector<std::pair<cl_event, cl_int>>{{e.e, CL_RUNNING}});
  CHECK(complete.calls == std::vector<std::pair<cl_event, cl_int>>{{e.e, CL_COMPLETE}});
  CHECK(gate_complete.calls == std::vector<std::pair<cl_event, cl_int>>{{gate.e, CL_COMPLETE}});

  // Registered after completion: called anyway, once, with CL_COMPLETE.
  CallbackLog late;
  CL_REQUIRE(clSetEventCallback(e, CL_COMPLETE, record, &late));
  REQUIRE(wait_for_count(late, 1));
  CHECK(late.calls.front().second == CL_COMPLETE);
}

TEST_CASE("a CL_COMPLETE callback of a command whose wait list failed reports the negative status") {
  MixedPair m;
  UserEvent gate(m.ctx);
  Mem buf(m.ctx, CL_MEM_READ_WRITE, 64);
  int v = 1;
  Event e;
  CL_REQUIRE(clEnqueueFillBuffer(m.qp, buf, &v, sizeof v, 0, 64, 1, gate.ptr(), &e));
  CallbackLog complete, gate_log;
  CL_REQUIRE(clSetEventCallback(e, CL_COMPLETE, record, &complete));
  CL_REQUIRE(clSetEventCallback(gate, CL_COMPLETE, record, &gate_log));
  gate.set(-42);
  REQUIRE(wait_for_count(complete, 1));
  REQUIRE(wait_for_count(gate_log, 1));
  CHECK(complete.calls.front().second < 0);
  CHECK(gate_log.calls.front().second == -42);
}

TEST_CASE("profiling times are ordered queued <= submit <= start <= end on profiling queues of both vendors") {
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel k(prog, "add_const_int");
  const size_t n = 256;
  auto which = GENERATE(0, 1);
  INFO((which ? "Oclgrind" : "PoCL") << " queue");
  Queue q(m.ctx, which ? m.grind : m.pocl, CL_QUEUE_PROFILING_ENABLE);
  Mem buf(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), iota_vector(n).data());
  set_args(k, buf.m, 1);
  UserEvent gate(m.ctx);
  Event kernel, read, marker;
  std::vector<int> out(n);
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 1, gate.ptr(), &kernel));
  CL_REQUIRE(clEnqueueReadBuffer(q, buf, CL_FALSE, 0, n * sizeof(int), out.data(), 0, nullptr, &read));
  CL_REQUIRE(clEnqueueMarkerWithWaitList(q, 0, nullptr, &marker));
  cl_ulong before = 0;
  // Not available before the command completes.
  CHECK(clGetEventProfilingInfo(kernel, CL_PROFILING_COMMAND_END, sizeof before, &before,
                                nullptr) == CL_PROFILING_INFO_NOT_AVAILABLE);
  const auto hold = std::chrono::milliseconds(100);
  std::this_thread::sleep_for(hold);
  gate.set(CL_COMPLETE);
  REQUIRE(wait_bounded(marker) == CL_COMPLETE);
  CHECK(out == iota_vector(n, 1));
  cl_ulong prev_end = 0;
  for (cl_event e : {kernel.e, read.e, marker.e}) {
    cl_ulong t[4] = {};
    const cl_profiling_info names[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                        CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
    for (int i = 0; i < 4; ++i) {
      size_t size = 0;
      CL_REQUIRE(clGetEventProfilingInfo(e, names[i], sizeof t[i], &t[i], &size));
      CHECK(size == sizeof(cl_ulong));
    }
    CHECK(t[0] > 0);
    CHECK(t[0] <= t[1]);
    CHECK(t[1] <= t[2]);
    CHECK(t[2] <= t[3]);
    CHECK(t[2] >= prev_end);  // in-order queue: each starts after the previous ended
    prev_end = t[3];
    if (e == kernel.e)  // held at the gate: submitted only after it opened
      CHECK(t[1] - t[0] >= cl_ulong(std::chrono::nanoseconds(hold).count()) * 9 / 10);
  }
}

TEST_CASE("profiling info is not available without CL_QUEUE_PROFILING_ENABLE or on user events") {
  MixedPair m;
  Mem buf(m.ctx, CL_MEM_READ_WRITE, 64);
  int v = 1;
  Event e;
  CL_REQUIRE(clEnqueueFillBuffer(m.qg, buf, &v, sizeof v, 0, 64, 0, nullptr, &e));
  REQUIRE(wait_bounded(e) == CL_COMPLETE);
  cl_ulong t = 0;
  for (cl_profiling_info p : {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                              CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END})
    CHECK(clGetEventProfilingInfo(e, p, sizeof t, &t, nullptr) == CL_PROFILING_INFO_NOT_AVAILABLE);
  UserEvent user(m.ctx);
  user.set(CL_COMPLETE);
  CHECK(clGetEventProfilingInfo(user, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr) ==
        CL_PROFILING_INFO_NOT_AVAILABLE);
}
