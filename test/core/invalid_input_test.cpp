// Bad input answered with the spec's error codes, never a crash: null,
// foreign, fake and released handles of every object type, wrong sizes,
// invalid flags, unset arguments, bad work sizes, out-of-range transfers,
// overlapping copies, invalid wait lists and invalid build options.
#include <functional>

#include "core/core_fixture.h"

using namespace parasol_test;

namespace {

struct Case {
  std::string what;
  std::function<cl_int()> call;
  cl_int expect;
};

void check_cases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    INFO(c.what);
    CHECK(c.call() == c.expect);
  }
}

// A handle-shaped struct that is no OpenCL object at all.
struct FakeHandle {
  const void* dispatch;
  char junk[64];
};

// Real objects of the PoCL platform itself, created without Parasol.
struct VendorObjects {
  cl_device_id dev = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue q = nullptr;
  cl_mem mem = nullptr;
  cl_program prog = nullptr;
  cl_kernel k = nullptr;
  cl_event ev = nullptr;
  explicit VendorObjects(cl_device_id parasol_dev) {
    dev = vendor_device(parasol_dev);
    cl_int err = CL_SUCCESS;
    ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
    CL_REQUIRE(err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    CL_REQUIRE(err);
    mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, nullptr, &err);
    CL_REQUIRE(err);
    const char* src = "__kernel void vendor_only_k(__global int* x) { x[0] = 1; }";
    prog = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
    CL_REQUIRE(err);
    CL_REQUIRE(clBuildProgram(prog, 1, &dev, nullptr, nullptr, nullptr));
    k = clCreateKernel(prog, "vendor_only_k", &err);
    CL_REQUIRE(err);
    ev = clCreateUserEvent(ctx, &err);
    CL_REQUIRE(err);
  }
  ~VendorObjects() {
    clSetUserEventStatus(ev, CL_COMPLETE);
    clReleaseEvent(ev);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseMemObject(mem);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
  }
};

}  // namespace

TEST_CASE("null, foreign, fake and released handles of every object type are refused with the spec's code") {
  MixedPair m;
  VendorObjects vendor(m.pocl);
  // Parasol's own entry points, reached without the loader (which would
  // dereference the handle to find a dispatch table).
  const cl_icd_dispatch& px = parasol_dispatch(m.ctx.ctx);
  FakeHandle fake_storage{&px, {}};  // even Parasol's dispatch pointer does not make it an object
  void* fake = &fake_storage;

  // Released handles: objects whose last API reference was dropped.
  cl_int err = CL_SUCCESS;
  cl_context dead_ctx = clCreateContext(nullptr, 1, &m.pocl, nullptr, nullptr, &err);
  CL_REQUIRE(err);
  cl_command_queue dead_q = clCreateCommandQueue(m.ctx, m.pocl, 0, &err);
  CL_REQUIRE(err);
  cl_mem dead_mem = clCreateBuffer(m.ctx, CL_MEM_READ_WRITE, 64, nullptr, &err);
  CL_REQUIRE(err);
  const char* src = kIntKernels;
  cl_program dead_prog = clCreateProgramWithSource(m.ctx, 1, &src, nullptr, &err);
  CL_REQUIRE(err);
  Program live_prog(m.ctx, kIntKernels);
  cl_kernel dead_k = clCreateKernel(live_prog, "add_const_int", &err);
  CL_REQUIRE(err);
  cl_event dead_ev = clCreateUserEvent(m.ctx, &err);
  CL_REQUIRE(err);
  CL_REQUIRE(clSetUserEventStatus(dead_ev, CL_COMPLETE));
  CL_REQUIRE(clReleaseContext(dead_ctx));
  CL_REQUIRE(clReleaseCommandQueue(dead_q));
  CL_REQUIRE(clReleaseMemObject(dead_mem));
  CL_REQUIRE(clReleaseProgram(dead_prog));
  CL_REQUIRE(clReleaseKernel(dead_k));
  CL_REQUIRE(clReleaseEvent(dead_ev));

  size_t size = 0;
  cl_uint count = 0;
  std::vector<Case> cases;
  auto per_kind = [&](const char* kind, std::vector<std::pair<const char*, void*>> handles,
                      std::function<cl_int(void*)> retain, std::function<cl_int(void*)> release,
                      std::function<cl_int(void*)> info, cl_int code) {
    for (auto& [label, h] : handles) {
      std::string base = std::string(kind) + " " + label;
      cases.push_back({base + ": retain", [=] { return retain(h); }, code});
      cases.push_back({base + ": release", [=] { return release(h); }, code});
      cases.push_back({base + ": info", [=] { return info(h); }, code});
    }
  };
  per_kind("context", {{"null", nullptr}, {"vendor's", vendor.ctx}, {"fake", fake}, {"released", dead_ctx}},
           [&](void* h) { return px.clRetainContext(cl_context(h)); },
           [&](void* h) { return px.clReleaseContext(cl_context(h)); },
           [&](void* h) { return px.clGetContextInfo(cl_context(h), CL_CONTEXT_NUM_DEVICES, sizeof count, &count, nullptr); },
           CL_INVALID_CONTEXT);
  per_kind("queue", {{"null", nullptr}, {"vendor's", vendor.q}, {"fake", fake}, {"released", dead_q}},
           [&](void* h) { return px.clRetainCommandQueue(cl_command_queue(h)); },
           [&](void* h) { return px.clReleaseCommandQueue(cl_command_queue(h)); },
           [&](void* h) { return px.clFinish(cl_command_queue(h)); },
           CL_INVALID_COMMAND_QUEUE);
  per_kind("buffer", {{"null", nullptr}, {"vendor's", vendor.mem}, {"fake", fake}, {"released", dead_mem}},
           [&](void* h) { return px.clRetainMemObject(cl_mem(h)); },
           [&](void* h) { return px.clReleaseMemObject(cl_mem(h)); },
           [&](void* h) { return px.clGetMemObjectInfo(cl_mem(h), CL_MEM_SIZE, sizeof size, &size, nullptr); },
           CL_INVALID_MEM_OBJECT);
  per_kind("program", {{"null", nullptr}, {"vendor's", vendor.prog}, {"fake", fake}, {"released", dead_prog}},
           [&](void* h) { return px.clRetainProgram(cl_program(h)); },
           [&](void* h) { return px.clReleaseProgram(cl_program(h)); },
           [&](void* h) { return px.clBuildProgram(cl_program(h), 0, nullptr, nullptr, nullptr, nullptr); },
           CL_INVALID_PROGRAM);
  per_kind("kernel", {{"null", nullptr}, {"vendor's", vendor.k}, {"fake", fake}, {"released", dead_k}},
           [&](void* h) { return px.clRetainKernel(cl_kernel(h)); },
           [&](void* h) { return px.clReleaseKernel(cl_kernel(h)); },
           [&](void* h) { int v = 0; return px.clSetKernelArg(cl_kernel(h), 1, sizeof v, &v); },
           CL_INVALID_KERNEL);
  per_kind("event", {{"null", nullptr}, {"vendor's", vendor.ev}, {"fake", fake}, {"released", dead_ev}},
           [&](void* h) { return px.clRetainEvent(cl_event(h)); },
           [&](void* h) { return px.clReleaseEvent(cl_event(h)); },
           [&](void* h) { cl_event e = cl_event(h); return px.clWaitForEvents(1, &e); },
           CL_INVALID_EVENT);
  // Devices are never released; null, vendor's own and fake ones.
  for (auto [label, h] : std::vector<std::pair<const char*, void*>>{{"null", nullptr}, {"vendor's", vendor.dev}, {"fake", fake}}) {
    cases.push_back({std::string("device ") + label, [&px, h] { cl_uint u; return px.clGetDeviceInfo(cl_device_id(h), CL_DEVICE_VENDOR_ID, sizeof u, &u, nullptr); }, CL_INVALID_DEVICE});
  }
  check_cases(cases);

  // Foreign handles in argument positions the loader does not dispatch on.
  Mem buf(m.ctx, CL_MEM_READ_WRITE, 64);
  Kernel k(live_prog, "add_const_int");
  char host[64];
  cl_device_id mixed[2] = {m.pocl, vendor.dev};
  cl_context_properties vendor_platform_prop[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(vendor_platform("Portable")), 0};
  check_cases({
      {"read from a vendor's buffer", [&] { return clEnqueueReadBuffer(m.qp, vendor.mem, CL_TRUE, 0, 64, host, 0, nullptr, nullptr); }, CL_INVALID_MEM_OBJECT},
      {"copy from a vendor's buffer", [&] { return clEnqueueCopyBuffer(m.qp, vendor.mem, buf, 0, 0, 64, 0, nullptr, nullptr); }, CL_INVALID_MEM_OBJECT},
      {"a vendor's buffer as kernel argument", [&] { return clSetKernelArg(k, 0, sizeof(cl_mem), &vendor.mem); }, CL_INVALID_MEM_OBJECT},
      {"a fake buffer as kernel argument", [&] { cl_mem f = cl_mem(fake); return clSetKernelArg(k, 0, sizeof f, &f); }, CL_INVALID_MEM_OBJECT},
      {"a vendor's event in a wait list", [&] { return clEnqueueReadBuffer(m.qp, buf, CL_TRUE, 0, 64, host, 1, &vendor.ev, nullptr); }, CL_INVALID_EVENT_WAIT_LIST},
      {"a context over a Parasol and a vendor device", [&] { cl_int e = 0; cl_context c = clCreateContext(nullptr, 2, mixed, nullptr, nullptr, &e); if (c) clReleaseContext(c); return e; }, CL_INVALID_DEVICE},
      {"a queue on a vendor's device", [&] { cl_int e = 0; cl_command_queue q = clCreateCommandQueue(m.ctx, vendor.dev, 0, &e); if (q) clReleaseCommandQueue(q); return e; }, CL_INVALID_DEVICE},
      {"a queue on a device outside the context", [&] { cl_int e = 0; cl_command_queue q = clCreateCommandQueue(m.ctx, pocl_devices().at(1), 0, &e); if (q) clReleaseCommandQueue(q); return e; }, CL_INVALID_DEVICE},
      {"CL_CONTEXT_PLATFORM naming a vendor platform", [&] { cl_int e = 0; cl_context c = px.clCreateContext(vendor_platform_prop, 1, &m.pocl, nullptr, nullptr, &e); if (c) clReleaseContext(c); return e; }, CL_INVALID_PLATFORM},
      {"clGetDeviceIDs on a vendor platform through Parasol", [&] { cl_uint n; return px.clGetDeviceIDs(vendor_platform("Portable"), CL_DEVICE_TYPE_ALL, 0, nullptr, &n); }, CL_INVALID_PLATFORM},
  });
}

TEST_CASE("invalid flags, sizes and values at creation are refused") {
  MixedPair m;
  int host[16] = {};
  auto buffer_err = [&](cl_mem_flags flags, size_t size, void* ptr) {
    cl_int e = CL_SUCCESS;
    cl_mem b = clCreateBuffer(m.ctx, flags, size, ptr, &e);
    if (b) clReleaseMemObject(b);
    if (e != CL_SUCCESS) CHECK(b == nullptr);
    return e;
  };
  cl_int err = CL_SUCCESS;
  Mem parent(m.ctx, CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY, 4096);
  auto sub_err = [&](cl_mem p, cl_mem_flags flags, size_t origin, size_t size, cl_buffer_create_type t = CL_BUFFER_CREATE_TYPE_REGION) {
    cl_int e = CL_SUCCESS;
    cl_buffer_region r{origin, size};
    cl_mem s = clCreateSubBuffer(p, flags, t, &r, &e);
    if (s) clReleaseMemObject(s);
    return e;
  };
  cl_buffer_region whole{0, 1024};
  Mem sub(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &whole, &err));
  CL_REQUIRE(err);
  Context pocl_only(std::vector<cl_device_id>{m.pocl});
  Mem pocl_buf(pocl_only, CL_MEM_READ_WRITE, 4096);
  auto queue_err = [&](cl_command_queue_properties p) {
    cl_int e = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(m.ctx, m.pocl, p, &e);
    if (q) clReleaseCommandQueue(q);
    return e;
  };
  auto context_err = [&](const cl_context_properties* props, cl_uint n, const cl_device_id* devs, void* user_data) {
    cl_int e = CL_SUCCESS;
    cl_context c = clCreateContext(props, n, devs, nullptr, user_data, &e);
    if (c) clReleaseContext(c);
    return e;
  };
  cl_context_properties bad_prop[] = {0x7fff, 1, 0};
  cl_context_properties twice[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(parasol_platform()),
                                   CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(parasol_platform()), 0};
  cl_context_properties bad_policy[] = {CL_CONTEXT_SCHEDULER_PARASOL, reinterpret_cast<cl_context_properties>("no-such-policy"), 0};
  int x = 0;
  check_cases({
      {"READ_ONLY | WRITE_ONLY", [&] { return buffer_err(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, nullptr); }, CL_INVALID_VALUE},
      {"unknown flag bits", [&] { return buffer_err(cl_mem_flags{1} << 40, 64, nullptr); }, CL_INVALID_VALUE},
      {"USE_HOST_PTR | COPY_HOST_PTR", [&] { return buffer_err(CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, host); }, CL_INVALID_VALUE},
      {"two HOST_* access flags", [&] { return buffer_err(CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 64, nullptr); }, CL_INVALID_VALUE},
      {"USE_HOST_PTR without a pointer", [&] { return buffer_err(CL_MEM_USE_HOST_PTR, 64, nullptr); }, CL_INVALID_HOST_PTR},
      {"COPY_HOST_PTR without a pointer", [&] { return buffer_err(CL_MEM_COPY_HOST_PTR, 64, nullptr); }, CL_INVALID_HOST_PTR},
      {"a pointer without USE_/COPY_HOST_PTR", [&] { return buffer_err(CL_MEM_READ_WRITE, 64, host); }, CL_INVALID_HOST_PTR},
      {"size 0", [&] { return buffer_err(CL_MEM_READ_WRITE, 0, nullptr); }, CL_INVALID_BUFFER_SIZE},
      {"size above every device's max alloc", [&] { return buffer_err(CL_MEM_READ_WRITE, ~size_t{0} / 2, nullptr); }, CL_INVALID_BUFFER_SIZE},
      {"sub-buffer beyond the parent", [&] { return sub_err(parent, 0, 4096 - 128, 256); }, CL_INVALID_VALUE},
      {"sub-buffer of size 0", [&] { return sub_err(parent, 0, 0, 0); }, CL_INVALID_BUFFER_SIZE},
      {"sub-buffer of a sub-buffer", [&] { return sub_err(sub, 0, 0, 128); }, CL_INVALID_MEM_OBJECT},
      {"sub-buffer READ_WRITE of a READ_ONLY parent", [&] { return sub_err(parent, CL_MEM_READ_WRITE, 0, 128); }, CL_INVALID_VALUE},
      {"sub-buffer HOST_WRITE_ONLY of a HOST_READ_ONLY parent", [&] { return sub_err(parent, CL_MEM_HOST_WRITE_ONLY, 0, 128); }, CL_INVALID_VALUE},
      {"sub-buffer with a host pointer flag", [&] { return sub_err(parent, CL_MEM_USE_HOST_PTR, 0, 128); }, CL_INVALID_VALUE},
      {"sub-buffer with a bad create type", [&] { return sub_err(parent, 0, 0, 128, 0x7777); }, CL_INVALID_VALUE},
      {"sub-buffer origin aligned for no device (PoCL aligns to 128 bytes)", [&] { return sub_err(pocl_buf, 0, 4, 128); }, CL_MISALIGNED_SUB_BUFFER_OFFSET},
      {"queue with unknown property bits", [&] { return queue_err(cl_command_queue_properties{1} << 7); }, CL_INVALID_VALUE},
      {"context without devices", [&] { return context_err(nullptr, 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"context with user_data but no callback", [&] { return context_err(nullptr, 1, &m.pocl, &x); }, CL_INVALID_VALUE},
      {"context with an unknown property", [&] { return context_err(bad_prop, 1, &m.pocl, nullptr); }, CL_INVALID_PROPERTY},
      {"context with a property given twice", [&] { return context_err(twice, 1, &m.pocl, nullptr); }, CL_INVALID_PROPERTY},
      {"context with an unknown scheduling policy", [&] { return context_err(bad_policy, 1, &m.pocl, nullptr); }, CL_INVALID_PROPERTY},
      {"context from an invalid device type", [&] { cl_int e = 0; cl_context c = clCreateContextFromType(nullptr, cl_device_type{1} << 20, nullptr, nullptr, &e); if (c) clReleaseContext(c); return e; }, CL_INVALID_DEVICE_TYPE},
      {"a too small info buffer", [&] { cl_uint small = 0; return clGetMemObjectInfo(parent, CL_MEM_SIZE, sizeof small, &small, nullptr); }, CL_INVALID_VALUE},
      {"an unknown mem info name", [&] { size_t s; return clGetMemObjectInfo(parent, 0x7777, sizeof s, &s, nullptr); }, CL_INVALID_VALUE},
      {"an unknown queue info name", [&] { size_t s; return clGetCommandQueueInfo(m.qp, 0x7777, sizeof s, &s, nullptr); }, CL_INVALID_VALUE},
      {"an unknown context info name", [&] { size_t s; return clGetContextInfo(m.ctx, 0x7777, sizeof s, &s, nullptr); }, CL_INVALID_VALUE},
      {"user event status positive", [&] { UserEvent u(m.ctx); return clSetUserEventStatus(u, CL_RUNNING); }, CL_INVALID_VALUE},
      {"event callback of an invalid type", [&] { UserEvent u(m.ctx); return clSetEventCallback(u, CL_QUEUED, [](cl_event, cl_int, void*) {}, nullptr); }, CL_INVALID_VALUE},
      {"event callback without a function", [&] { UserEvent u(m.ctx); return clSetEventCallback(u, CL_COMPLETE, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"clWaitForEvents with no events", [&] { return clWaitForEvents(0, nullptr); }, CL_INVALID_VALUE},
  });
}

TEST_CASE("kernel arguments, work sizes and program builds refuse bad input") {
  MixedPair m;
  const char* src =
      "__kernel void arg_kinds(__global int* g, int v, __local int* l) { g[0] = v + l[0]; }\n"
      "__kernel __attribute__((reqd_work_group_size(4, 1, 1))) void fixed_group(__global int* g) {\n"
      "  g[get_global_id(0)] = 1;\n"
      "}\n";
  Program prog(m.ctx, src);
  Kernel k(prog, "arg_kinds");
  Kernel fixed(prog, "fixed_group");
  Mem buf(m.ctx, CL_MEM_READ_WRITE, 1024);
  int v = 1;
  double wide = 1;
  const size_t n = 16, three[3] = {4, 4, 4};
  size_t zero = 0, five = 5, big = 1 << 20;
  cl_int err = CL_SUCCESS;
  const char* text = src;
  cl_program unbuilt = clCreateProgramWithSource(m.ctx, 1, &text, nullptr, &err);
  CL_REQUIRE(err);
  check_cases({
      {"arg index past the last", [&] { return clSetKernelArg(k, 3, sizeof v, &v); }, CL_INVALID_ARG_INDEX},
      {"buffer arg of the wrong size", [&] { return clSetKernelArg(k, 0, sizeof(int), &buf.m); }, CL_INVALID_ARG_SIZE},
      {"by-value arg of the wrong size", [&] { return clSetKernelArg(k, 1, sizeof wide, &wide); }, CL_INVALID_ARG_SIZE},
      {"by-value arg without a value", [&] { return clSetKernelArg(k, 1, sizeof v, nullptr); }, CL_INVALID_ARG_VALUE},
      {"__local arg with a value", [&] { return clSetKernelArg(k, 2, 16, &v); }, CL_INVALID_ARG_VALUE},
      {"__local arg of size 0", [&] { return clSetKernelArg(k, 2, 0, nullptr); }, CL_INVALID_ARG_SIZE},
      {"launch with unset arguments", [&] { return clEnqueueNDRangeKernel(m.qp, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr); }, CL_INVALID_KERNEL_ARGS},
      {"clEnqueueTask with unset arguments", [&] { return clEnqueueTask(m.qg, k, 0, nullptr, nullptr); }, CL_INVALID_KERNEL_ARGS},
  });
  set_args(k, buf.m, v);
  CL_REQUIRE(clSetKernelArg(k, 2, 16, nullptr));
  set_args(fixed, buf.m);
  auto launch = [&](cl_kernel kk, cl_command_queue q, cl_uint dim, const size_t* g, const size_t* l) {
    return clEnqueueNDRangeKernel(q, kk, dim, nullptr, g, l, 0, nullptr, nullptr);
  };
  check_cases({
      {"work_dim 0", [&] { return launch(k, m.qp, 0, &n, nullptr); }, CL_INVALID_WORK_DIMENSION},
      {"work_dim 4", [&] { return launch(k, m.qg, 4, three, nullptr); }, CL_INVALID_WORK_DIMENSION},
      {"local size not dividing global", [&] { return launch(k, m.qp, 1, &n, &five); }, CL_INVALID_WORK_GROUP_SIZE},
      {"local size 0", [&] { return launch(k, m.qg, 1, &n, &zero); }, CL_INVALID_WORK_GROUP_SIZE},
      {"local size above the device's maximum", [&] { return launch(k, m.qp, 1, &big, &big); }, CL_INVALID_WORK_GROUP_SIZE},
      {"local size differing from reqd_work_group_size", [&] { size_t l = 8; return launch(fixed, m.qp, 1, &n, &l); }, CL_INVALID_WORK_GROUP_SIZE},
      {"kernel of another context", [&] { Context other(std::vector<cl_device_id>{m.pocl}); Queue q(other, m.pocl); return launch(k, q, 1, &n, nullptr); }, CL_INVALID_CONTEXT},
      {"clCreateKernel before any build", [&] { cl_int e = 0; cl_kernel kk = clCreateKernel(unbuilt, "arg_kinds", &e); if (kk) clReleaseKernel(kk); return e; }, CL_INVALID_PROGRAM_EXECUTABLE},
      {"clCreateKernel with an unknown name", [&] { cl_int e = 0; cl_kernel kk = clCreateKernel(prog, "no_such_kernel", &e); if (kk) clReleaseKernel(kk); return e; }, CL_INVALID_KERNEL_NAME},
      {"clCreateKernel with a null name", [&] { cl_int e = 0; cl_kernel kk = clCreateKernel(prog, nullptr, &e); if (kk) clReleaseKernel(kk); return e; }, CL_INVALID_VALUE},
      {"clBuildProgram with user_data but no callback", [&] { return clBuildProgram(unbuilt, 0, nullptr, nullptr, nullptr, &v); }, CL_INVALID_VALUE},
      {"clBuildProgram for a device outside the program", [&] { cl_device_id d = pocl_devices().at(1); return clBuildProgram(unbuilt, 1, &d, nullptr, nullptr, nullptr); }, CL_INVALID_DEVICE},
      // PoCL's own answer to these options is CL_INVALID_BUILD_OPTIONS (Oclgrind only fails the build).
      {"clBuildProgram with invalid options", [&] { return clBuildProgram(unbuilt, 0, nullptr, "-cl-no-such-option-parasol", nullptr, nullptr); }, CL_INVALID_BUILD_OPTIONS},
      {"clCreateProgramWithSource without strings", [&] { cl_int e = 0; cl_program p = clCreateProgramWithSource(m.ctx, 0, nullptr, nullptr, &e); if (p) clReleaseProgram(p); return e; }, CL_INVALID_VALUE},
  });
  // The launches that were refused left nothing behind; a good one still works.
  size_t l4 = 4;
  CL_REQUIRE(launch(fixed, m.qg, 1, &n, &l4));
  CL_REQUIRE(clFinish(m.qg));
  CL_REQUIRE(clReleaseProgram(unbuilt));
}

TEST_CASE("out-of-range transfers, overlapping copies and invalid wait lists are refused") {
  MixedPair m;
  const size_t size = 1024;
  Mem a(m.ctx, CL_MEM_READ_WRITE, size), b(m.ctx, CL_MEM_READ_WRITE, size);
  Mem wo(m.ctx, CL_MEM_HOST_WRITE_ONLY, size), ro(m.ctx, CL_MEM_HOST_READ_ONLY, size);
  cl_int err = CL_SUCCESS;
  cl_buffer_region r1{0, 512}, r2{256, 512};
  Mem s1(clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, &r1, &err));
  CL_REQUIRE(err);
  Mem s2(clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err));
  CL_REQUIRE(err);
  std::vector<char> host(2 * size);
  Context other(std::vector<cl_device_id>{m.pocl});
  UserEvent foreign_ctx_event(other);
  cl_event null_event = nullptr;
  UserEvent ok_event(m.ctx);
  ok_event.set(CL_COMPLETE);
  const size_t origin[3] = {0, 0, 0}, reg[3] = {16, 16, 1}, far_origin[3] = {0, 0, 4};
  const size_t reg_big[3] = {16, 16, 5};
  int pat = 0;
  check_cases({
      {"read past the end", [&] { return clEnqueueReadBuffer(m.qp, a, CL_TRUE, 1000, 100, host.data(), 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"read with offset past the end", [&] { return clEnqueueReadBuffer(m.qp, a, CL_TRUE, 2000, 1, host.data(), 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"read of size 0", [&] { return clEnqueueReadBuffer(m.qp, a, CL_TRUE, 0, 0, host.data(), 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"read into a null pointer", [&] { return clEnqueueReadBuffer(m.qp, a, CL_TRUE, 0, 16, nullptr, 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"read of a sub-buffer past its window", [&] { return clEnqueueReadBuffer(m.qg, s2, CL_TRUE, 0, 513, host.data(), 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"write past the end", [&] { return clEnqueueWriteBuffer(m.qg, a, CL_TRUE, 1, size, host.data(), 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"copy past the destination's end", [&] { return clEnqueueCopyBuffer(m.qp, a, b, 0, 512, 1000, 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"fill with a 3-byte pattern", [&] { return clEnqueueFillBuffer(m.qp, a, &pat, 3, 0, 12, 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"fill at an offset not a multiple of the pattern", [&] { return clEnqueueFillBuffer(m.qp, a, &pat, 4, 2, 16, 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"fill past the end", [&] { return clEnqueueFillBuffer(m.qp, a, &pat, 4, 1020, 8, 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"rect read past the end", [&] { return clEnqueueReadBufferRect(m.qp, a, CL_TRUE, far_origin, origin, reg, 16, 256, 0, 0, host.data(), 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"rect write past the end", [&] { return clEnqueueWriteBufferRect(m.qp, a, CL_TRUE, origin, origin, reg_big, 16, 256, 0, 0, host.data(), 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"rect with a row pitch below the region", [&] { return clEnqueueReadBufferRect(m.qp, a, CL_TRUE, origin, origin, reg, 8, 0, 0, 0, host.data(), 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"rect copy past the end", [&] { return clEnqueueCopyBufferRect(m.qp, a, b, far_origin, origin, reg, 16, 256, 16, 256, 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"map past the end", [&] { cl_int e = 0; void* p = clEnqueueMapBuffer(m.qp, a, CL_TRUE, CL_MAP_READ, 512, 1024, 0, nullptr, nullptr, &e); if (p) clEnqueueUnmapMemObject(m.qp, a, p, 0, nullptr, nullptr); return e; }, CL_INVALID_VALUE},
      {"map with unknown flags", [&] { cl_int e = 0; void* p = clEnqueueMapBuffer(m.qp, a, CL_TRUE, cl_map_flags{1} << 9, 0, 16, 0, nullptr, nullptr, &e); if (p) clEnqueueUnmapMemObject(m.qp, a, p, 0, nullptr, nullptr); return e; }, CL_INVALID_VALUE},
      {"unmap of a pointer never mapped", [&] { return clEnqueueUnmapMemObject(m.qp, a, host.data(), 0, nullptr, nullptr); }, CL_INVALID_VALUE},
      {"host read of a HOST_WRITE_ONLY buffer", [&] { return clEnqueueReadBuffer(m.qp, wo, CL_TRUE, 0, 16, host.data(), 0, nullptr, nullptr); }, CL_INVALID_OPERATION},
      {"host write of a HOST_READ_ONLY buffer", [&] { return clEnqueueWriteBuffer(m.qp, ro, CL_TRUE, 0, 16, host.data(), 0, nullptr, nullptr); }, CL_INVALID_OPERATION},
      {"copy within one buffer, overlapping", [&] { return clEnqueueCopyBuffer(m.qp, a, a, 0, 100, 200, 0, nullptr, nullptr); }, CL_MEM_COPY_OVERLAP},
      {"copy between overlapping sub-buffers of one parent", [&] { return clEnqueueCopyBuffer(m.qp, s1, s2, 256, 0, 256, 0, nullptr, nullptr); }, CL_MEM_COPY_OVERLAP},
      {"copy from a sub-buffer into the overlapping part of its parent", [&] { return clEnqueueCopyBuffer(m.qg, s2, a, 0, 300, 100, 0, nullptr, nullptr); }, CL_MEM_COPY_OVERLAP},
      {"rect copy within one buffer, overlapping", [&] { const size_t o2[3] = {8, 8, 0}; return clEnqueueCopyBufferRect(m.qp, a, a, origin, o2, reg, 32, 0, 32, 0, 0, nullptr, nullptr); }, CL_MEM_COPY_OVERLAP},
      {"wait list count without a list", [&] { return clEnqueueReadBuffer(m.qp, a, CL_TRUE, 0, 16, host.data(), 1, nullptr, nullptr); }, CL_INVALID_EVENT_WAIT_LIST},
      {"wait list without a count", [&] { return clEnqueueReadBuffer(m.qp, a, CL_TRUE, 0, 16, host.data(), 0, ok_event.ptr(), nullptr); }, CL_INVALID_EVENT_WAIT_LIST},
      {"wait list with a null event", [&] { return clEnqueueFillBuffer(m.qg, a, &pat, 4, 0, 16, 1, &null_event, nullptr); }, CL_INVALID_EVENT_WAIT_LIST},
      {"wait list with an event of another context", [&] { return clEnqueueCopyBuffer(m.qp, a, b, 0, 0, 16, 1, foreign_ctx_event.ptr(), nullptr); }, CL_INVALID_CONTEXT},
      {"marker wait list with an event of another context", [&] { return clEnqueueMarkerWithWaitList(m.qp, 1, foreign_ctx_event.ptr(), nullptr); }, CL_INVALID_CONTEXT},
      {"clWaitForEvents across two contexts", [&] { cl_event two[2] = {ok_event.e, foreign_ctx_event.e}; return clWaitForEvents(2, two); }, CL_INVALID_CONTEXT},
      {"buffer of another context", [&] { Mem o(other, CL_MEM_READ_WRITE, 64); return clEnqueueReadBuffer(m.qp, o, CL_TRUE, 0, 16, host.data(), 0, nullptr, nullptr); }, CL_INVALID_CONTEXT},
  });
  // Nothing refused left a mapping or a pending command behind.
  cl_uint maps = 99;
  CL_REQUIRE(clGetMemObjectInfo(a, CL_MEM_MAP_COUNT, sizeof maps, &maps, nullptr));
  CHECK(maps == 0);
  CHECK(returns_within([&] { clFinish(m.qp); clFinish(m.qg); }, 20));
}
