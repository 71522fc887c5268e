// The OpenCL API on a native-only context: programs and kernels without any
// vendor behind them (names, argument checks, work-group limits), launches
// with offsets, sub-buffers, struct arguments, __constant data, clEnqueueTask,
// and profiling times.
#include <cstring>

#include "native/native_fixture.h"

using namespace parasol_test;

namespace {

const char* kKernels = R"CLC(
typedef struct { int a; float b; short c[3]; } Params;
__kernel void with_struct(__global float* out, Params p, __constant float* table) {
  size_t i = get_global_id(0);
  out[i] = p.a * table[i % 4] + p.b + p.c[i % 3] + (float)get_global_offset(0);
}
__kernel void one(__global int* out) { out[0] = 42; }
__kernel __attribute__((reqd_work_group_size(4, 1, 1))) void fixed(__global int* out) {
  out[get_global_id(0)] = (int)get_local_size(0);
}
)CLC";

struct Params {
  cl_int a;
  cl_float b;
  cl_short c[3];
};

}  // namespace

TEST_CASE("a native-only program lists its kernels and creates them all") {
  Context ctx(native_devices());
  Program prog(ctx, kKernels);
  size_t size = 0;
  CL_REQUIRE(clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size));
  std::string names(size, '\0');
  CL_REQUIRE(clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr));
  CHECK(std::string(names.c_str()) == "with_struct;one;fixed");
  size_t count = 0;
  CL_REQUIRE(clGetProgramInfo(prog, CL_PROGRAM_NUM_KERNELS, sizeof count, &count, nullptr));
  CHECK(count == 3);
  cl_kernel ks[3] = {};
  cl_uint n = 0;
  CL_REQUIRE(clCreateKernelsInProgram(prog, 3, ks, &n));
  CHECK(n == 3);
  for (cl_kernel k : ks) CL_REQUIRE(clReleaseKernel(k));
  cl_int err = CL_SUCCESS;
  CHECK(clCreateKernel(prog, "missing", &err) == nullptr);
  CHECK(err == CL_INVALID_KERNEL_NAME);
}

TEST_CASE("native kernels check argument sizes, work-group limits and reqd_work_group_size") {
  Context ctx(native_devices());
  cl_device_id dev = native_devices()[0];
  Queue q(ctx, dev);
  Program prog(ctx, kKernels);
  Kernel s(prog, "with_struct"), fixed(prog, "fixed");
  int wrong = 0;
  CHECK(clSetKernelArg(s, 1, sizeof wrong, &wrong) == CL_INVALID_ARG_SIZE);
  CHECK(clSetKernelArg(s, 3, sizeof wrong, &wrong) == CL_INVALID_ARG_INDEX);
  CHECK(clSetKernelArg(s, 0, sizeof(cl_mem) + 1, nullptr) == CL_INVALID_ARG_SIZE);
  Mem out(ctx, CL_MEM_READ_WRITE, 4096);
  CL_REQUIRE(clSetKernelArg(fixed, 0, sizeof(cl_mem), &out.m));
  size_t global = 16, four = 4, eight = 8;
  CHECK(clEnqueueNDRangeKernel(q, fixed, 1, nullptr, &global, nullptr, 0, nullptr, nullptr) == CL_INVALID_WORK_GROUP_SIZE);
  CHECK(clEnqueueNDRangeKernel(q, fixed, 1, nullptr, &global, &eight, 0, nullptr, nullptr) == CL_INVALID_WORK_GROUP_SIZE);
  CL_REQUIRE(clEnqueueNDRangeKernel(q, fixed, 1, nullptr, &global, &four, 0, nullptr, nullptr));
  auto got = read_back<int>(q, out, 16);
  CHECK(got == std::vector<int>(16, 4));
  size_t wg = 0;
  CL_REQUIRE(clGetKernelWorkGroupInfo(fixed, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr));
  CHECK(wg >= 4);
  // Unset arguments are refused at enqueue.
  Kernel fresh(prog, "with_struct");
  CHECK(clEnqueueNDRangeKernel(q, fresh, 1, nullptr, &global, nullptr, 0, nullptr, nullptr) == CL_INVALID_KERNEL_ARGS);
}

TEST_CASE("__local memory past CL_DEVICE_LOCAL_MEM_SIZE is refused on the native device, and fits below it") {
  const char* src =
      "__kernel void stage(__global int* out, __local int* tmp) {\n"
      "  size_t l = get_local_id(0);\n"
      "  tmp[l] = (int)get_global_id(0) * 2;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] = tmp[get_local_size(0) - 1 - l];\n"
      "}\n";
  Context ctx(native_devices());
  cl_device_id dev = native_devices()[0];
  Queue q(ctx, dev);
  Program prog(ctx, src);
  Kernel k(prog, "stage");
  cl_ulong limit = 0;
  CL_REQUIRE(clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof limit, &limit, nullptr));
  REQUIRE(limit > 0);
  Mem out(ctx, CL_MEM_READ_WRITE, 64 * sizeof(int));
  size_t global = 64, local = 16;
  CL_REQUIRE(clSetKernelArg(k, 0, sizeof(cl_mem), &out.m));
  CL_REQUIRE(clSetKernelArg(k, 1, static_cast<size_t>(limit) + 1, nullptr));
  CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr) ==
        CL_OUT_OF_RESOURCES);
  CL_REQUIRE(clSetKernelArg(k, 1, local * sizeof(int), nullptr));
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  auto got = read_back<int>(q, out, 64);
  std::vector<int> want(64);
  for (size_t g = 0; g < 64; ++g) want[g] = int((g / local) * local + (local - 1 - g % local)) * 2;
  CHECK(got == want);
}

TEST_CASE("a struct by value, __constant data, a global offset and a sub-buffer on the native device") {
  NativeAndPocl f;
  Program prog(f.ctx, kKernels);
  Kernel k(prog, "with_struct");
  Params p{3, 0.5f, {10, 20, 30}};
  std::vector<float> table{1, 2, 3, 4};
  const size_t n = 64, offset = 5;
  std::vector<std::vector<float>> got;
  for (auto [name, q] : f.queues()) {
    INFO(name);
    Mem whole(make_buffer(f.ctx, std::vector<float>(4 * n, -1.0f)));
    cl_buffer_region region{n * sizeof(float), 2 * n * sizeof(float)};
    cl_int err = CL_SUCCESS;
    Mem sub(clCreateSubBuffer(whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
    CL_REQUIRE(err);
    Mem t(make_buffer(f.ctx, table));
    CL_REQUIRE(clSetKernelArg(k, 0, sizeof(cl_mem), &sub.m));
    CL_REQUIRE(clSetKernelArg(k, 1, sizeof p, &p));
    CL_REQUIRE(clSetKernelArg(k, 2, sizeof(cl_mem), &t.m));
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, &offset, &n, nullptr, 0, nullptr, nullptr));
    auto all = read_back<float>(q, whole, 4 * n);
    for (size_t i = 0; i < 4 * n; ++i) {
      size_t gid = i - n;  // global id written at sub-buffer index gid
      bool written = i >= n + offset && i < n + offset + n;
      float want = written ? p.a * table[gid % 4] + p.b + p.c[gid % 3] + offset : -1.0f;
      if (all[i] != want) {
        FAIL_CHECK("element " << i << ": " << all[i] << " instead of " << want);
        break;
      }
    }
    got.emplace_back(all.begin() + n + offset, all.begin() + n + offset + n);
  }
  CHECK(got[0] == got[1]);
}

TEST_CASE("clEnqueueTask and profiling times on the native device") {
  Context ctx(native_devices());
  Queue q(ctx, native_devices()[0], CL_QUEUE_PROFILING_ENABLE);
  Program prog(ctx, kKernels);
  Kernel k(prog, "one");
  Mem out(ctx, CL_MEM_READ_WRITE, sizeof(int));
  set_args(k, out.m);
  Event e;
  CL_REQUIRE(clEnqueueTask(q, k, 0, nullptr, &e));
  CHECK(wait_bounded(e, 30) == CL_COMPLETE);
  CHECK(read_back<int>(q, out, 1)[0] == 42);
  cl_ulong t[4] = {};
  const cl_profiling_info what[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                     CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
  for (int i = 0; i < 4; ++i) CL_REQUIRE(clGetEventProfilingInfo(e, what[i], sizeof t[i], &t[i], nullptr));
  CHECK(t[0] > 0);
  CHECK(t[0] <= t[1]);
  CHECK(t[1] <= t[2]);
  CHECK(t[2] <= t[3]);
  cl_command_type type = 0;
  CL_REQUIRE(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  CHECK(type == CL_COMMAND_NDRANGE_KERNEL);
}
