// clEnqueueNDRangeKernel captures the kernel's arguments when it is called:
// arguments changed afterwards, before the command runs, must not reach it.
#include "core/core_fixture.h"

using namespace parasol_test;

TEST_CASE("arguments changed after enqueue but before the gated command runs do not reach it") {
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel add(prog, "add_const_int");
  const size_t n = 256;
  auto dev_q = GENERATE(0, 1);  // PoCL queue, then Oclgrind queue
  cl_command_queue q = dev_q ? m.qg.q : m.qp.q;
  INFO("queue on " << (dev_q ? "Oclgrind" : "PoCL"));
  std::vector<int> zeros(n, 0);
  Mem first(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), zeros.data());
  Mem second(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), zeros.data());

  UserEvent gate(m.ctx);
  Event run1, run2;
  set_args(add, first.m, 7);
  CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 1, gate.ptr(), &run1));
  // Change both arguments while run1 waits at the gate; enqueue a second run.
  set_args(add, second.m, 1000);
  CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 1, gate.ptr(), &run2));
  // And change them again to values no command was enqueued with.
  int bogus = -55;
  CL_REQUIRE(clSetKernelArg(add, 1, sizeof bogus, &bogus));
  CL_REQUIRE(clSetKernelArg(add, 0, sizeof(cl_mem), &second.m));
  CHECK(event_status(run1) > CL_COMPLETE);  // still gated
  gate.set(CL_COMPLETE);
  cl_event both[2] = {run1, run2};
  CL_REQUIRE(clWaitForEvents(2, both));
  CHECK(read_ints(m.qp, first, n) == std::vector<int>(n, 7));
  CHECK(read_ints(m.qp, second, n) == std::vector<int>(n, 1000));
}

TEST_CASE("releasing the buffer set as an argument after enqueue keeps it alive for the command") {
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel copy(prog, "copy_int");
  const size_t n = 128;
  std::vector<int> src_host = iota_vector(n, 40);
  cl_int err = CL_SUCCESS;
  cl_mem src = clCreateBuffer(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), src_host.data(), &err);
  CL_REQUIRE(err);
  Mem dst(m.ctx, CL_MEM_READ_WRITE, n * sizeof(int));
  UserEvent gate(m.ctx);
  Event done;
  set_args(copy, src, dst.m);
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, copy, 1, nullptr, &n, nullptr, 1, gate.ptr(), &done));
  CL_REQUIRE(clReleaseMemObject(src));  // the user's last reference
  // The kernel still refers to src (until another value is set); the command must too.
  cl_mem other = dst.m;
  CL_REQUIRE(clSetKernelArg(copy, 0, sizeof other, &other));
  gate.set(CL_COMPLETE);
  REQUIRE(wait_bounded(done) == CL_COMPLETE);
  CHECK(read_ints(m.qp, dst, n) == src_host);
}
