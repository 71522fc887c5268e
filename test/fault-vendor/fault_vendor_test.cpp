// The fault vendor on its own, through the ICD loader: without faults it is
// PoCL's first device under another name; each fault does what it says.
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "fault_control.h"
#include "support/parasol_test.h"

using namespace parasol_test;
using fault_test::FaultScope;

namespace {

const char* kSource =
    "__kernel void vadd(__global const float* a, __global const float* b, __global float* c) {\n"
    "  size_t i = get_global_id(0);\n"
    "  c[i] = a[i] + b[i];\n"
    "}\n"
    "__kernel void twice(__global float* x) { x[get_global_id(0)] *= 2.0f; }\n";

constexpr size_t kN = 4096;

cl_platform_id fault_platform() {
  cl_platform_id p = vendor_platform("Parasol Fault Vendor");
  REQUIRE(p != nullptr);
  return p;
}

cl_device_id fault_device() {
  cl_device_id d = nullptr;
  cl_uint n = 0;
  CL_REQUIRE(clGetDeviceIDs(fault_platform(), CL_DEVICE_TYPE_ALL, 1, &d, &n));
  REQUIRE(n == 1);
  return d;
}

// A context, queue, program and the vector-add buffers on the Fault Device.
struct Setup {
  cl_device_id dev = fault_device();
  Context ctx{{dev}};
  Queue q{ctx, dev};
  Program prog{ctx, kSource};
  Kernel vadd{prog, "vadd"};
  Kernel twice{prog, "twice"};
  std::vector<float> a = std::vector<float>(kN), b = std::vector<float>(kN);
  Mem ma{ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), fill(a, 1.0f)};
  Mem mb{ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, kN * sizeof(float), fill(b, 0.25f)};
  Mem mc{ctx, CL_MEM_READ_WRITE, kN * sizeof(float)};

  static float* fill(std::vector<float>& v, float scale) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = scale * float(i % 97);
    return v.data();
  }
  cl_int launch_vadd(cl_event* done) {
    set_args(vadd, ma.m, mb.m, mc.m);
    return clEnqueueNDRangeKernel(q, vadd, 1, nullptr, &kN, nullptr, 0, nullptr, done);
  }
  void check_sum() {
    std::vector<float> c(kN, -1.0f);
    CL_REQUIRE(clEnqueueReadBuffer(q, mc, CL_TRUE, 0, kN * sizeof(float), c.data(), 0, nullptr,
                                   nullptr));
    for (size_t i = 0; i < kN; ++i) REQUIRE(c[i] == a[i] + b[i]);
  }
};

#define INFO_OF(fn, T, obj, param)                                                         \
  [&] {                                                                                    \
    T v{};                                                                                 \
    CL_REQUIRE(fn(obj, param, sizeof v, &v, nullptr));                                     \
    return v;                                                                              \
  }()

}  // namespace

TEST_CASE("the fault vendor is one accelerator, PoCL's first device, under its own names") {
  cl_platform_id p = fault_platform();
  cl_device_id d = fault_device();
  CHECK(device_name(d) == "Fault Device");
  CHECK(INFO_OF(clGetDeviceInfo, cl_device_type, d, CL_DEVICE_TYPE) == CL_DEVICE_TYPE_ACCELERATOR);
  CHECK(INFO_OF(clGetDeviceInfo, cl_platform_id, d, CL_DEVICE_PLATFORM) == p);
  cl_uint n = 0;
  CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 0, nullptr, &n) == CL_DEVICE_NOT_FOUND);
  CL_REQUIRE(clGetDeviceIDs(p, CL_DEVICE_TYPE_ACCELERATOR, 0, nullptr, &n));
  CHECK(n == 1);

  // Same memory as PoCL's first device when no fault says otherwise.
  cl_platform_id pocl = vendor_platform("Portable Computing Language");
  REQUIRE(pocl);
  cl_device_id pd = nullptr;
  CL_REQUIRE(clGetDeviceIDs(pocl, CL_DEVICE_TYPE_ALL, 1, &pd, nullptr));
  CHECK(INFO_OF(clGetDeviceInfo, cl_ulong, d, CL_DEVICE_GLOBAL_MEM_SIZE) ==
        INFO_OF(clGetDeviceInfo, cl_ulong, pd, CL_DEVICE_GLOBAL_MEM_SIZE));
}

TEST_CASE("without faults a vector add on the Fault Device matches the CPU, and handles round-trip") {
  Setup s;
  Event done;
  CL_REQUIRE(s.launch_vadd(&done));
  CL_REQUIRE(clWaitForEvents(1, &done.e));
  CHECK(event_status(done) == CL_COMPLETE);
  s.check_sum();

  // Every info query that answers a handle answers the fault vendor's own.
  cl_platform_id p = fault_platform();
  CHECK(INFO_OF(clGetContextInfo, cl_device_id, s.ctx, CL_CONTEXT_DEVICES) == s.dev);
  CHECK(INFO_OF(clGetCommandQueueInfo, cl_context, s.q, CL_QUEUE_CONTEXT) == s.ctx.ctx);
  CHECK(INFO_OF(clGetCommandQueueInfo, cl_device_id, s.q, CL_QUEUE_DEVICE) == s.dev);
  CHECK(INFO_OF(clGetMemObjectInfo, cl_context, s.ma, CL_MEM_CONTEXT) == s.ctx.ctx);
  CHECK(INFO_OF(clGetProgramInfo, cl_context, s.prog, CL_PROGRAM_CONTEXT) == s.ctx.ctx);
  CHECK(INFO_OF(clGetProgramInfo, cl_device_id, s.prog, CL_PROGRAM_DEVICES) == s.dev);
  CHECK(INFO_OF(clGetKernelInfo, cl_program, s.vadd, CL_KERNEL_PROGRAM) == s.prog.prog);
  CHECK(INFO_OF(clGetKernelInfo, cl_context, s.vadd, CL_KERNEL_CONTEXT) == s.ctx.ctx);
  CHECK(INFO_OF(clGetEventInfo, cl_command_queue, done, CL_EVENT_COMMAND_QUEUE) == s.q.q);
  CHECK(INFO_OF(clGetEventInfo, cl_context, done, CL_EVENT_CONTEXT) == s.ctx.ctx);

  // Context properties name the fault vendor's platform.
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
  Context pctx({s.dev}, props);
  cl_context_properties back[3] = {};
  CL_REQUIRE(clGetContextInfo(pctx, CL_CONTEXT_PROPERTIES, sizeof back, back, nullptr));
  CHECK(back[0] == CL_CONTEXT_PLATFORM);
  CHECK(back[1] == (cl_context_properties)p);

  // Sub-buffers as kernel arguments, kernels listed by the program.
  cl_buffer_region half{kN / 2 * sizeof(float), kN / 2 * sizeof(float)};
  cl_int err = CL_SUCCESS;
  Mem sub(clCreateSubBuffer(s.mc, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &half, &err));
  CL_REQUIRE(err);
  CHECK(INFO_OF(clGetMemObjectInfo, cl_mem, sub, CL_MEM_ASSOCIATED_MEMOBJECT) == s.mc.m);
  set_args(s.twice, sub.m);
  size_t n2 = kN / 2;
  CL_REQUIRE(clEnqueueNDRangeKernel(s.q, s.twice, 1, nullptr, &n2, nullptr, 0, nullptr, nullptr));
  std::vector<float> c(kN);
  CL_REQUIRE(clEnqueueReadBuffer(s.q, s.mc, CL_TRUE, 0, kN * sizeof(float), c.data(), 0, nullptr,
                                 nullptr));
  for (size_t i = 0; i < kN; ++i)
    REQUIRE(c[i] == (i < kN / 2 ? 1.0f : 2.0f) * (s.a[i] + s.b[i]));

  cl_kernel ks[2] = {};
  cl_uint nk = 0;
  CL_REQUIRE(clCreateKernelsInProgram(s.prog, 2, ks, &nk));
  CHECK(nk == 2);
  for (cl_kernel k : ks) {
    CHECK(INFO_OF(clGetKernelInfo, cl_program, k, CL_KERNEL_PROGRAM) == s.prog.prog);
    clReleaseKernel(k);
  }

  // Event callbacks and user events get the fault vendor's handles.
  struct Seen { std::atomic<cl_event> e{nullptr}; std::atomic<cl_int> status{1}; } seen;
  Event user;
  user.e = clCreateUserEvent(s.ctx, &err);
  CL_REQUIRE(err);
  CL_REQUIRE(clSetEventCallback(user, CL_COMPLETE, [](cl_event e, cl_int st, void* data) {
    auto* sn = static_cast<Seen*>(data);
    sn->status = st;
    sn->e = e;
  }, &seen));
  Event after;
  set_args(s.twice, s.mc.m);
  CL_REQUIRE(clEnqueueNDRangeKernel(s.q, s.twice, 1, nullptr, &kN, nullptr, 1, &user.e, &after));
  CL_REQUIRE(clSetUserEventStatus(user, CL_COMPLETE));
  CL_REQUIRE(clWaitForEvents(1, &after.e));
  CHECK(seen.e.load() == user.e);
  CHECK(seen.status.load() == CL_COMPLETE);
}

TEST_CASE("build_fail: the build fails with the injected log, then works once cleared") {
  cl_device_id d = fault_device();
  Context ctx({d});
  const char* text = kSource;
  cl_int err = CL_SUCCESS;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &text, nullptr, &err);
  CL_REQUIRE(err);
  {
    FaultScope f("build_fail");
    static cl_program notified = nullptr;
    CHECK(clBuildProgram(prog, 1, &d, "", [](cl_program p, void*) { notified = p; }, nullptr) ==
          CL_BUILD_PROGRAM_FAILURE);
    CHECK(notified == prog);
    cl_build_status st = CL_BUILD_NONE;
    CL_REQUIRE(clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_STATUS, sizeof st, &st, nullptr));
    CHECK(st == CL_BUILD_ERROR);
    char log[256] = "";
    CL_REQUIRE(clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_LOG, sizeof log, log, nullptr));
    CHECK(std::string(log) == "fault vendor: injected build failure");
    cl_kernel k = clCreateKernel(prog, "vadd", &err);
    CHECK(err != CL_SUCCESS);
    if (k) clReleaseKernel(k);
  }
  CL_REQUIRE(clBuildProgram(prog, 1, &d, "", nullptr, nullptr));
  cl_build_status st = CL_BUILD_NONE;
  CL_REQUIRE(clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_STATUS, sizeof st, &st, nullptr));
  CHECK(st == CL_BUILD_SUCCESS);
  clReleaseProgram(prog);
}

TEST_CASE("enqueue_fail: kernel launches fail with the code, transfers still work") {
  Setup s;
  {
    FaultScope f("enqueue_fail -5");
    Event e;
    CHECK(s.launch_vadd(&e) == CL_OUT_OF_RESOURCES);
    CHECK(e.e == nullptr);
    // Buffer transfers are faulted only with transfer_bytes.
    std::vector<float> back(kN);
    CL_REQUIRE(clEnqueueReadBuffer(s.q, s.ma, CL_TRUE, 0, kN * sizeof(float), back.data(), 0,
                                   nullptr, nullptr));
    CHECK(back == s.a);
  }
  Event e;
  CL_REQUIRE(s.launch_vadd(&e));
  CL_REQUIRE(clWaitForEvents(1, &e.e));
  s.check_sum();
}

TEST_CASE("exec_fail: the kernel enqueues, its event ends with the status") {
  Setup s;
  FaultScope f("exec_fail -4");
  Event e;
  CL_REQUIRE(s.launch_vadd(&e));
  static std::atomic<cl_int> reported{1};
  static std::atomic<cl_event> reported_event{nullptr};
  CL_REQUIRE(clSetEventCallback(e, CL_COMPLETE, [](cl_event ev, cl_int st, void*) {
    reported_event = ev;
    reported = st;
  }, nullptr));
  CHECK(clWaitForEvents(1, &e.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  CHECK(event_status(e) == -4);
  CL_REQUIRE(clFinish(s.q));
  CHECK(reported.load() == -4);
  CHECK(reported_event.load() == e.e);
}

TEST_CASE("exec_fail is sticky: after a failed command, even one without an event, every later "
          "event of its queue fails, until the control changes") {
  Setup s;
  Queue other{s.ctx, s.dev};
  std::vector<float> part(25);
  const size_t bytes = part.size() * sizeof(float);
  set_args(s.twice, s.mc.m);
  {
    FaultScope f("exec_fail -4\nkernel_filter vadd");
    CL_REQUIRE(s.launch_vadd(nullptr));  // fails, with no event to say so
    Event marker;
    CL_REQUIRE(clEnqueueMarkerWithWaitList(s.q, 0, nullptr, &marker));
    CHECK(clWaitForEvents(1, &marker.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    CHECK(event_status(marker) == -4);

    // Every other kind of later event too: the 1.1 marker, a barrier, a
    // kernel the filter spares, a transfer.
    Event marker11, barrier, spared, read;
    CL_REQUIRE(clEnqueueMarker(s.q, &marker11));
    CL_REQUIRE(clEnqueueBarrierWithWaitList(s.q, 0, nullptr, &barrier));
    CL_REQUIRE(clEnqueueNDRangeKernel(s.q, s.twice, 1, nullptr, &kN, nullptr, 0, nullptr, &spared));
    CL_REQUIRE(clEnqueueReadBuffer(s.q, s.ma, CL_FALSE, 0, bytes, part.data(), 0, nullptr, &read));
    cl_event later[] = {marker11, barrier, spared, read};
    CHECK(clWaitForEvents(4, later) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    for (cl_event e : later) CHECK(event_status(e) == -4);
    // clFinish does not report it (as for a failed command with an event).
    CL_REQUIRE(clFinish(s.q));

    // Only that queue.
    Event elsewhere;
    CL_REQUIRE(clEnqueueMarkerWithWaitList(other, 0, nullptr, &elsewhere));
    CL_REQUIRE(clWaitForEvents(1, &elsewhere.e));
    CHECK(event_status(elsewhere) == CL_COMPLETE);

    // A new control, even the same text, starts afresh.
    fault_test::faults.set("exec_fail -4\nkernel_filter vadd");
    Event fresh;
    CL_REQUIRE(clEnqueueMarkerWithWaitList(s.q, 0, nullptr, &fresh));
    CL_REQUIRE(clWaitForEvents(1, &fresh.e));
    CHECK(event_status(fresh) == CL_COMPLETE);
    CL_REQUIRE(s.launch_vadd(nullptr));  // fails again: sticky again
    Event again;
    CL_REQUIRE(clEnqueueMarkerWithWaitList(s.q, 0, nullptr, &again));
    CHECK(clWaitForEvents(1, &again.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    CHECK(event_status(again) == -4);
  }
  // The control reset: a new marker succeeds, and so does the kernel.
  Event marker;
  CL_REQUIRE(clEnqueueMarkerWithWaitList(s.q, 0, nullptr, &marker));
  CL_REQUIRE(clWaitForEvents(1, &marker.e));
  CHECK(event_status(marker) == CL_COMPLETE);
  Event e;
  CL_REQUIRE(s.launch_vadd(&e));
  CL_REQUIRE(clWaitForEvents(1, &e.e));
  CHECK(event_status(e) == CL_COMPLETE);
  s.check_sum();
}

TEST_CASE("slow_ms: each launch takes at least that long") {
  Setup s;
  FaultScope f("slow_ms 300");
  auto t0 = std::chrono::steady_clock::now();
  Event e;
  CL_REQUIRE(s.launch_vadd(&e));
  CL_REQUIRE(clWaitForEvents(1, &e.e));
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now() - t0).count();
  CHECK(ms >= 300);
  s.check_sum();
}

TEST_CASE("device_lost: launches fail, the context is told, the device reports unavailable") {
  cl_device_id d = fault_device();
  static std::atomic<int> notified{0};
  cl_int err = CL_SUCCESS;
  struct NotifyingContext {
    cl_context ctx;
    ~NotifyingContext() { if (ctx) clReleaseContext(ctx); }
  } ctx{clCreateContext(nullptr, 1, &d, [](const char* msg, const void*, size_t, void*) {
    if (std::strstr(msg, "device lost")) ++notified;
  }, nullptr, &err)};
  CL_REQUIRE(err);
  Queue q(ctx.ctx, d);
  Program prog(ctx.ctx, kSource);
  Kernel k(prog, "twice");
  Mem m(ctx.ctx, CL_MEM_READ_WRITE, kN * sizeof(float));
  set_args(k, m.m);
  FaultScope f("device_lost");
  CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &kN, nullptr, 0, nullptr, nullptr) ==
        CL_OUT_OF_RESOURCES);
  CHECK(notified.load() == 1);
  CHECK(INFO_OF(clGetDeviceInfo, cl_bool, d, CL_DEVICE_AVAILABLE) == CL_FALSE);
  std::vector<float> zeros(kN, 0.0f);
  CL_REQUIRE(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, kN * sizeof(float), zeros.data(), 0, nullptr,
                                  nullptr));
}

TEST_CASE("global_mem_mb: memory sizes report that much") {
  cl_device_id d = fault_device();
  FaultScope f("global_mem_mb 64");
  CHECK(INFO_OF(clGetDeviceInfo, cl_ulong, d, CL_DEVICE_GLOBAL_MEM_SIZE) == 64ull << 20);
  CHECK(INFO_OF(clGetDeviceInfo, cl_ulong, d, CL_DEVICE_MAX_MEM_ALLOC_SIZE) == 64ull << 20);
}

TEST_CASE("kernel_filter: faults hit only kernels of that name") {
  Setup s;
  FaultScope f("enqueue_fail -5\nkernel_filter vadd");
  Event e;
  CHECK(s.launch_vadd(&e) == CL_OUT_OF_RESOURCES);
  set_args(s.twice, s.mc.m);
  CL_REQUIRE(clEnqueueNDRangeKernel(s.q, s.twice, 1, nullptr, &kN, nullptr, 0, nullptr, &e));
  CL_REQUIRE(clWaitForEvents(1, &e.e));
}

TEST_CASE("transfer_bytes: the faults hit transfers of exactly that size, not kernels") {
  Setup s;
  std::vector<float> part(25, 7.0f);  // 100 bytes: no buffer has that size
  const size_t bytes = part.size() * sizeof(float);
  {
    FaultScope f("enqueue_fail -5\ntransfer_bytes 100");
    Event e;
    CHECK(clEnqueueWriteBuffer(s.q, s.mc, CL_FALSE, 8, bytes, part.data(), 0, nullptr, &e) ==
          CL_OUT_OF_RESOURCES);
    CHECK(e.e == nullptr);
    CHECK(clEnqueueReadBuffer(s.q, s.ma, CL_TRUE, 0, bytes, part.data(), 0, nullptr, nullptr) ==
          CL_OUT_OF_RESOURCES);
    CHECK(clEnqueueCopyBuffer(s.q, s.ma, s.mc, 0, 0, bytes, 0, nullptr, nullptr) ==
          CL_OUT_OF_RESOURCES);
    // Other sizes and kernels go through.
    std::vector<float> one(1);
    CL_REQUIRE(clEnqueueReadBuffer(s.q, s.ma, CL_TRUE, 4, sizeof(float), one.data(), 0, nullptr,
                                   nullptr));
    CHECK(one[0] == s.a[1]);
    CL_REQUIRE(s.launch_vadd(&e));
    CL_REQUIRE(clWaitForEvents(1, &e.e));
    s.check_sum();
  }
  FaultScope f("exec_fail -4\ntransfer_bytes 100");
  Event w;
  CL_REQUIRE(clEnqueueWriteBuffer(s.q, s.mc, CL_FALSE, 8, bytes, part.data(), 0, nullptr, &w));
  CHECK(clWaitForEvents(1, &w.e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  CHECK(event_status(w) == -4);
}
