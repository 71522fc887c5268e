// Failures reach every dependent command and every waiter, and nothing hangs:
// a user event set to a negative status, and a program that builds on one
// vendor only.
#include <cstring>

#include "core/core_fixture.h"

using namespace parasol_test;

TEST_CASE("a user event set to a negative status fails every dependent command on both vendors") {
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel kp(prog, "add_const_int"), kg(prog, "add_const_int");
  const size_t n = 128;
  std::vector<int> init = iota_vector(n, 5);
  Mem buf(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), init.data());
  Mem other(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), init.data());
  UserEvent gate(m.ctx);
  set_args(kp, buf.m, 1);
  set_args(kg, buf.m, 2);
  // A chain of three across vendors: PoCL kernel -> Oclgrind kernel -> PoCL copy.
  Event c1, c2, c3, direct_g, marker;
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qp, kp, 1, nullptr, &n, nullptr, 1, gate.ptr(), &c1));
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, kg, 1, nullptr, &n, nullptr, 1, &c1.e, &c2));
  CL_REQUIRE(clEnqueueCopyBuffer(m.qp, buf, other, 0, 0, n * sizeof(int), 1, &c2.e, &c3));
  // A direct dependent on the Oclgrind queue and a marker on the PoCL queue.
  int v = -1;
  CL_REQUIRE(clEnqueueFillBuffer(m.qg, other, &v, sizeof v, 0, n * sizeof(int), 1, gate.ptr(),
                                 &direct_g));
  CL_REQUIRE(clEnqueueMarkerWithWaitList(m.qp, 1, gate.ptr(), &marker));

  gate.set(-7);
  for (cl_event e : {c1.e, c2.e, c3.e, direct_g.e, marker.e}) {
    cl_int s = wait_bounded(e, 20);
    CHECK(s < 0);
  }
  CHECK(event_status(gate) == -7);

  // Waiting on the failed events: an error, not a hang.
  cl_int wait_err = CL_SUCCESS;
  cl_event list[2] = {c3.e, direct_g.e};
  REQUIRE(returns_within([&] { wait_err = clWaitForEvents(2, list); }, 20));
  CHECK(wait_err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  cl_event g = gate;
  REQUIRE(returns_within([&] { wait_err = clWaitForEvents(1, &g); }, 20));
  CHECK(wait_err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);

  // A blocking read behind the failure returns the spec's error.
  std::vector<int> out(n, 0);
  cl_int read_err = CL_SUCCESS;
  Event read_ev;
  REQUIRE(returns_within([&] {
    read_err = clEnqueueReadBuffer(m.qg, buf, CL_TRUE, 0, n * sizeof(int), out.data(), 1, &c2.e,
                                   &read_ev);
  }, 20));
  CHECK(read_err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  if (read_ev.e) CHECK(event_status(read_ev) < 0);

  // None of the failed commands touched the data.
  Queue fresh(m.ctx, m.pocl);
  CHECK(read_ints(fresh, buf, n) == init);
  CHECK(read_ints(fresh, other, n) == init);
  // clFinish on the queues holding failed commands returns.
  REQUIRE(returns_within([&] { clFinish(m.qp); clFinish(m.qg); }, 20));
}

namespace {

// Builds on PoCL, fails on Oclgrind: Oclgrind compiles for SPIR and
// predefines __SPIR__, PoCL (a native x86-64 target) does not.
const char* kRefusedOnSpir =
    "#ifdef __SPIR__\n"
    "#error parasol-test-refuses-SPIR-targets\n"
    "#endif\n"
    "__kernel void only_native(__global int* x) {\n"
    "  x[get_global_id(0)] = 3 * (int)get_global_id(0);\n"
    "}\n";

// The vendor's own answer: does this source build on that vendor directly?
bool vendor_builds(cl_device_id parasol_dev, const char* source) {
  cl_device_id vd = vendor_device(parasol_dev);
  cl_int err = CL_SUCCESS;
  cl_context c = clCreateContext(nullptr, 1, &vd, nullptr, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_program p = clCreateProgramWithSource(c, 1, &source, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  err = clBuildProgram(p, 1, &vd, "", nullptr, nullptr);
  clReleaseProgram(p);
  clReleaseContext(c);
  return err == CL_SUCCESS;
}

}  // namespace

TEST_CASE("a program that builds on PoCL only: build failure reported per device, kernel runs on PoCL, refused on Oclgrind") {
  MixedPair m;
  // Independent reference: the vendors themselves disagree on this source.
  REQUIRE(vendor_builds(m.pocl, kRefusedOnSpir));
  REQUIRE_FALSE(vendor_builds(m.grind, kRefusedOnSpir));

  cl_int build_err = CL_SUCCESS;
  cl_program prog = build_program(m.ctx, kRefusedOnSpir, build_err);
  CHECK(build_err == CL_BUILD_PROGRAM_FAILURE);

  cl_build_status sp = CL_BUILD_NONE, sg = CL_BUILD_NONE;
  CL_REQUIRE(clGetProgramBuildInfo(prog, m.pocl, CL_PROGRAM_BUILD_STATUS, sizeof sp, &sp, nullptr));
  CL_REQUIRE(clGetProgramBuildInfo(prog, m.grind, CL_PROGRAM_BUILD_STATUS, sizeof sg, &sg, nullptr));
  CHECK(sp == CL_BUILD_SUCCESS);
  CHECK(sg == CL_BUILD_ERROR);
  std::string log_g = build_log(prog, m.grind), log_p = build_log(prog, m.pocl);
  INFO("Oclgrind log: " << log_g);
  CHECK(log_g.find("parasol-test-refuses-SPIR-targets") != std::string::npos);
  CHECK(log_p.find("parasol-test-refuses-SPIR-targets") == std::string::npos);
  cl_program_binary_type bt = 0;
  CL_REQUIRE(clGetProgramBuildInfo(prog, m.grind, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, nullptr));
  CHECK(bt == CL_PROGRAM_BINARY_TYPE_NONE);
  CL_REQUIRE(clGetProgramBuildInfo(prog, m.pocl, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, nullptr));
  CHECK(bt == CL_PROGRAM_BINARY_TYPE_EXECUTABLE);

  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(prog, "only_native", &err);
  CL_REQUIRE(err);
  const size_t n = 256;
  Mem buf(m.ctx, CL_MEM_READ_WRITE, n * sizeof(int));
  CL_REQUIRE(clSetKernelArg(k, 0, sizeof(cl_mem), &buf.m));
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qp, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  std::vector<int> expect(n);
  for (size_t i = 0; i < n; ++i) expect[i] = 3 * int(i);
  CHECK(read_ints(m.qp, buf, n) == expect);

  Event none;
  CHECK(clEnqueueNDRangeKernel(m.qg, k, 1, nullptr, &n, nullptr, 0, nullptr, &none) ==
        CL_INVALID_PROGRAM_EXECUTABLE);
  CHECK(none.e == nullptr);
  CHECK(clEnqueueTask(m.qg, k, 0, nullptr, nullptr) == CL_INVALID_PROGRAM_EXECUTABLE);
  size_t wg = 0;
  CHECK(clGetKernelWorkGroupInfo(k, m.grind, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr) ==
        CL_INVALID_PROGRAM_EXECUTABLE);
  CL_REQUIRE(clGetKernelWorkGroupInfo(k, m.pocl, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr));
  CHECK(wg > 0);

  CL_REQUIRE(clReleaseKernel(k));
  CL_REQUIRE(clReleaseProgram(prog));
}

TEST_CASE("a program that builds nowhere: clCreateKernel answers CL_INVALID_PROGRAM_EXECUTABLE and the logs hold the compiler's message") {
  MixedPair m;
  cl_int build_err = CL_SUCCESS;
  cl_program prog = build_program(m.ctx, "__kernel void broken_k(__global int* x) { x[0] = undeclared_name; }\n",
                                  build_err);
  CHECK(build_err == CL_BUILD_PROGRAM_FAILURE);
  for (cl_device_id d : {m.pocl, m.grind}) {
    cl_build_status s = CL_BUILD_NONE;
    CL_REQUIRE(clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_STATUS, sizeof s, &s, nullptr));
    CHECK(s == CL_BUILD_ERROR);
    CHECK(build_log(prog, d).find("undeclared_name") != std::string::npos);
  }
  cl_int err = CL_SUCCESS;
  CHECK(clCreateKernel(prog, "broken_k", &err) == nullptr);
  CHECK(err == CL_INVALID_PROGRAM_EXECUTABLE);
  size_t nk = 0;
  CHECK(clGetProgramInfo(prog, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, nullptr) ==
        CL_INVALID_PROGRAM_EXECUTABLE);
  CL_REQUIRE(clReleaseProgram(prog));
}

TEST_CASE("on a context queue, a kernel built on PoCL only always lands on PoCL, whatever the policy") {
  auto policy = GENERATE(as<std::string>{}, "eager", "random", "heft");
  INFO("policy " << policy);
  std::vector<cl_device_id> devs{pocl_devices().at(0), oclgrind_devices().at(0)};
  cl_context_properties props[] = {CL_CONTEXT_SCHEDULER_PARASOL,
                                   reinterpret_cast<cl_context_properties>(policy.c_str()), 0};
  Context ctx(devs, props);
  cl_int build_err = CL_SUCCESS, err = CL_SUCCESS;
  cl_program prog = build_program(ctx, kRefusedOnSpir, build_err);
  CHECK(build_err == CL_BUILD_PROGRAM_FAILURE);
  Kernel k(prog, "only_native");
  const size_t n = 64;
  Mem buf(ctx, CL_MEM_READ_WRITE, n * sizeof(int));
  set_args(k, buf.m);
  cl_command_queue cq = clCreateCommandQueue(ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  CL_REQUIRE(err);
  std::vector<Event> evs(12);
  for (auto& e : evs)
    CL_REQUIRE(clEnqueueNDRangeKernel(cq, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
  for (auto& e : evs) {
    CHECK(wait_bounded(e, 30) == CL_COMPLETE);
    cl_device_id ran = nullptr;
    CL_REQUIRE(clGetEventInfo(e, CL_EVENT_DEVICE_PARASOL, sizeof ran, &ran, nullptr));
    CHECK(ran == devs[0]);
  }
  Queue qp(ctx, devs[0]);
  std::vector<int> expect(n);
  for (size_t i = 0; i < n; ++i) expect[i] = 3 * int(i);
  CHECK(read_ints(qp, buf, n) == expect);
  CL_REQUIRE(clReleaseCommandQueue(cq));
  CL_REQUIRE(clReleaseProgram(prog));
}
