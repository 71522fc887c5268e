// How queues order commands: in-order chains, out-of-order queues that only
// honour wait lists, markers and barriers (OpenCL 1.1 and 1.2 forms), wait
// lists across vendors, user events gating two vendors, flush/finish/wait.
#include <chrono>
#include <thread>

#include "core/core_fixture.h"

using namespace parasol_test;

namespace {

void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(150)); }

// a * x + b chain reference
const char* kAffine =
    "__kernel void affine_int(__global int* x, int a, int b) {\n"
    "  size_t i = get_global_id(0);\n"
    "  x[i] = a * x[i] + b;\n"
    "}\n";

}  // namespace

TEST_CASE("an in-order queue runs a chain of non-commuting kernels in enqueue order") {
  MixedPair m;
  Program prog(m.ctx, kAffine);
  Kernel k(prog, "affine_int");
  const size_t n = 256;
  auto which = GENERATE(0, 1);
  cl_command_queue q = which ? m.qg.q : m.qp.q;
  std::vector<int> ref = iota_vector(n);
  Mem buf(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), ref.data());
  for (int s = 0; s < 8; ++s) {
    int a = (s % 3) + 1, b = s * 5 - 7;
    set_args(k, buf.m, a, b);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    for (auto& v : ref) v = a * v + b;
  }
  CHECK(read_ints(q, buf, n) == ref);
}

TEST_CASE("an out-of-order queue orders only what wait lists say") {
  MixedPair m;
  Queue ooo(m.ctx, m.pocl, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  Program prog(m.ctx, kAffine);
  Kernel k(prog, "affine_int");
  const size_t n = 128;
  Mem buf(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), iota_vector(n).data());
  UserEvent gate(m.ctx);
  Event e1, e2, unrelated;
  set_args(k, buf.m, 2, 1);
  CL_REQUIRE(clEnqueueNDRangeKernel(ooo, k, 1, nullptr, &n, nullptr, 1, gate.ptr(), &e1));
  set_args(k, buf.m, 3, -4);
  CL_REQUIRE(clEnqueueNDRangeKernel(ooo, k, 1, nullptr, &n, nullptr, 1, &e1, &e2));
  // A command without a wait list is not held behind the gated ones.
  Mem other(m.ctx, CL_MEM_READ_WRITE, 64);
  int v = 9;
  CL_REQUIRE(clEnqueueFillBuffer(ooo, other, &v, sizeof v, 0, 64, 0, nullptr, &unrelated));
  CHECK(wait_bounded(unrelated, 20) == CL_COMPLETE);
  CHECK(event_status(e1) > CL_COMPLETE);
  CHECK(event_status(e2) > CL_COMPLETE);
  gate.set(CL_COMPLETE);
  REQUIRE(wait_bounded(e2) == CL_COMPLETE);
  std::vector<int> ref = iota_vector(n);
  for (auto& x : ref) x = 3 * (2 * x + 1) - 4;
  CHECK(read_ints(m.qp, buf, n) == ref);
}

TEST_CASE("barriers block every later command until the commands before them finish") {
  MixedPair m;
  auto props = GENERATE(cl_command_queue_properties{0},
                        cl_command_queue_properties{CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE});
  auto form = GENERATE(as<std::string>{}, "1.1 clEnqueueBarrier", "1.2 clEnqueueBarrierWithWaitList",
                       "1.1 clEnqueueWaitForEvents");
  INFO("queue properties " << props << ", " << form);
  Queue q(m.ctx, m.grind, props);
  UserEvent gate(m.ctx);
  Mem buf(m.ctx, CL_MEM_READ_WRITE, 64);
  int zero = 0, one = 1;
  Event before, barrier, after;
  CL_REQUIRE(clEnqueueFillBuffer(q, buf, &zero, sizeof zero, 0, 64, 1, gate.ptr(), &before));
  if (form == "1.1 clEnqueueBarrier") {
    CL_REQUIRE(clEnqueueBarrier(q));
  } else if (form == "1.2 clEnqueueBarrierWithWaitList") {
    CL_REQUIRE(clEnqueueBarrierWithWaitList(q, 0, nullptr, &barrier));
  } else {
    cl_event ev = before;
    CL_REQUIRE(clEnqueueWaitForEvents(q, 1, &ev));
  }
  // Without a wait list: only the barrier can hold this command back.
  CL_REQUIRE(clEnqueueFillBuffer(q, buf, &one, sizeof one, 0, 64, 0, nullptr, &after));
  settle();
  CHECK(event_status(after) > CL_COMPLETE);
  if (barrier.e) CHECK(event_status(barrier) > CL_COMPLETE);
  gate.set(CL_COMPLETE);
  REQUIRE(wait_bounded(after) == CL_COMPLETE);
  CHECK(event_status(before) == CL_COMPLETE);
  std::vector<int> out(16);
  CL_REQUIRE(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 64, out.data(), 0, nullptr, nullptr));
  CHECK(out == std::vector<int>(16, 1));  // the later fill won
}

TEST_CASE("a barrier with a wait list waits for exactly those events") {
  MixedPair m;
  Queue q(m.ctx, m.pocl, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  UserEvent gate_a(m.ctx), gate_b(m.ctx);
  Event barrier, after;
  cl_event a = gate_a;
  CL_REQUIRE(clEnqueueBarrierWithWaitList(q, 1, &a, &barrier));
  Mem buf(m.ctx, CL_MEM_READ_WRITE, 64);
  int v = 3;
  CL_REQUIRE(clEnqueueFillBuffer(q, buf, &v, sizeof v, 0, 64, 0, nullptr, &after));
  settle();
  CHECK(event_status(barrier) > CL_COMPLETE);
  CHECK(event_status(after) > CL_COMPLETE);
  gate_a.set(CL_COMPLETE);
  CHECK(wait_bounded(after) == CL_COMPLETE);
  CHECK(event_status(barrier) == CL_COMPLETE);
  cl_command_type type = 0;
  CL_REQUIRE(clGetEventInfo(barrier, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  CHECK(type == CL_COMMAND_BARRIER);
}

TEST_CASE("markers complete only after the commands they cover, in both API forms") {
  MixedPair m;
  auto props = GENERATE(cl_command_queue_properties{0},
                        cl_command_queue_properties{CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE});
  INFO("queue properties " << props);
  Queue q(m.ctx, m.pocl, props);
  UserEvent gate(m.ctx);
  Mem buf(m.ctx, CL_MEM_READ_WRITE, 64);
  int v = 1;
  Event gated, marker11, marker12, marker_list;
  CL_REQUIRE(clEnqueueFillBuffer(q, buf, &v, sizeof v, 0, 64, 1, gate.ptr(), &gated));
  CL_REQUIRE(clEnqueueMarker(q, &marker11));
  CL_REQUIRE(clEnqueueMarkerWithWaitList(q, 0, nullptr, &marker12));
  cl_event g = gated;
  CL_REQUIRE(clEnqueueMarkerWithWaitList(q, 1, &g, &marker_list));
  settle();
  CHECK(event_status(marker11) > CL_COMPLETE);
  CHECK(event_status(marker12) > CL_COMPLETE);
  CHECK(event_status(marker_list) > CL_COMPLETE);
  gate.set(CL_COMPLETE);
  CHECK(wait_bounded(marker11) == CL_COMPLETE);
  CHECK(wait_bounded(marker12) == CL_COMPLETE);
  CHECK(wait_bounded(marker_list) == CL_COMPLETE);
  cl_command_type type = 0;
  CL_REQUIRE(clGetEventInfo(marker11, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  CHECK(type == CL_COMMAND_MARKER);
  CHECK(clEnqueueMarker(q, nullptr) == CL_INVALID_VALUE);
}

TEST_CASE("wait lists across PoCL and Oclgrind queues order a ping-pong of kernels") {
  MixedPair m;
  Queue qp2(m.ctx, m.pocl, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  Queue qg2(m.ctx, m.grind, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  Program prog(m.ctx, kAffine);
  Kernel k(prog, "affine_int");
  const size_t n = 256;
  std::vector<int> ref = iota_vector(n, -20);
  Mem buf(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), ref.data());
  std::vector<Event> ev(6);
  UserEvent gate(m.ctx);
  for (int s = 0; s < 6; ++s) {
    int a = s % 2 ? -1 : 2, b = s + 1;
    set_args(k, buf.m, a, b);
    cl_event prev = s ? ev[s - 1].e : gate.e;
    CL_REQUIRE(clEnqueueNDRangeKernel(s % 2 ? qg2.q : qp2.q, k, 1, nullptr, &n, nullptr, 1, &prev,
                                      &ev[s]));
    for (auto& x : ref) x = a * x + b;
  }
  settle();
  for (auto& e : ev) CHECK(event_status(e) > CL_COMPLETE);
  gate.set(CL_COMPLETE);
  REQUIRE(wait_bounded(ev[5]) == CL_COMPLETE);
  CHECK(read_ints(m.qp, buf, n) == ref);
}

TEST_CASE("one user event gates commands on both vendors until it is set") {
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel kp(prog, "iota_from"), kg(prog, "iota_from");
  const size_t n = 64;
  Mem a(m.ctx, CL_MEM_READ_WRITE, n * sizeof(int)), b(m.ctx, CL_MEM_READ_WRITE, n * sizeof(int));
  UserEvent gate(m.ctx);
  Event ep, eg;
  set_args(kp, a.m, 1);
  set_args(kg, b.m, 2);
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qp, kp, 1, nullptr, &n, nullptr, 1, gate.ptr(), &ep));
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, kg, 1, nullptr, &n, nullptr, 1, gate.ptr(), &eg));
  settle();
  CHECK(event_status(ep) == CL_QUEUED);
  CHECK(event_status(eg) == CL_QUEUED);
  CHECK(event_status(gate) == CL_SUBMITTED);
  gate.set(CL_COMPLETE);
  CHECK(wait_bounded(ep) == CL_COMPLETE);
  CHECK(wait_bounded(eg) == CL_COMPLETE);
  CHECK(read_ints(m.qp, a, n) == iota_vector(n, 1));
  CHECK(read_ints(m.qg, b, n) == iota_vector(n, 2));
  // A user event's status is set once only.
  CHECK(clSetUserEventStatus(gate, CL_COMPLETE) == CL_INVALID_OPERATION);
}

TEST_CASE("clFlush, clFinish and clWaitForEvents return once the work is done") {
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel k(prog, "add_const_int");
  const size_t n = 512;
  Mem buf(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), iota_vector(n).data());
  set_args(k, buf.m, 1);
  std::vector<Event> ev(4);
  for (auto& e : ev)
    CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
  CL_REQUIRE(clFlush(m.qg));
  CL_REQUIRE(clFinish(m.qg));
  for (auto& e : ev) CHECK(event_status(e) == CL_COMPLETE);

  Event e5, e6;
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qp, k, 1, nullptr, &n, nullptr, 0, nullptr, &e5));
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, k, 1, nullptr, &n, nullptr, 1, &e5.e, &e6));
  cl_event both[2] = {e5, e6};
  CL_REQUIRE(clWaitForEvents(2, both));
  CHECK(event_status(e5) == CL_COMPLETE);
  CHECK(event_status(e6) == CL_COMPLETE);
  CHECK(read_ints(m.qp, buf, n) == iota_vector(n, 6));
  // clFinish on an idle queue returns at once.
  CHECK(returns_within([&] { clFinish(m.qp); }, 10));
}

TEST_CASE("a command whose wait list is still running waits (CL_SUBMITTED or CL_QUEUED), then runs") {
  // Event 1 waits for event 0; event 2 waits for both (as the Khronos
  // conformance suite's waitlists test does). Whenever a status read finds a
  // command not running yet, what waits for it must not be running either.
  const char* source =
      "__kernel void spin(__global int* out, int iters) {\n"
      "  int acc = (int)get_global_id(0);\n"
      "  for (int i = 0; i < iters; ++i) acc = acc * 1103515245 + 12345;\n"
      "  out[get_global_id(0)] = acc;\n"
      "}\n";
  std::vector<cl_device_id> devs = {pocl_devices().at(0)};
  for (cl_device_id d : native_devices()) devs.push_back(d);
  for (cl_device_id d : devs) {
    INFO(device_name(d));
    Context ctx{{d}};
    Queue q(ctx, d, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
    Program prog(ctx, source);
    Kernel spin(prog, "spin");
    Mem out(ctx, CL_MEM_READ_WRITE, 3 * sizeof(int));
    const size_t one = 1;
    Event e[3];
    for (int i = 0; i < 3; ++i) {
      set_args(spin, out.m, 20000000);
      cl_event waits[2] = {e[0], e[1]};
      CL_REQUIRE(clEnqueueNDRangeKernel(q, spin, 1, nullptr, &one, nullptr, static_cast<cl_uint>(i),
                                        i ? waits : nullptr, &e[i]));
    }
    int samples = 0;
    for (;;) {
      const cl_int s2 = event_status(e[2]), s1 = event_status(e[1]), s0 = event_status(e[0]);
      REQUIRE(s0 >= CL_COMPLETE);
      REQUIRE(s1 >= CL_COMPLETE);
      REQUIRE(s2 >= CL_COMPLETE);
      ++samples;
      // Read after the others: not ended then, so not ended when they were read.
      if (s0 > CL_COMPLETE) {
        CHECK(s1 >= CL_SUBMITTED);
        CHECK(s2 >= CL_SUBMITTED);
      }
      if (s1 > CL_COMPLETE) CHECK(s2 >= CL_SUBMITTED);
      if (s2 == CL_COMPLETE) break;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    CHECK(samples > 1);
    auto when = [](cl_event ev, cl_profiling_info what) {
      cl_ulong t = 0;
      CL_REQUIRE(clGetEventProfilingInfo(ev, what, sizeof t, &t, nullptr));
      return t;
    };
    // Each started after what it waited for had ended.
    CHECK(when(e[1], CL_PROFILING_COMMAND_START) >= when(e[0], CL_PROFILING_COMMAND_END));
    CHECK(when(e[2], CL_PROFILING_COMMAND_START) >= when(e[1], CL_PROFILING_COMMAND_END));
  }
}
