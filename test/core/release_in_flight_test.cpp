// Releasing the user's handles (queue, kernel, program, buffer, event) while
// their commands still wait at a user event is safe, and those commands
// still run, correctly, once the gate opens.
#include "core/core_fixture.h"

using namespace parasol_test;

TEST_CASE("a gated kernel completes correctly after its queue, kernel, program, input buffer and event are released") {
  MixedPair m;
  auto which = GENERATE(0, 1);
  INFO("kernel on " << (which ? "Oclgrind" : "PoCL"));
  const size_t n = 256;
  std::vector<int> src_host = iota_vector(n, 11);
  Mem dst(m.ctx, CL_MEM_READ_WRITE, n * sizeof(int));
  UserEvent gate(m.ctx);
  Event read_done;
  std::vector<int> out(n, 0);
  {
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(m.ctx, which ? m.grind : m.pocl, 0, &err);
    CL_REQUIRE(err);
    const char* src = kIntKernels;
    cl_program prog = clCreateProgramWithSource(m.ctx, 1, &src, nullptr, &err);
    CL_REQUIRE(err);
    CL_REQUIRE(clBuildProgram(prog, 0, nullptr, nullptr, nullptr, nullptr));
    cl_kernel k = clCreateKernel(prog, "copy_int", &err);
    CL_REQUIRE(err);
    cl_mem in = clCreateBuffer(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), src_host.data(), &err);
    CL_REQUIRE(err);
    CL_REQUIRE(clSetKernelArg(k, 0, sizeof in, &in));
    CL_REQUIRE(clSetKernelArg(k, 1, sizeof(cl_mem), &dst.m));
    cl_event ran = nullptr;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 1, gate.ptr(), &ran));
    // A second command after it on the same (soon released) queue.
    Program add_prog(m.ctx, kIntKernels);
    Kernel add(add_prog, "add_const_int");
    set_args(add, dst.m, 1000);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    cl_event last = nullptr;
    CL_REQUIRE(clEnqueueMarker(q, &last));
    CL_REQUIRE(clEnqueueReadBuffer(m.qp, dst, CL_FALSE, 0, n * sizeof(int), out.data(), 1, &last,
                                   &read_done));
    CL_REQUIRE(clReleaseEvent(last));
    CL_REQUIRE(clReleaseEvent(ran));
    CL_REQUIRE(clReleaseMemObject(in));
    CL_REQUIRE(clReleaseKernel(k));
    CL_REQUIRE(clReleaseProgram(prog));
    CL_REQUIRE(clReleaseCommandQueue(q));
    CHECK(event_status(read_done) == CL_QUEUED);
  }
  gate.set(CL_COMPLETE);
  REQUIRE(wait_bounded(read_done) == CL_COMPLETE);
  CHECK(out == iota_vector(n, 1011));
}

TEST_CASE("releasing a sub-buffer's parent and the context with a gated command in flight is safe") {
  std::vector<int> out(128, 0);
  const size_t n = 128;
  cl_int err = CL_SUCCESS;
  auto pocl = pocl_devices().at(0);
  cl_context ctx = clCreateContext(nullptr, 1, &pocl, nullptr, nullptr, &err);
  CL_REQUIRE(err);
  cl_command_queue q = clCreateCommandQueue(ctx, pocl, 0, &err);
  CL_REQUIRE(err);
  cl_event gate = clCreateUserEvent(ctx, &err);
  CL_REQUIRE(err);
  cl_mem parent = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4 * n * sizeof(int), nullptr, &err);
  CL_REQUIRE(err);
  cl_buffer_region r{n * sizeof(int), n * sizeof(int)};
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
  CL_REQUIRE(err);
  int v = 77;
  CL_REQUIRE(clEnqueueFillBuffer(q, sub, &v, sizeof v, 0, n * sizeof(int), 1, &gate, nullptr));
  cl_event read = nullptr;
  CL_REQUIRE(clEnqueueReadBuffer(q, sub, CL_FALSE, 0, n * sizeof(int), out.data(), 0, nullptr, &read));
  CL_REQUIRE(clReleaseMemObject(parent));
  CL_REQUIRE(clReleaseMemObject(sub));
  CL_REQUIRE(clReleaseCommandQueue(q));
  CL_REQUIRE(clReleaseContext(ctx));
  CL_REQUIRE(clSetUserEventStatus(gate, CL_COMPLETE));
  CHECK(wait_bounded(read) == CL_COMPLETE);
  CHECK(out == std::vector<int>(n, 77));
  CL_REQUIRE(clReleaseEvent(read));
  CL_REQUIRE(clReleaseEvent(gate));
}
