// clEnqueueNDRangeKernel captures the kernel's arguments when it is called:
// arguments changed afterwards, before the command runs, must not reach it.
#include <atomic>
#include <chrono>
#include <thread>

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

TEST_CASE("relaunching a kernel with repeated, changed, recycled and windowed arguments runs each launch with its own") {
  // Parasol sets only the vendor arguments that changed since the vendor
  // kernel's last launch (backend/vendor_arg_values.h): every launch here must
  // still see exactly the arguments it was enqueued with.
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel add(prog, "add_const_int");
  Kernel add_too(prog, "add_const_int");  // its own vendor kernels
  const size_t n = 64;
  auto dev_q = GENERATE(0, 1);
  cl_command_queue q = dev_q ? m.qg.q : m.qp.q;
  INFO("queue on " << (dev_q ? "Oclgrind" : "PoCL"));
  std::vector<int> zeros(n, 0);
  Mem a(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), zeros.data());
  Mem b(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), zeros.data());
  std::vector<int> want_a(n, 0), want_b(n, 0);
  const int values[] = {5, 5, 11, 5, 11, 11, -3};
  for (int t = 0; t < 28; ++t) {
    const int c = values[t % 7];
    INFO("launch " << t << ", constant " << c);
    if (t % 4 == 3) {
      // A buffer used once and released: the vendor may hand its handle
      // to the next one.
      Mem fresh(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), zeros.data());
      set_args(add, fresh.m, c);
      CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
      CHECK(read_ints(q, fresh, n) == std::vector<int>(n, c));
      continue;
    }
    if (t % 5 == 4) {
      // The whole of b, its second half through a sub-buffer of b's own
      // memory, then the whole of b again.
      cl_buffer_region half{n / 2 * sizeof(int), n / 2 * sizeof(int)};
      cl_int err = CL_SUCCESS;
      cl_mem window = clCreateSubBuffer(b, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &half, &err);
      CL_REQUIRE(err);
      const size_t half_n = n / 2;
      set_args(add, b.m, c);
      CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
      set_args(add, window, c);
      CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &half_n, nullptr, 0, nullptr, nullptr));
      CL_REQUIRE(clReleaseMemObject(window));
      set_args(add, b.m, c);
      CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
      for (size_t i = 0; i < n; ++i) want_b[i] += i < n / 2 ? 2 * c : 3 * c;
      continue;
    }
    cl_mem target = t % 2 ? b.m : a.m;
    set_args(add, target, c);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    for (auto& v : t % 2 ? want_b : want_a) v += c;
    // The other kernel object on the other buffer, with another constant.
    set_args(add_too, t % 2 ? a.m : b.m, 100);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, add_too, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    for (auto& v : t % 2 ? want_a : want_b) v += 100;
  }
  CHECK(read_ints(q, a, n) == want_a);
  CHECK(read_ints(q, b, n) == want_b);
}

TEST_CASE("a buffer released while set as an argument is destroyed at once, and a launch using it is refused") {
  // A kernel does not retain the memory objects set as its arguments: the
  // application's last release destroys the buffer, and its destructor
  // callbacks run, while the kernel still has it set.
  for (cl_device_id d : devices()) {
    INFO(device_name(d));
    Context ctx{{d}};
    Queue q{ctx, d};
    Program prog(ctx, kIntKernels);
    Kernel add(prog, "add_const_int");
    const size_t n = 64;
    cl_int err = CL_SUCCESS;
    cl_mem released = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(int), nullptr, &err);
    CL_REQUIRE(err);
    static std::atomic<int> destroyed;
    destroyed = 0;
    CL_REQUIRE(clSetMemObjectDestructorCallback(
        released, [](cl_mem, void*) { destroyed.fetch_add(1); }, nullptr));
    set_args(add, released, 5);
    CL_REQUIRE(clReleaseMemObject(released));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (destroyed.load() == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CHECK(destroyed.load() == 1);
    // Launching with the released buffer still set is refused.
    CHECK(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr) ==
          CL_INVALID_KERNEL_ARGS);
    // Set anew, the kernel runs.
    Mem live(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), iota_vector(n).data());
    set_args(add, live.m, 5);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CHECK(read_ints(q, live, n) == iota_vector(n, 5));
  }
}
