// clEnqueueNativeKernel: a host function run by the native CPU device inside
// Parasol's task graph, its buffers' addresses patched into a copy of the
// args block; refused (CL_INVALID_OPERATION) on vendor devices.
#include <atomic>
#include <cstring>
#include <thread>

#include "native/native_fixture.h"

using namespace parasol_test;

namespace {

struct ScaleArgs {
  cl_mem in;   // replaced by a pointer to the buffer's memory
  int factor;
  cl_mem out;  // likewise
  size_t n;
};

std::atomic<int> calls{0};

void CL_CALLBACK scale_fn(void* p) {
  auto* a = static_cast<ScaleArgs*>(p);
  auto* in = reinterpret_cast<const int*>(a->in);
  auto* out = reinterpret_cast<int*>(a->out);
  for (size_t i = 0; i < a->n; ++i) out[i] = in[i] * a->factor + 1;
  calls.fetch_add(1);
}

void CL_CALLBACK nothing_fn(void*) { calls.fetch_add(1); }

cl_device_exec_capabilities exec_caps(cl_device_id d) {
  cl_device_exec_capabilities c = 0;
  CL_REQUIRE(clGetDeviceInfo(d, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof c, &c, nullptr));
  return c;
}

}  // namespace

TEST_CASE("only the native device reports CL_EXEC_NATIVE_KERNEL") {
  for (cl_device_id d : devices()) {
    INFO(device_name(d) << " [" << vendor_of(d) << "]");
    bool native = vendor_of(d) == "Parasol";
    CHECK(exec_caps(d) == (native ? (CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL) : CL_EXEC_KERNEL));
  }
}

TEST_CASE("a native kernel reads a buffer a PoCL kernel wrote and its output feeds a PoCL kernel, ordered by events") {
  NativeAndPocl f;
  Program prog(f.ctx, "__kernel void fill(__global int* v) { v[get_global_id(0)] = (int)get_global_id(0); }\n"
                      "__kernel void add_ten(__global int* v) { v[get_global_id(0)] += 10; }\n");
  Kernel fill(prog, "fill"), add_ten(prog, "add_ten");
  const size_t n = 4096;
  Mem a(f.ctx, CL_MEM_READ_WRITE, n * sizeof(int)), b(f.ctx, CL_MEM_READ_WRITE, n * sizeof(int));
  // A user event gates the chain so the native kernel is queued long before it may run.
  UserEvent gate(f.ctx);
  set_args(fill, a.m);
  Event filled, scaled, added;
  CL_REQUIRE(clEnqueueNDRangeKernel(f.qp, fill, 1, nullptr, &n, nullptr, 1, gate.ptr(), &filled));
  ScaleArgs args{a.m, 3, b.m, n};
  const cl_mem mems[] = {a.m, b.m};
  const void* locs[] = {&args.in, &args.out};
  calls = 0;
  CL_REQUIRE(clEnqueueNativeKernel(f.qn, scale_fn, &args, sizeof args, 2, mems, locs, 1, &filled,
                                   &scaled));
  // The args block was copied: changing it now changes nothing.
  args.factor = 1000;
  args.n = 0;
  set_args(add_ten, b.m);
  CL_REQUIRE(clEnqueueNDRangeKernel(f.qp, add_ten, 1, nullptr, &n, nullptr, 1, &scaled, &added));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(calls.load() == 0);
  CHECK(event_status(scaled) > CL_COMPLETE);
  gate.set(CL_COMPLETE);
  REQUIRE(wait_bounded(added, 60) == CL_COMPLETE);
  CHECK(event_status(scaled) == CL_COMPLETE);
  CHECK(calls.load() == 1);
  cl_command_type type = 0;
  CL_REQUIRE(clGetEventInfo(scaled, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  CHECK(type == CL_COMMAND_NATIVE_KERNEL);
  cl_device_id where = nullptr;
  CL_REQUIRE(clGetEventInfo(scaled, CL_EVENT_DEVICE_PARASOL, sizeof where, &where, nullptr));
  CHECK(where == f.native);
  auto got = read_back<int>(f.qp, b, n);
  for (size_t i = 0; i < n; ++i)
    if (got[i] != static_cast<int>(i) * 3 + 1 + 10) {
      FAIL_CHECK("element " << i << ": " << got[i]);
      break;
    }
  // The input buffer is untouched.
  CHECK(read_back<int>(f.qn, a, n)[n - 1] == static_cast<int>(n - 1));
}

TEST_CASE("a native kernel on a sub-buffer gets the sub-buffer's own address") {
  NativeAndPocl f;
  const size_t n = 1024;
  std::vector<int> init(n, 0);
  Mem whole(make_buffer(f.ctx, init));
  cl_buffer_region region{256 * sizeof(int), 512 * sizeof(int)};
  cl_int err = CL_SUCCESS;
  Mem sub(clCreateSubBuffer(whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
  CL_REQUIRE(err);
  std::vector<int> ones(512, 1);
  Mem src(make_buffer(f.ctx, ones));
  ScaleArgs args{src.m, 7, sub.m, 512};
  const cl_mem mems[] = {src.m, sub.m};
  const void* locs[] = {&args.in, &args.out};
  CL_REQUIRE(clEnqueueNativeKernel(f.qn, scale_fn, &args, sizeof args, 2, mems, locs, 0, nullptr, nullptr));
  auto got = read_back<int>(f.qn, whole, n);
  for (size_t i = 0; i < n; ++i) {
    int want = i >= 256 && i < 768 ? 8 : 0;
    if (got[i] != want) {
      FAIL_CHECK("element " << i << ": " << got[i] << " instead of " << want);
      break;
    }
  }
}

TEST_CASE("clEnqueueNativeKernel validates its arguments and is refused on vendor devices") {
  NativeAndPocl f;
  Mem buf(f.ctx, CL_MEM_READ_WRITE, 64);
  ScaleArgs args{buf.m, 1, buf.m, 0};
  const cl_mem mems[] = {buf.m};
  const void* locs[] = {&args.in};
  const void* outside[] = {&calls};
  cl_mem bogus = reinterpret_cast<cl_mem>(&args);
  CHECK(clEnqueueNativeKernel(f.qn, nullptr, &args, sizeof args, 0, nullptr, nullptr, 0, nullptr, nullptr) == CL_INVALID_VALUE);
  CHECK(clEnqueueNativeKernel(f.qn, nothing_fn, nullptr, 8, 0, nullptr, nullptr, 0, nullptr, nullptr) == CL_INVALID_VALUE);
  CHECK(clEnqueueNativeKernel(f.qn, nothing_fn, &args, 0, 0, nullptr, nullptr, 0, nullptr, nullptr) == CL_INVALID_VALUE);
  CHECK(clEnqueueNativeKernel(f.qn, nothing_fn, &args, sizeof args, 1, nullptr, locs, 0, nullptr, nullptr) == CL_INVALID_VALUE);
  CHECK(clEnqueueNativeKernel(f.qn, nothing_fn, &args, sizeof args, 1, mems, nullptr, 0, nullptr, nullptr) == CL_INVALID_VALUE);
  CHECK(clEnqueueNativeKernel(f.qn, nothing_fn, &args, sizeof args, 0, mems, nullptr, 0, nullptr, nullptr) == CL_INVALID_VALUE);
  CHECK(clEnqueueNativeKernel(f.qn, nothing_fn, &args, sizeof args, 0, nullptr, locs, 0, nullptr, nullptr) == CL_INVALID_VALUE);
  CHECK(clEnqueueNativeKernel(f.qn, nothing_fn, &args, sizeof args, 1, mems, outside, 0, nullptr, nullptr) == CL_INVALID_VALUE);
  CHECK(parasol_dispatch(f.qn.q).clEnqueueNativeKernel(f.qn, nothing_fn, &args, sizeof args, 1, &bogus, locs, 0, nullptr, nullptr) == CL_INVALID_MEM_OBJECT);
  CHECK(clEnqueueNativeKernel(f.qn, nothing_fn, &args, sizeof args, 0, nullptr, nullptr, 1, nullptr, nullptr) == CL_INVALID_EVENT_WAIT_LIST);
  // Vendor devices cannot run host functions.
  CHECK(clEnqueueNativeKernel(f.qp, nothing_fn, nullptr, 0, 0, nullptr, nullptr, 0, nullptr, nullptr) == CL_INVALID_OPERATION);
  {
    Context pocl_only(std::vector<cl_device_id>{f.pocl});
    cl_int err = CL_SUCCESS;
    cl_command_queue cq = clCreateCommandQueue(pocl_only, nullptr, 0, &err);
    CL_REQUIRE(err);
    CHECK(clEnqueueNativeKernel(cq, nothing_fn, nullptr, 0, 0, nullptr, nullptr, 0, nullptr, nullptr) == CL_INVALID_OPERATION);
    clReleaseCommandQueue(cq);
  }
  // None of the refused calls ran anything; a valid one without args does.
  calls = 0;
  CL_REQUIRE(clEnqueueNativeKernel(f.qn, nothing_fn, nullptr, 0, 0, nullptr, nullptr, 0, nullptr, nullptr));
  CL_REQUIRE(clFinish(f.qn));
  CHECK(calls.load() == 1);
  // On a context queue of a context with the native device, it runs there.
  cl_int err = CL_SUCCESS;
  cl_command_queue cq = clCreateCommandQueue(f.ctx, nullptr, 0, &err);
  CL_REQUIRE(err);
  Event e;
  CL_REQUIRE(clEnqueueNativeKernel(cq, nothing_fn, nullptr, 0, 0, nullptr, nullptr, 0, nullptr, &e));
  CHECK(wait_bounded(e, 30) == CL_COMPLETE);
  cl_device_id where = nullptr;
  CL_REQUIRE(clGetEventInfo(e, CL_EVENT_DEVICE_PARASOL, sizeof where, &where, nullptr));
  CHECK(where == f.native);
  CHECK(calls.load() == 2);
  clReleaseCommandQueue(cq);
}
