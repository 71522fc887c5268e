// Many host threads on one context at once: eight threads enqueue into
// shared queues and queues of their own (in-order and out-of-order, device
// queues and context queues), create and release buffers, kernels and
// events while commands run, gate their work on user events another thread
// sets, and wait on each other's command events. Every result is checked
// against a CPU reference. Built also with -fsanitize=thread (scripts/sanitize.sh).
#include <atomic>
#include <barrier>
#include <chrono>
#include <random>
#include <thread>

#include "core/core_fixture.h"
#include "reliability/reliability_support.h"

using namespace parasol_test;

namespace {

constexpr int kThreads = 8;

// Polls an event until it finishes or the time is up; thread-safe (no Catch2).
cl_int wait_polling(cl_event e, double seconds, Failures& failures, const char* what) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    cl_int status = CL_QUEUED;
    if (clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr) !=
        CL_SUCCESS) {
      failures.add(what, ": clGetEventInfo failed");
      return CL_INVALID_EVENT;
    }
    if (status <= CL_COMPLETE) {
      if (status < 0) failures.add(what, ": command failed with ", status);
      return status;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      failures.add(what, ": still ", status, " after ", seconds, " s");
      return status;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

cl_kernel make_kernel(cl_program prog, const char* name, Failures& f) {
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(prog, name, &err);
  f.ok(err, name);
  return k;
}

template <typename T>
void arg(cl_kernel k, cl_uint i, const T& v, Failures& f) {
  f.ok(clSetKernelArg(k, i, sizeof v, &v), "clSetKernelArg");
}

}  // namespace

TEST_CASE("eight threads share queues, create and release objects and wait on each other's events",
          "[reliability]") {
  const std::vector<cl_device_id> devs = devices();
  REQUIRE(devs.size() >= 2);
  Context ctx(devs);
  Program prog(ctx, kIntKernels);
  const int rounds = kSanitized ? 4 : 6;
  const size_t n = 256;
  const size_t bytes = n * sizeof(int);

  // Queues every thread uses: an in-order queue per device, an out-of-order
  // queue on the first device, an in-order and an out-of-order context queue.
  std::vector<std::unique_ptr<Queue>> shared;
  for (cl_device_id d : devs) shared.push_back(std::make_unique<Queue>(ctx, d));
  shared.push_back(std::make_unique<Queue>(ctx, devs[0], CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE));
  shared.push_back(std::make_unique<Queue>(ctx, nullptr));
  shared.push_back(std::make_unique<Queue>(ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE));

  // One buffer every thread works on through a sub-buffer window of its own.
  std::vector<int> zeros(kThreads * n, 0);
  Mem whole(ctx, CL_MEM_COPY_HOST_PTR, zeros.size() * sizeof(int), zeros.data());

  // Slots threads publish events in; the barrier phases say when they are read.
  std::vector<EventRef> gates(kThreads), results(kThreads);
  std::barrier sync(kThreads);
  Failures failures;
  std::atomic<int> rounds_done{0};

  auto body = [&](int t) {
    std::mt19937 rng(1234 + t);
    cl_int err = CL_SUCCESS;
    // A queue of this thread's own: device or context queue, in-order or not.
    cl_device_id own_device = (t % 4 == 3) ? nullptr : devs[t % devs.size()];
    cl_command_queue own = clCreateCommandQueue(
        ctx, own_device, (t & 1) ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, &err);
    failures.ok(err, "clCreateCommandQueue");
    cl_buffer_region region{t * bytes, bytes};
    cl_mem window = clCreateSubBuffer(whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                      &region, &err);
    failures.ok(err, "clCreateSubBuffer");
    int window_added = 0;
    auto pick = [&]() -> cl_command_queue {
      std::size_t i = rng() % (shared.size() + 1);
      return i == shared.size() ? own : shared[i]->q;
    };

    for (int round = 0; round < rounds; ++round) {
      cl_kernel iota = make_kernel(prog, "iota_from", failures);
      cl_kernel add = make_kernel(prog, "add_const_int", failures);
      cl_kernel add_window = make_kernel(prog, "add_const_int", failures);
      cl_kernel copy = make_kernel(prog, "copy_int", failures);
      cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &err);
      failures.ok(err, "clCreateBuffer a");
      cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &err);
      failures.ok(err, "clCreateBuffer b");
      cl_event gate = clCreateUserEvent(ctx, &err);
      failures.ok(err, "clCreateUserEvent");
      clRetainEvent(gate);
      gates[t] = EventRef::adopt(gate);

      sync.arrive_and_wait();  // every gate is published
      EventRef neighbour_gate = gates[(t + 1) % kThreads];

      const int base = t * 1000 + round * 10, c = t + round + 1, cw = (t % 3) + 1;
      cl_event e_iota = nullptr, e_add = nullptr, e_copy = nullptr, e_window = nullptr;
      cl_event g = neighbour_gate.get();
      arg(iota, 0, a, failures);
      arg(iota, 1, base, failures);
      failures.ok(clEnqueueNDRangeKernel(pick(), iota, 1, nullptr, &n, nullptr, 1, &g, &e_iota),
                  "enqueue iota");
      arg(add, 0, a, failures);
      arg(add, 1, c, failures);
      failures.ok(clEnqueueNDRangeKernel(pick(), add, 1, nullptr, &n, nullptr, 1, &e_iota, &e_add),
                  "enqueue add");
      arg(copy, 0, a, failures);
      arg(copy, 1, b, failures);
      failures.ok(clEnqueueNDRangeKernel(pick(), copy, 1, nullptr, &n, nullptr, 1, &e_add, &e_copy),
                  "enqueue copy");
      // The shared buffer's window: this thread's commands on it are chained.
      arg(add_window, 0, window, failures);
      arg(add_window, 1, cw, failures);
      failures.ok(clEnqueueNDRangeKernel(pick(), add_window, 1, nullptr, &n, nullptr, 1, &e_iota,
                                         &e_window),
                  "enqueue add on window");
      window_added += cw;
      // Let go of what the commands still use: they keep it alive.
      clReleaseKernel(iota);
      clReleaseKernel(add);
      clReleaseKernel(copy);
      clReleaseKernel(add_window);
      clReleaseMemObject(a);
      clReleaseEvent(e_iota);
      clReleaseEvent(e_add);
      results[t] = EventRef::adopt(e_copy);

      // Open this thread's gate, which the previous thread's work waits for.
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 3000));
      failures.ok(clSetUserEventStatus(gate, CL_COMPLETE), "clSetUserEventStatus");
      clReleaseEvent(gate);

      sync.arrive_and_wait();  // every result event is published
      // Wait for the other neighbour's copy through a marker on this thread's queue.
      cl_event other = results[(t + kThreads - 1) % kThreads].get();
      cl_event marker = nullptr;
      if (failures.ok(clEnqueueMarkerWithWaitList(own, 1, &other, &marker), "marker")) {
        wait_polling(marker, 60, failures, "marker on another thread's event");
        clReleaseEvent(marker);
      }
      std::vector<int> got(n, -1);
      cl_event read = nullptr;
      cl_event after_copy = e_copy;
      if (failures.ok(clEnqueueReadBuffer(pick(), b, CL_FALSE, 0, bytes, got.data(), 1,
                                          &after_copy, &read),
                      "read")) {
        clReleaseMemObject(b);  // released while its read may still be in flight
        if (wait_polling(read, 60, failures, "read") == CL_COMPLETE)
          for (size_t i = 0; i < n; ++i)
            if (got[i] != base + static_cast<int>(i) + c) {
              failures.add("thread ", t, " round ", round, ": b[", i, "] = ", got[i],
                           ", expected ", base + static_cast<int>(i) + c);
              break;
            }
        clReleaseEvent(read);
      } else {
        clReleaseMemObject(b);
      }
      wait_polling(e_window, 60, failures, "window add");
      clReleaseEvent(e_window);
      rounds_done.fetch_add(1);
      sync.arrive_and_wait();  // nobody reads the slots any more this round
    }

    // The window holds what this thread added.
    std::vector<int> got(n, -1);
    cl_event read = nullptr;
    if (failures.ok(clEnqueueReadBuffer(own, window, CL_FALSE, 0, bytes, got.data(), 0, nullptr,
                                        &read),
                    "read window")) {
      if (wait_polling(read, 60, failures, "read window") == CL_COMPLETE)
        for (size_t i = 0; i < n; ++i)
          if (got[i] != window_added) {
            failures.add("thread ", t, ": window[", i, "] = ", got[i], ", expected ",
                         window_added);
            break;
          }
      clReleaseEvent(read);
    }
    clReleaseMemObject(window);
    clReleaseCommandQueue(own);
  };

  bool finished = returns_within(
      [&] {
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
        for (auto& th : threads) th.join();
      },
      kSanitized ? 400 : 200);
  INFO(failures.report());
  REQUIRE(finished);
  CHECK(rounds_done.load() == kThreads * rounds);
  CHECK(failures.count() == 0);
  gates.clear();
  results.clear();

  // The whole shared buffer, read through one queue, agrees with the windows.
  std::vector<int> all = read_ints(shared.back()->q, whole, kThreads * n);
  for (int t = 0; t < kThreads; ++t) {
    int expected = 0;
    for (int round = 0; round < rounds; ++round) expected += (t % 3) + 1;
    CHECK(all[t * n] == expected);
    CHECK(all[t * n + n - 1] == expected);
  }
}

TEST_CASE("threads build programs and set arguments of their own kernels at the same time",
          "[reliability]") {
  const std::vector<cl_device_id> devs = pocl_devices();
  Context ctx(devs);
  Failures failures;
  auto body = [&](int t) {
    for (int round = 0; round < 3; ++round) {
      // Each thread's own program text (a different constant) built concurrently.
      std::string source = "__kernel void k(__global int* x) { x[get_global_id(0)] = " +
                           std::to_string(t * 100 + round) + "; }\n";
      const char* text = source.c_str();
      cl_int err = CL_SUCCESS;
      cl_program p = clCreateProgramWithSource(ctx, 1, &text, nullptr, &err);
      if (!failures.ok(err, "clCreateProgramWithSource")) continue;
      failures.ok(clBuildProgram(p, 0, nullptr, "", nullptr, nullptr), "clBuildProgram");
      cl_kernel k = clCreateKernel(p, "k", &err);
      clReleaseProgram(p);  // the kernel keeps it
      if (!failures.ok(err, "clCreateKernel")) continue;
      cl_command_queue q = clCreateCommandQueue(ctx, devs[(t + round) % devs.size()], 0, &err);
      failures.ok(err, "clCreateCommandQueue");
      const size_t n = 64;
      cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(int), nullptr, &err);
      failures.ok(err, "clCreateBuffer");
      arg(k, 0, m, failures);
      failures.ok(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr),
                  "enqueue");
      clReleaseKernel(k);
      std::vector<int> got(n, -1);
      failures.ok(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof(int), got.data(), 0, nullptr,
                                      nullptr),
                  "read");
      for (int v : got)
        if (v != t * 100 + round) {
          failures.add("thread ", t, " round ", round, ": read ", v);
          break;
        }
      clReleaseMemObject(m);
      clReleaseCommandQueue(q);
    }
  };
  bool finished = returns_within(
      [&] {
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
        for (auto& th : threads) th.join();
      },
      kSanitized ? 400 : 200);
  INFO(failures.report());
  REQUIRE(finished);
  CHECK(failures.count() == 0);
}
