// Info queries and reference counts of contexts, queues, buffers, programs,
// kernels and events; program binaries round-tripping through
// clCreateProgramWithBinary; kernel, argument and work-group info compared
// with the vendor's own answer for the same source.
#include <cstring>

#include "core/core_fixture.h"

using namespace parasol_test;

namespace {

template <typename T, typename F>
T info_of(F f) {
  T v{};
  size_t size = 0;
  CL_REQUIRE(f(sizeof v, &v, &size));
  CHECK(size == sizeof v);
  return v;
}

template <typename F>
std::string string_of(F f) {
  size_t size = 0;
  CL_REQUIRE(f(0, nullptr, &size));
  std::string s(size, '\0');
  CL_REQUIRE(f(size, s.data(), nullptr));
  REQUIRE(size >= 1);
  CHECK(s.back() == '\0');
  return s.c_str();
}

#define CTX_INFO(T, obj, p) \
  info_of<T>([&](size_t s, void* v, size_t* r) { return clGetContextInfo(obj, p, s, v, r); })
#define QUEUE_INFO(T, obj, p) \
  info_of<T>([&](size_t s, void* v, size_t* r) { return clGetCommandQueueInfo(obj, p, s, v, r); })
#define MEM_INFO(T, obj, p) \
  info_of<T>([&](size_t s, void* v, size_t* r) { return clGetMemObjectInfo(obj, p, s, v, r); })
#define PROG_INFO(T, obj, p) \
  info_of<T>([&](size_t s, void* v, size_t* r) { return clGetProgramInfo(obj, p, s, v, r); })
#define KERNEL_INFO(T, obj, p) \
  info_of<T>([&](size_t s, void* v, size_t* r) { return clGetKernelInfo(obj, p, s, v, r); })
#define EVENT_INFO(T, obj, p) \
  info_of<T>([&](size_t s, void* v, size_t* r) { return clGetEventInfo(obj, p, s, v, r); })

const char* kInfoKernels =
    "__kernel __attribute__((reqd_work_group_size(8, 1, 1)))\n"
    "void scaled_sum(__global const float* restrict in, __global float* out, float scale,\n"
    "                __local float* scratch, __constant int* table) {\n"
    "  size_t i = get_global_id(0);\n"
    "  scratch[get_local_id(0)] = in[i] * scale + (float)table[0];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[i] = scratch[get_local_id(0)];\n"
    "}\n"
    "__kernel void second_kernel(__global int* x) { x[get_global_id(0)] = 2; }\n";

}  // namespace

TEST_CASE("context, queue, buffer and event info and reference counts") {
  MixedPair m;
  // Context.
  CHECK(CTX_INFO(cl_uint, m.ctx, CL_CONTEXT_NUM_DEVICES) == 2);
  cl_device_id devs[2] = {};
  CL_REQUIRE(clGetContextInfo(m.ctx, CL_CONTEXT_DEVICES, sizeof devs, devs, nullptr));
  CHECK(devs[0] == m.pocl);
  CHECK(devs[1] == m.grind);
  CHECK(CTX_INFO(cl_uint, m.ctx, CL_CONTEXT_REFERENCE_COUNT) == 1);
  CL_REQUIRE(clRetainContext(m.ctx));
  CHECK(CTX_INFO(cl_uint, m.ctx, CL_CONTEXT_REFERENCE_COUNT) == 2);
  CL_REQUIRE(clReleaseContext(m.ctx));
  CHECK(CTX_INFO(cl_uint, m.ctx, CL_CONTEXT_REFERENCE_COUNT) == 1);
  size_t props_size = 99;
  CL_REQUIRE(clGetContextInfo(m.ctx, CL_CONTEXT_PROPERTIES, 0, nullptr, &props_size));
  CHECK(props_size == 0);  // created without properties
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   reinterpret_cast<cl_context_properties>(parasol_platform()), 0};
  Context with_props(std::vector<cl_device_id>{m.pocl}, props);
  cl_context_properties back[3] = {};
  CL_REQUIRE(clGetContextInfo(with_props, CL_CONTEXT_PROPERTIES, sizeof back, back, &props_size));
  CHECK(props_size == sizeof props);
  CHECK(std::memcmp(back, props, sizeof props) == 0);

  // Queue.
  Queue q(m.ctx, m.grind, CL_QUEUE_PROFILING_ENABLE);
  CHECK(QUEUE_INFO(cl_context, q, CL_QUEUE_CONTEXT) == m.ctx.ctx);
  CHECK(QUEUE_INFO(cl_device_id, q, CL_QUEUE_DEVICE) == m.grind);
  CHECK(QUEUE_INFO(cl_command_queue_properties, q, CL_QUEUE_PROPERTIES) == CL_QUEUE_PROFILING_ENABLE);
  CHECK(QUEUE_INFO(cl_uint, q, CL_QUEUE_REFERENCE_COUNT) == 1);
  CL_REQUIRE(clRetainCommandQueue(q));
  CHECK(QUEUE_INFO(cl_uint, q, CL_QUEUE_REFERENCE_COUNT) == 2);
  CL_REQUIRE(clReleaseCommandQueue(q));
  CHECK(CTX_INFO(cl_uint, m.ctx, CL_CONTEXT_REFERENCE_COUNT) == 1);  // internal refs do not show

  // Buffer and sub-buffer.
  std::vector<int> host(256, 1);
  Mem buf(m.ctx, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, host.size() * sizeof(int), host.data());
  CHECK(MEM_INFO(cl_mem_object_type, buf, CL_MEM_TYPE) == CL_MEM_OBJECT_BUFFER);
  CHECK(MEM_INFO(cl_mem_flags, buf, CL_MEM_FLAGS) == (CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR));
  CHECK(MEM_INFO(size_t, buf, CL_MEM_SIZE) == host.size() * sizeof(int));
  CHECK(MEM_INFO(void*, buf, CL_MEM_HOST_PTR) == host.data());
  CHECK(MEM_INFO(cl_uint, buf, CL_MEM_MAP_COUNT) == 0);
  CHECK(MEM_INFO(cl_context, buf, CL_MEM_CONTEXT) == m.ctx.ctx);
  CHECK(MEM_INFO(cl_mem, buf, CL_MEM_ASSOCIATED_MEMOBJECT) == nullptr);
  CHECK(MEM_INFO(size_t, buf, CL_MEM_OFFSET) == 0);
  cl_buffer_region r{512, 256};
  cl_int err = CL_SUCCESS;
  Mem sub(clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err));
  CL_REQUIRE(err);
  CHECK(MEM_INFO(cl_mem, sub, CL_MEM_ASSOCIATED_MEMOBJECT) == buf.m);
  CHECK(MEM_INFO(size_t, sub, CL_MEM_OFFSET) == 512);
  CHECK(MEM_INFO(size_t, sub, CL_MEM_SIZE) == 256);
  CHECK(MEM_INFO(void*, sub, CL_MEM_HOST_PTR) == reinterpret_cast<char*>(host.data()) + 512);
  CHECK((MEM_INFO(cl_mem_flags, sub, CL_MEM_FLAGS) & CL_MEM_READ_ONLY) != 0);
  CHECK(MEM_INFO(cl_uint, buf, CL_MEM_REFERENCE_COUNT) == 1);  // the sub-buffer's hold is internal
  CL_REQUIRE(clRetainMemObject(buf));
  CHECK(MEM_INFO(cl_uint, buf, CL_MEM_REFERENCE_COUNT) == 2);
  CL_REQUIRE(clReleaseMemObject(buf));

  // Events.
  Event e;
  Mem out(m.ctx, CL_MEM_READ_WRITE, 64);
  int v = 4;
  CL_REQUIRE(clEnqueueFillBuffer(q, out, &v, sizeof v, 0, 64, 0, nullptr, &e));
  CHECK(EVENT_INFO(cl_command_queue, e, CL_EVENT_COMMAND_QUEUE) == q.q);
  CHECK(EVENT_INFO(cl_context, e, CL_EVENT_CONTEXT) == m.ctx.ctx);
  CHECK(EVENT_INFO(cl_command_type, e, CL_EVENT_COMMAND_TYPE) == CL_COMMAND_FILL_BUFFER);
  CHECK(EVENT_INFO(cl_uint, e, CL_EVENT_REFERENCE_COUNT) == 1);
  CL_REQUIRE(clRetainEvent(e));
  CHECK(EVENT_INFO(cl_uint, e, CL_EVENT_REFERENCE_COUNT) == 2);
  CL_REQUIRE(clReleaseEvent(e));
  CHECK(wait_bounded(e) == CL_COMPLETE);
  CHECK(EVENT_INFO(cl_int, e, CL_EVENT_COMMAND_EXECUTION_STATUS) == CL_COMPLETE);
  UserEvent user(m.ctx);
  CHECK(EVENT_INFO(cl_command_queue, user, CL_EVENT_COMMAND_QUEUE) == nullptr);
  CHECK(EVENT_INFO(cl_command_type, user, CL_EVENT_COMMAND_TYPE) == CL_COMMAND_USER);
  CHECK(EVENT_INFO(cl_int, user, CL_EVENT_COMMAND_EXECUTION_STATUS) == CL_SUBMITTED);
}

TEST_CASE("program info: source, devices, kernel names and per-device build info") {
  MixedPair m;
  Program prog(m.ctx, kInfoKernels, "-DUNUSED_OPTION=1");
  CHECK(PROG_INFO(cl_context, prog, CL_PROGRAM_CONTEXT) == m.ctx.ctx);
  CHECK(PROG_INFO(cl_uint, prog, CL_PROGRAM_NUM_DEVICES) == 2);
  CHECK(PROG_INFO(cl_uint, prog, CL_PROGRAM_REFERENCE_COUNT) == 1);
  cl_device_id devs[2] = {};
  CL_REQUIRE(clGetProgramInfo(prog, CL_PROGRAM_DEVICES, sizeof devs, devs, nullptr));
  CHECK(devs[0] == m.pocl);
  CHECK(devs[1] == m.grind);
  CHECK(string_of([&](size_t s, void* v, size_t* r) {
          return clGetProgramInfo(prog, CL_PROGRAM_SOURCE, s, v, r);
        }) == kInfoKernels);
  CHECK(PROG_INFO(size_t, prog, CL_PROGRAM_NUM_KERNELS) == 2);
  std::string names = string_of([&](size_t s, void* v, size_t* r) {
    return clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, s, v, r);
  });
  CHECK((names == "scaled_sum;second_kernel" || names == "second_kernel;scaled_sum"));
  for (cl_device_id d : {m.pocl, m.grind}) {
    cl_build_status s = CL_BUILD_NONE;
    CL_REQUIRE(clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_STATUS, sizeof s, &s, nullptr));
    CHECK(s == CL_BUILD_SUCCESS);
    CHECK(string_of([&](size_t sz, void* v, size_t* r) {
            return clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_OPTIONS, sz, v, r);
          }) == "-DUNUSED_OPTION=1");
    cl_program_binary_type bt = 0;
    CL_REQUIRE(clGetProgramBuildInfo(prog, d, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, nullptr));
    CHECK(bt == CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  }
  // clCreateKernelsInProgram: count, then all of them.
  cl_uint n = 0;
  CL_REQUIRE(clCreateKernelsInProgram(prog, 0, nullptr, &n));
  CHECK(n == 2);
  cl_kernel ks[2] = {};
  CHECK(clCreateKernelsInProgram(prog, 1, ks, nullptr) == CL_INVALID_VALUE);
  CL_REQUIRE(clCreateKernelsInProgram(prog, 2, ks, &n));
  std::vector<std::string> got;
  for (cl_kernel k : ks) {
    got.push_back(string_of([&](size_t s, void* v, size_t* r) {
      return clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, s, v, r);
    }));
  }
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<std::string>{"scaled_sum", "second_kernel"});
  CHECK(PROG_INFO(cl_uint, prog, CL_PROGRAM_REFERENCE_COUNT) == 1);
  // Kernels attached: rebuilding is refused.
  CHECK(clBuildProgram(prog, 0, nullptr, nullptr, nullptr, nullptr) == CL_INVALID_OPERATION);
  for (cl_kernel k : ks) CL_REQUIRE(clReleaseKernel(k));
}

TEST_CASE("program binaries from PoCL round-trip through clCreateProgramWithBinary and run") {
  auto pocl = pocl_devices();
  REQUIRE(pocl.size() >= 1);
  Context ctx(std::vector<cl_device_id>{pocl[0]});
  Program prog(ctx, kIntKernels);
  size_t size = 0;
  CL_REQUIRE(clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr));
  REQUIRE(size > 0);
  std::vector<unsigned char> bin(size);
  unsigned char* ptrs[1] = {bin.data()};
  CL_REQUIRE(clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof ptrs, ptrs, nullptr));
  // The vendor's own binary for the same source has the same size class (non-empty).
  const unsigned char* bins[1] = {bin.data()};
  cl_int status = -1, err = CL_SUCCESS;
  cl_program from_bin = clCreateProgramWithBinary(ctx, 1, &pocl[0], &size, bins, &status, &err);
  CL_REQUIRE(err);
  CHECK(status == CL_SUCCESS);
  CL_REQUIRE(clBuildProgram(from_bin, 0, nullptr, nullptr, nullptr, nullptr));
  cl_program_binary_type bt = 0;
  CL_REQUIRE(clGetProgramBuildInfo(from_bin, pocl[0], CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, nullptr));
  CHECK(bt == CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  {
    Kernel k(from_bin, "iota_from");
    Queue q(ctx, pocl[0]);
    const size_t n = 100;
    Mem buf(ctx, CL_MEM_READ_WRITE, n * sizeof(int));
    set_args(k, buf.m, 9);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CHECK(read_ints(q, buf, n) == iota_vector(n, 9));
  }
  // Garbage is refused with a per-binary status.
  std::vector<unsigned char> junk(64, 0x42);
  const unsigned char* jb[1] = {junk.data()};
  size_t jsize = junk.size();
  status = CL_SUCCESS;
  CHECK(clCreateProgramWithBinary(ctx, 1, &pocl[0], &jsize, jb, &status, &err) == nullptr);
  CHECK(err == CL_INVALID_BINARY);
  CHECK(status == CL_INVALID_BINARY);
  CL_REQUIRE(clReleaseProgram(from_bin));
}

TEST_CASE("kernel info, argument info and per-device work-group info match the vendors' own answers") {
  MixedPair m;
  Program prog(m.ctx, kInfoKernels);
  Kernel k(prog, "scaled_sum");
  CHECK(string_of([&](size_t s, void* v, size_t* r) {
          return clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, s, v, r);
        }) == "scaled_sum");
  CHECK(KERNEL_INFO(cl_uint, k, CL_KERNEL_NUM_ARGS) == 5);
  CHECK(KERNEL_INFO(cl_context, k, CL_KERNEL_CONTEXT) == m.ctx.ctx);
  CHECK(KERNEL_INFO(cl_program, k, CL_KERNEL_PROGRAM) == prog.prog);
  CHECK(KERNEL_INFO(cl_uint, k, CL_KERNEL_REFERENCE_COUNT) == 1);
  CL_REQUIRE(clRetainKernel(k));
  CHECK(KERNEL_INFO(cl_uint, k, CL_KERNEL_REFERENCE_COUNT) == 2);
  CL_REQUIRE(clReleaseKernel(k));
  CHECK(PROG_INFO(cl_uint, prog, CL_PROGRAM_REFERENCE_COUNT) == 1);

  struct Arg { cl_kernel_arg_address_qualifier addr; const char* type; const char* name; cl_kernel_arg_type_qualifier tq; };
  const Arg expect[5] = {
      {CL_KERNEL_ARG_ADDRESS_GLOBAL, "float*", "in", CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT},
      {CL_KERNEL_ARG_ADDRESS_GLOBAL, "float*", "out", CL_KERNEL_ARG_TYPE_NONE},
      {CL_KERNEL_ARG_ADDRESS_PRIVATE, "float", "scale", CL_KERNEL_ARG_TYPE_NONE},
      {CL_KERNEL_ARG_ADDRESS_LOCAL, "float*", "scratch", CL_KERNEL_ARG_TYPE_NONE},
      // PoCL and Oclgrind both mark __constant pointers const.
      {CL_KERNEL_ARG_ADDRESS_CONSTANT, "int*", "table", CL_KERNEL_ARG_TYPE_CONST}};
  for (cl_uint i = 0; i < 5; ++i) {
    INFO("argument " << i);
    cl_kernel_arg_address_qualifier a = 0;
    CL_REQUIRE(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof a, &a, nullptr));
    CHECK(a == expect[i].addr);
    cl_kernel_arg_access_qualifier acc = 0;
    CL_REQUIRE(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof acc, &acc, nullptr));
    CHECK(acc == CL_KERNEL_ARG_ACCESS_NONE);
    cl_kernel_arg_type_qualifier tq = 0;
    CL_REQUIRE(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, nullptr));
    CHECK(tq == expect[i].tq);
    CHECK(string_of([&](size_t s, void* v, size_t* r) {
            return clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, s, v, r);
          }) == expect[i].type);
    CHECK(string_of([&](size_t s, void* v, size_t* r) {
            return clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, s, v, r);
          }) == expect[i].name);
  }
  cl_uint dummy = 0;
  CHECK(clGetKernelArgInfo(k, 5, CL_KERNEL_ARG_NAME, sizeof dummy, &dummy, nullptr) == CL_INVALID_ARG_INDEX);

  // Work-group info per device against the vendor's own build of the same source.
  for (cl_device_id d : {m.pocl, m.grind}) {
    INFO("device " << vendor_of(d));
    cl_device_id vd = vendor_device(d);
    cl_int err = CL_SUCCESS;
    cl_context vc = clCreateContext(nullptr, 1, &vd, nullptr, nullptr, &err);
    CL_REQUIRE(err);
    cl_program vp = clCreateProgramWithSource(vc, 1, &kInfoKernels, nullptr, &err);
    CL_REQUIRE(err);
    CL_REQUIRE(clBuildProgram(vp, 1, &vd, "-cl-kernel-arg-info", nullptr, nullptr));
    cl_kernel vk = clCreateKernel(vp, "scaled_sum", &err);
    CL_REQUIRE(err);
    for (cl_uint i = 0; i < 5; ++i) {
      cl_kernel_arg_type_qualifier tq = 0, vtq = 0;
      CL_REQUIRE(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, nullptr));
      CL_REQUIRE(clGetKernelArgInfo(vk, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof vtq, &vtq, nullptr));
      CHECK(tq == vtq);
    }
    for (cl_kernel_work_group_info p : {CL_KERNEL_WORK_GROUP_SIZE, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                        CL_KERNEL_LOCAL_MEM_SIZE,
                                        CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                        CL_KERNEL_PRIVATE_MEM_SIZE}) {
      INFO("param 0x" << std::hex << p);
      unsigned char mine[64] = {}, theirs[64] = {};
      size_t ms = 0, ts = 0;
      CL_REQUIRE(clGetKernelWorkGroupInfo(k, d, p, sizeof mine, mine, &ms));
      CL_REQUIRE(clGetKernelWorkGroupInfo(vk, vd, p, sizeof theirs, theirs, &ts));
      CHECK(ms == ts);
      CHECK(std::memcmp(mine, theirs, ms) == 0);
    }
    size_t reqd[3] = {};
    CL_REQUIRE(clGetKernelWorkGroupInfo(k, d, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof reqd, reqd, nullptr));
    CHECK((reqd[0] == 8 && reqd[1] == 1 && reqd[2] == 1));
    clReleaseKernel(vk);
    clReleaseProgram(vp);
    clReleaseContext(vc);
  }
  // Null device with a two-device context is ambiguous.
  size_t wg = 0;
  CHECK(clGetKernelWorkGroupInfo(k, nullptr, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr) ==
        CL_INVALID_DEVICE);
  auto other = pocl_devices().at(1);  // not in the context
  CHECK(clGetKernelWorkGroupInfo(k, other, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr) ==
        CL_INVALID_DEVICE);

  // And it runs, with its local and constant arguments, on both vendors.
  const size_t n = 64, local = 8;
  std::vector<float> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = 0.5f * float(i);
  int table[1] = {3};
  Mem bin(m.ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, n * sizeof(float), in.data());
  Mem bout(m.ctx, CL_MEM_READ_WRITE, n * sizeof(float));
  Mem btab(m.ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, sizeof table, table);
  float scale = 4.0f;
  CL_REQUIRE(clSetKernelArg(k, 0, sizeof(cl_mem), &bin.m));
  CL_REQUIRE(clSetKernelArg(k, 1, sizeof(cl_mem), &bout.m));
  CL_REQUIRE(clSetKernelArg(k, 2, sizeof scale, &scale));
  CL_REQUIRE(clSetKernelArg(k, 3, local * sizeof(float), nullptr));
  CL_REQUIRE(clSetKernelArg(k, 4, sizeof(cl_mem), &btab.m));
  for (cl_command_queue q : {m.qp.q, m.qg.q}) {
    float zero = 0;
    CL_REQUIRE(clEnqueueFillBuffer(q, bout, &zero, sizeof zero, 0, n * sizeof(float), 0, nullptr, nullptr));
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &local, 0, nullptr, nullptr));
    std::vector<float> out(n);
    CL_REQUIRE(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, n * sizeof(float), out.data(), 0, nullptr, nullptr));
    for (size_t i = 0; i < n; ++i) REQUIRE(out[i] == in[i] * scale + 3.0f);
  }
}

TEST_CASE("CL_KERNEL_LOCAL_MEM_SIZE counts the __local arguments as set now on every device") {
  const char* src =
      "__kernel void with_locals(__local int* a, __global int* out, __local int* b) {\n"
      "  __local int fixed[16];\n"
      "  size_t i = get_local_id(0);\n"
      "  fixed[i] = (int)i; a[i] = 1; b[i] = 2;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] = fixed[15 - i] + a[i] + b[i];\n"
      "}\n";
  for (cl_device_id d : devices()) {
    INFO("device " << device_name(d));
    Context ctx({d});
    Program prog(ctx, src);
    Kernel k(prog, "with_locals");
    auto local_size = [&] {
      cl_ulong bytes = 0;
      CL_REQUIRE(clGetKernelWorkGroupInfo(k, d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof bytes, &bytes,
                                          nullptr));
      return bytes;
    };
    const cl_ulong fixed = local_size();  // no __local argument set: each counts 0
    CHECK(fixed >= 16 * sizeof(cl_int));
    // Before any launch, and as the sizes change.
    CL_REQUIRE(clSetKernelArg(k, 0, 4096, nullptr));
    CHECK(local_size() >= fixed + 4096);
    CL_REQUIRE(clSetKernelArg(k, 2, 8192, nullptr));
    CHECK(local_size() >= fixed + 4096 + 8192);
    // After a launch, smaller sizes count as set.
    Queue q(ctx, d);
    Mem out(ctx, CL_MEM_READ_WRITE, 16 * sizeof(cl_int));
    CL_REQUIRE(clSetKernelArg(k, 1, sizeof(cl_mem), &out.m));
    const size_t n = 16;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &n, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(q));
    CL_REQUIRE(clSetKernelArg(k, 0, 64, nullptr));
    CL_REQUIRE(clSetKernelArg(k, 2, 64, nullptr));
    const cl_ulong small = local_size();
    CHECK(small >= fixed + 128);
    CHECK(small < fixed + 4096);
    // And the kernel still runs with them.
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &n, 0, nullptr, nullptr));
    std::vector<int> got = read_ints(q, out, n);
    for (size_t i = 0; i < n; ++i) CHECK(got[i] == int(15 - i) + 3);
  }
}
