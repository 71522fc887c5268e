// Vendor failures seen through Parasol: a context holding the Fault Device
// (the fault vendor, see test/fault-vendor/) and a PoCL device. A command
// that fails on the vendor fails its event, and every command that waits for
// it, on either device; the rest of the context keeps working.
#include <memory>
#include <string>
#include <vector>

#include "fault_control.h"
#include "fault_device.h"
#include "support/parasol_test.h"

using namespace parasol_test;
using fault_test::FaultScope;
using fault_test::fault_device;
using fault_test::kN;
using fault_test::kScaleShift;

constexpr size_t kOne = 1;

namespace {

cl_device_id pocl_device() {
  auto devs = pocl_devices();
  REQUIRE(!devs.empty());
  return devs[0];
}

std::vector<float> ramp() {
  std::vector<float> v(kN);
  for (size_t i = 0; i < kN; ++i) v[i] = float(i % 53);
  return v;
}

// Runs x = a*x + b on queue q over a fresh buffer and checks it on the CPU.
void check_scale_shift_works(cl_context ctx, cl_command_queue q, cl_kernel k) {
  std::vector<float> host = ramp();
  Mem buf(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), host.data());
  set_args(k, buf.m, 3.0f, 1.0f);
  Event run;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &kN, nullptr, 0, nullptr, &run));
  std::vector<float> out(kN, -1.0f);
  CL_REQUIRE(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, kN * sizeof(float), out.data(), 1, &run.e,
                                 nullptr));
  CHECK(event_status(run) == CL_COMPLETE);
  for (size_t i = 0; i < kN; ++i) REQUIRE(out[i] == 3.0f * host[i] + 1.0f);
}

// The Fault Device beside a PoCL device in one context, a queue on each,
// and scale_shift built for both.
struct FaultBesidePocl {
  cl_device_id fd = fault_device(), pd = pocl_device();
  Context ctx{{fd, pd}};
  Queue qf{ctx, fd}, qp{ctx, pd};
  Program prog{ctx, kScaleShift};
  Kernel k{prog, "scale_shift"};
};

// FaultBesidePocl with a buffer of ramp() values that one launch of
// x = 2x + 0.5 (`first`, waited for) leased on the Fault Device: later
// launches there may go the way records do. The device's paths are read
// after it (before).
struct LeasedOnFault : FaultBesidePocl {
  std::vector<float> host = ramp();
  Mem buf{ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), host.data()};
  Event first;
  cl_parasol_device_paths before{};
  LeasedOnFault() {
    set_args(k, buf.m, 2.0f, 0.5f);
    CL_REQUIRE(clEnqueueNDRangeKernel(qf, k, 1, nullptr, &kN, nullptr, 0, nullptr, &first));
    CL_REQUIRE(clWaitForEvents(1, &first.e));
    before = device_paths(fd);
  }
  // Refusals the Fault Device's direct commands met since.
  cl_ulong refusals() { return device_paths(fd).vendor_refusals - before.vendor_refusals; }
};

}  // namespace

// First in the file: StarPU sizes the device's memory once, when Parasol
// starts it, so this case needs the first Parasol call of its process (ctest
// runs every case in a process of its own; a run of the whole binary reaches
// this one first).
TEST_CASE("global_mem_mb: buffers oversubscribing the Fault Device's memory still compute right") {
  // Set before Parasol starts StarPU, which sizes the device's memory node then.
  FaultScope f("global_mem_mb 64");
  cl_device_id fd = fault_device();
  cl_ulong mem = 0, max_alloc = 0;
  CL_REQUIRE(clGetDeviceInfo(fd, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, nullptr));
  CL_REQUIRE(clGetDeviceInfo(fd, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc,
                             nullptr));
  // Parasol reports what StarPU may use of the vendor's 64 MiB (about 90%).
  CHECK(mem <= 64ull << 20);
  CHECK(mem >= 48ull << 20);
  CHECK(max_alloc <= mem);

  Context ctx({fd});
  Queue q(ctx, fd);
  Program prog(ctx, kScaleShift);
  Kernel k(prog, "scale_shift");
  const size_t n = (24u << 20) / sizeof(float);  // 24 MiB each, 5 of them: 120 MiB
  std::vector<std::vector<float>> host(5, std::vector<float>(n));
  std::vector<Mem> bufs;
  bufs.reserve(host.size());
  for (size_t b = 0; b < host.size(); ++b) {
    for (size_t i = 0; i < n; ++i) host[b][i] = float((i + b) % 101);
    bufs.emplace_back(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float),
                      host[b].data());
  }
  for (int round = 0; round < 2; ++round)
    for (size_t b = 0; b < bufs.size(); ++b) {
      set_args(k, bufs[b].m, 2.0f, float(b));
      CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    }
  std::vector<float> out(n);
  for (size_t b = 0; b < bufs.size(); ++b) {
    CL_REQUIRE(clEnqueueReadBuffer(q, bufs[b], CL_TRUE, 0, n * sizeof(float), out.data(), 0,
                                   nullptr, nullptr));
    for (size_t i = 0; i < n; ++i) {
      float once = 2.0f * host[b][i] + float(b);
      REQUIRE(out[i] == 2.0f * once + float(b));
    }
  }
}

TEST_CASE_METHOD(FaultBesidePocl,
                 "exec_fail on the Fault Device fails the command and its dependents on both "
                 "devices, PoCL keeps working in the same context and queues") {
  std::vector<float> host = ramp();
  Mem buf(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), host.data());
  set_args(k, buf.m, 2.0f, 0.5f);

  Event e1, e2, e3, e4, marker;
  std::vector<float> out(kN, -1.0f);
  {
    FaultScope f("exec_fail -4");
    CL_REQUIRE(clEnqueueNDRangeKernel(qf, k, 1, nullptr, &kN, nullptr, 0, nullptr, &e1));
    CHECK(clWaitForEvents(1, &e1.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  }
  CHECK(event_status(e1) == -4);
  // Dependents enqueued after the failure, on PoCL then back on the Fault
  // Device (faults cleared: these would run if allowed to).
  CL_REQUIRE(clEnqueueNDRangeKernel(qp, k, 1, nullptr, &kN, nullptr, 1, &e1.e, &e2));
  CL_REQUIRE(clEnqueueNDRangeKernel(qf, k, 1, nullptr, &kN, nullptr, 1, &e2.e, &e3));
  CL_REQUIRE(clEnqueueReadBuffer(qp, buf, CL_FALSE, 0, kN * sizeof(float), out.data(), 1, &e3.e,
                                 &e4));
  CL_REQUIRE(clEnqueueMarkerWithWaitList(qp, 1, &e1.e, &marker));
  cl_event all[] = {e2, e3, e4, marker};
  CHECK(clWaitForEvents(4, all) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  CHECK(event_status(e2) == -4);
  CHECK(event_status(e3) == -4);
  CHECK(event_status(e4) == -4);
  CHECK(event_status(marker) == -4);
  CHECK(out == std::vector<float>(kN, -1.0f));  // the read never ran

  // Nothing hangs, and both queues take new work.
  CL_REQUIRE(clFinish(qf));
  CL_REQUIRE(clFinish(qp));
  check_scale_shift_works(ctx, qp, k);
  check_scale_shift_works(ctx, qf, k);
}

TEST_CASE_METHOD(FaultBesidePocl,
                 "exec_fail while a PoCL chain runs beside it: only the dependents fail") {
  std::vector<float> a = ramp(), b = ramp();
  Mem ba(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), a.data());
  Mem bb(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), b.data());

  FaultScope f("exec_fail -4");
  Event bad, dependent, independent;
  set_args(k, ba.m, 2.0f, 0.0f);
  CL_REQUIRE(clEnqueueNDRangeKernel(qf, k, 1, nullptr, &kN, nullptr, 0, nullptr, &bad));
  CL_REQUIRE(clEnqueueNDRangeKernel(qp, k, 1, nullptr, &kN, nullptr, 1, &bad.e, &dependent));
  set_args(k, bb.m, 2.0f, 1.0f);
  CL_REQUIRE(clEnqueueNDRangeKernel(qp, k, 1, nullptr, &kN, nullptr, 0, nullptr, &independent));
  std::vector<float> out(kN);
  CL_REQUIRE(clEnqueueReadBuffer(qp, bb, CL_TRUE, 0, kN * sizeof(float), out.data(), 1,
                                 &independent.e, nullptr));
  CHECK(event_status(independent) == CL_COMPLETE);
  for (size_t i = 0; i < kN; ++i) REQUIRE(out[i] == 2.0f * b[i] + 1.0f);
  CHECK(clWaitForEvents(1, &dependent.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  CHECK(event_status(bad) == -4);
  CHECK(event_status(dependent) == -4);
}

// A vendor whose execution errors are not sticky (PoCL's are not; the Fault
// Device's are not under not_sticky) runs a command queued behind a failed
// one. Enqueued at once behind a long kernel, these all go straight to the
// vendor's queue (runtime/direct_launch.h), where the vendor runs them: the
// commands naming the failed kernel in their wait list must still fail with
// it, as they would on StarPU's path (which does not run them); the one
// after them in queue order only is ordered, not failed.
TEST_CASE("exec_fail without sticky errors: direct commands naming the failed kernel fail with it, "
          "queue order only orders") {
  static const char* kSource =
      "__kernel void spin(__global float* x, uint n) {\n"
      "  float v = x[0];\n"
      "  for (uint i = 0; i < n; ++i) v = v * 0.999999f + 1e-6f;\n"
      "  x[0] = v;\n"
      "}\n"
      "__kernel void doomed(__global float* x) { x[get_global_id(0)] += 100.0f; }\n"
      "__kernel void scale_shift(__global float* x, float a, float b) {\n"
      "  size_t i = get_global_id(0);\n"
      "  x[i] = a * x[i] + b;\n"
      "}\n";
  cl_device_id fd = fault_device();
  Context ctx({fd});
  Queue q(ctx, fd);
  Program prog(ctx, kSource);
  Kernel spin(prog, "spin"), doomed(prog, "doomed"), k(prog, "scale_shift");
  std::vector<float> host = ramp(), zero(1, 0.0f), out(kN, -1.0f);
  Mem s(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float), zero.data());
  Mem a(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), host.data());
  Mem b(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), host.data());
  // Every buffer on the Fault Device first, so that what follows may go
  // straight to it.
  set_args(k, a.m, 1.0f, 0.0f);
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &kN, nullptr, 0, nullptr, nullptr));
  set_args(k, b.m, 1.0f, 0.0f);
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &kN, nullptr, 0, nullptr, nullptr));
  set_args(spin, s.m, cl_uint(1));
  CL_REQUIRE(clEnqueueNDRangeKernel(q, spin, 1, nullptr, &kOne, nullptr, 0, nullptr, nullptr));
  CL_REQUIRE(clFinish(q));

  Event long_one, bad, dependent, read, after;
  {
    FaultScope f("exec_fail -5\nkernel_filter doomed\nnot_sticky");
    set_args(spin, s.m, cl_uint(20'000'000));  // tens of milliseconds on PoCL
    CL_REQUIRE(clEnqueueNDRangeKernel(q, spin, 1, nullptr, &kOne, nullptr, 0, nullptr, &long_one));
    set_args(doomed, a.m);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, doomed, 1, nullptr, &kN, nullptr, 0, nullptr, &bad));
    set_args(k, a.m, 2.0f, 0.0f);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &kN, nullptr, 1, &bad.e, &dependent));
    CL_REQUIRE(clEnqueueReadBuffer(q, a, CL_FALSE, 0, kN * sizeof(float), out.data(), 1, &bad.e,
                                   &read));
    set_args(k, b.m, 3.0f, 1.0f);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &kN, nullptr, 0, nullptr, &after));
    // Still running when the rest was enqueued: the test saw the path it is about.
    CHECK(event_status(long_one) > CL_COMPLETE);
    CL_REQUIRE(clFinish(q));
  }
  CHECK(event_status(long_one) == CL_COMPLETE);
  CHECK(event_status(bad) == -5);
  CHECK(event_status(dependent) == -5);
  CHECK(event_status(read) == -5);
  CHECK(clWaitForEvents(1, &dependent.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  CHECK(event_status(after) == CL_COMPLETE);
  std::vector<float> got(kN, -1.0f);
  CL_REQUIRE(clEnqueueReadBuffer(q, b, CL_TRUE, 0, kN * sizeof(float), got.data(), 0, nullptr,
                                 nullptr));
  for (size_t i = 0; i < kN; ++i) REQUIRE(got[i] == 3.0f * host[i] + 1.0f);
}

TEST_CASE("build_fail fails the build on the Fault Device only, with the injected log") {
  cl_device_id fd = fault_device(), pd = pocl_device();
  Context ctx({fd, pd});
  const char* text = kScaleShift;
  cl_int err = CL_SUCCESS;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &text, nullptr, &err);
  CL_REQUIRE(err);
  {
    FaultScope f("build_fail");
    CHECK(clBuildProgram(prog, 0, nullptr, "", nullptr, nullptr) == CL_BUILD_PROGRAM_FAILURE);
  }
  auto status = [&](cl_device_id d) {
    cl_build_status s = CL_BUILD_NONE;
    CL_REQUIRE(clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_STATUS, sizeof s, &s, nullptr));
    return s;
  };
  auto log = [&](cl_device_id d) {
    size_t size = 0;
    CL_REQUIRE(clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size));
    std::string text(size, '\0');
    CL_REQUIRE(clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_LOG, size, text.data(), nullptr));
    return text;
  };
  CHECK(status(fd) == CL_BUILD_ERROR);
  CHECK(status(pd) == CL_BUILD_SUCCESS);
  CHECK(log(fd).find("fault vendor: injected build failure") != std::string::npos);
  CHECK(log(pd).find("fault vendor") == std::string::npos);

  // The PoCL build is usable.
  Kernel k(prog, "scale_shift");
  Queue qp(ctx, pd);
  check_scale_shift_works(ctx, qp, k);
  clReleaseProgram(prog);
}

TEST_CASE_METHOD(FaultBesidePocl,
                 "enqueue_fail -5 on the Fault Device fails the command's event with -5") {
  std::vector<float> host = ramp();
  Mem buf(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), host.data());
  set_args(k, buf.m, 2.0f, 0.5f);
  Event e, dependent;
  {
    FaultScope f("enqueue_fail -5");
    CL_REQUIRE(clEnqueueNDRangeKernel(qf, k, 1, nullptr, &kN, nullptr, 0, nullptr, &e));
    CHECK(clWaitForEvents(1, &e.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  }
  CHECK(event_status(e) == CL_OUT_OF_RESOURCES);
  CL_REQUIRE(clEnqueueNDRangeKernel(qp, k, 1, nullptr, &kN, nullptr, 1, &e.e, &dependent));
  CHECK(clWaitForEvents(1, &dependent.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  CHECK(event_status(dependent) == CL_OUT_OF_RESOURCES);
  check_scale_shift_works(ctx, qp, k);
  check_scale_shift_works(ctx, qf, k);
}

TEST_CASE_METHOD(LeasedOnFault,
                 "a launch without an event that the Fault Device refuses is counted once, and "
                 "its queue goes on") {
  {
    FaultScope f("enqueue_fail -5");
    // Refused as a record, then again on the event path, which fails the
    // (internal) event: one refusal to tell, not two.
    CL_REQUIRE(clEnqueueNDRangeKernel(qf, k, 1, nullptr, &kN, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(qf));
  }
  CHECK(refusals() == 1u);
  // Only the first launch ran: x = 2 * ramp + 0.5.
  std::vector<float> out(kN, -1.0f);
  CL_REQUIRE(clEnqueueReadBuffer(qf, buf, CL_TRUE, 0, kN * sizeof(float), out.data(), 0, nullptr,
                                 nullptr));
  for (size_t i = 0; i < kN; ++i) REQUIRE(out[i] == 2.0f * host[i] + 0.5f);
  check_scale_shift_works(ctx, qf, k);
}

TEST_CASE_METHOD(LeasedOnFault,
                 "a launch with an event that the Fault Device refuses, its buffer leased there, "
                 "fails that event alone, counted once") {
  // Goes the way records do, its event without a command object.
  Event refused, after;
  {
    FaultScope f("enqueue_fail -5");
    CL_REQUIRE(clEnqueueNDRangeKernel(qf, k, 1, nullptr, &kN, nullptr, 1, &first.e, &refused));
    CHECK(clWaitForEvents(1, &refused.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  }
  CHECK(event_status(refused) == CL_OUT_OF_RESOURCES);
  CHECK(refusals() == 1u);
  // In order behind the refused one, not naming it: it runs.
  CL_REQUIRE(clEnqueueNDRangeKernel(qf, k, 1, nullptr, &kN, nullptr, 0, nullptr, &after));
  CL_REQUIRE(clWaitForEvents(1, &after.e));
  // The first and the last launch ran: x = 2 * (2 * ramp + 0.5) + 0.5.
  std::vector<float> out(kN, -1.0f);
  CL_REQUIRE(clEnqueueReadBuffer(qf, buf, CL_TRUE, 0, kN * sizeof(float), out.data(), 0, nullptr,
                                 nullptr));
  for (size_t i = 0; i < kN; ++i) REQUIRE(out[i] == 2.0f * (2.0f * host[i] + 0.5f) + 0.5f);
  check_scale_shift_works(ctx, qf, k);
}

TEST_CASE_METHOD(FaultBesidePocl,
                 "device_lost on the Fault Device fails its kernels, PoCL carries on") {
  std::vector<float> host = ramp();
  Mem buf(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), host.data());
  set_args(k, buf.m, 2.0f, 0.5f);
  FaultScope f("device_lost");
  Event e;
  CL_REQUIRE(clEnqueueNDRangeKernel(qf, k, 1, nullptr, &kN, nullptr, 0, nullptr, &e));
  CHECK(clWaitForEvents(1, &e.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  CHECK(event_status(e) == CL_OUT_OF_RESOURCES);
  check_scale_shift_works(ctx, qp, k);
}

TEST_CASE_METHOD(FaultBesidePocl,
                 "slow_ms on the Fault Device delays, never breaks, a cross-device chain") {
  std::vector<float> host = ramp();
  std::vector<double> ref(host.begin(), host.end());
  Mem buf(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), host.data());
  FaultScope f("slow_ms 100");
  cl_event prev = nullptr;
  std::vector<Event> events(4);
  for (int s = 0; s < 4; ++s) {
    float a = 1.5f, b = float(s);
    set_args(k, buf.m, a, b);
    CL_REQUIRE(clEnqueueNDRangeKernel(s % 2 ? qp.q : qf.q, k, 1, nullptr, &kN, nullptr,
                                      prev ? 1 : 0, prev ? &prev : nullptr, &events[s]));
    prev = events[s];
    for (auto& r : ref) r = a * r + b;
  }
  CL_REQUIRE(clEnqueueReadBuffer(qp, buf, CL_TRUE, 0, kN * sizeof(float), host.data(), 1, &prev,
                                 nullptr));
  for (size_t i = 0; i < kN; ++i) REQUIRE(host[i] == Approx(ref[i]).epsilon(1e-5));
}

TEST_CASE_METHOD(FaultBesidePocl,
                 "commands enqueued without an event still run, on the Fault Device and PoCL "
                 "alike") {
  std::vector<float> host = ramp();
  std::vector<double> ref(host.begin(), host.end());
  Mem buf(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), host.data());
  for (cl_command_queue q : {qf.q, qp.q}) {
    for (int s = 0; s < 16; ++s) {
      set_args(k, buf.m, 1.0f, 1.0f);
      CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &kN, nullptr, 0, nullptr, nullptr));
      for (auto& r : ref) r += 1.0;
    }
    CL_REQUIRE(clFinish(q));
  }
  CL_REQUIRE(clEnqueueReadBuffer(qp, buf, CL_TRUE, 0, kN * sizeof(float), host.data(), 0,
                                 nullptr, nullptr));
  for (size_t i = 0; i < kN; ++i) REQUIRE(host[i] == float(ref[i]));
}

TEST_CASE("on a context queue, a device lost is left out and its commands run elsewhere") {
  cl_device_id fd = fault_device(), pd = pocl_device();
  const Policy eager("eager");
  Context ctx({fd, pd}, eager);
  Queue q{ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
  Program prog(ctx, kScaleShift);
  Kernel k(prog, "scale_shift");
  std::vector<float> host = ramp();
  const int commands = 12;
  std::vector<std::unique_ptr<Mem>> bufs;
  std::vector<Event> events(commands);
  FaultScope f("device_lost");
  for (int c = 0; c < commands; ++c) {
    bufs.push_back(std::make_unique<Mem>(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                         kN * sizeof(float), host.data()));
    set_args(k, bufs.back()->m, 3.0f, 1.0f);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &kN, nullptr, 0, nullptr, &events[c]));
  }
  CL_REQUIRE(clFinish(q));
  // Every command succeeded, on PoCL: the lost device was taken out of the
  // rotation after its first failure and the failed command placed again.
  for (int c = 0; c < commands; ++c) {
    CHECK(event_status(events[c]) == CL_COMPLETE);
    cl_device_id ran = nullptr;
    CL_REQUIRE(clGetEventInfo(events[c], CL_EVENT_DEVICE_PARASOL, sizeof ran, &ran, nullptr));
    CHECK(ran == pd);
    std::vector<float> out(kN);
    CL_REQUIRE(clEnqueueReadBuffer(q, *bufs[c], CL_TRUE, 0, kN * sizeof(float), out.data(), 0,
                                   nullptr, nullptr));
    for (size_t i = 0; i < kN; i += 97) REQUIRE(out[i] == 3.0f * host[i] + 1.0f);
  }
  // A device queue on the lost device still reports the failure: nothing to
  // place elsewhere when the application chose the device.
  Queue qf(ctx, fd);
  Event e;
  CL_REQUIRE(clEnqueueNDRangeKernel(qf, k, 1, nullptr, &kN, nullptr, 0, nullptr, &e));
  CHECK(clWaitForEvents(1, &e.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  CHECK(event_status(e) == CL_OUT_OF_RESOURCES);
}
