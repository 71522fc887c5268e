// Divide functions: a kernel on a context queue runs undivided or through
// its divide function, with a partitioning factor the runtime learns.
#include <CL/cl_parasol.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

const char* kSource =
    "__kernel void scale2(__global float* x) { size_t i = get_global_id(0); x[i] = 2.0f * x[i] + 1.0f; }\n"
    "__kernel void spin(__global int* out, int iters) {\n"
    "  int acc = (int)get_global_id(0);\n"
    "  for (int i = 0; i < iters; ++i) acc = acc * 1103515245 + 12345;\n"
    "  out[get_global_id(0)] = acc;\n"
    "}\n";

clSetKernelDivideFunctionPARASOL_fn set_divide() {
  auto fn = reinterpret_cast<clSetKernelDivideFunctionPARASOL_fn>(
      clGetExtensionFunctionAddressForPlatform(parasol_platform(), "clSetKernelDivideFunctionPARASOL"));
  REQUIRE(fn);
  return fn;
}

cl_uint factor_of(cl_event e) {
  cl_uint f = 99;
  CL_REQUIRE(clGetEventInfo(e, CL_EVENT_PARTITIONING_FACTOR_PARASOL, sizeof f, &f, nullptr));
  return f;
}

// Splits a 1D launch of `kernel` (arguments already set) into `factor`
// pieces by global offset, all after `before`; `after` waits for them all.
struct Split {
  cl_kernel kernel;
  size_t global;
  std::vector<cl_uint> seen;  // factors the function was called with
};

cl_int CL_CALLBACK split_by_offset(cl_command_queue q, cl_uint factor, const cl_event before,
                                   cl_event* after, void* user_data) {
  auto* s = static_cast<Split*>(user_data);
  s->seen.push_back(factor);
  size_t chunk = (s->global + factor - 1) / factor;
  std::vector<cl_event> pieces;
  for (size_t off = 0; off < s->global; off += chunk) {
    size_t size = std::min(chunk, s->global - off);
    cl_event e;
    cl_int err = clEnqueueNDRangeKernel(q, s->kernel, 1, &off, &size, nullptr, 1, &before, &e);
    if (err != CL_SUCCESS) return err;
    pieces.push_back(e);
  }
  cl_int err = clEnqueueMarkerWithWaitList(q, static_cast<cl_uint>(pieces.size()), pieces.data(), after);
  for (auto e : pieces) clReleaseEvent(e);
  return err;
}

const Policy eager("eager");

}  // namespace

TEST_CASE("divided launches give the undivided kernel's result, with factors within the range") {
  auto devs = pocl_devices();
  Context ctx(devs, eager);
  Queue q{ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
  Program prog(ctx, kSource);
  Kernel k(prog, "scale2");
  const size_t n = 3000;  // not a multiple of most factors
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = float(i % 50);
  Mem buf(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), x.data());
  set_args(k, buf.m);
  Split split{k, n, {}};
  CL_REQUIRE(set_divide()(k, &split_by_offset, 2, 5, &split));

  const int iterations = 20;
  std::vector<Event> events(iterations);
  for (int it = 0; it < iterations; ++it) {
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &events[it]));
    CL_REQUIRE(clEnqueueBarrierWithWaitList(q, 0, nullptr, nullptr));
  }
  std::vector<float> out(n);
  CL_REQUIRE(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n * sizeof(float), out.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i) {
    double ref = x[i];
    for (int it = 0; it < iterations; ++it) ref = 2.0 * ref + 1.0;
    REQUIRE(out[i] == Approx(ref).epsilon(1e-5));
  }
  std::map<cl_uint, int> used;
  for (auto& e : events) {
    cl_uint f = factor_of(e);
    CHECK((f == 0 || (f >= 2 && f <= 5)));
    ++used[f];
  }
  for (cl_uint f : split.seen) CHECK((f >= 2 && f <= 5));
  CHECK(used.size() >= 3);  // exploration tried several candidates
}

TEST_CASE("the factor converges to the clearly cheapest one and stays there") {
  auto devs = pocl_devices();
  Context ctx(devs, eager);
  Queue q{ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
  Program prog(ctx, kSource);
  Kernel k(prog, "spin"), piece(prog, "spin");
  const size_t n = 64;
  Mem out(ctx, CL_MEM_READ_WRITE, n * sizeof(int));
  // Known costs: the undivided kernel runs 24*base iterations, a factor-f
  // division f pieces of 24*base/f, except factor 3: 3 pieces of base/3.
  // Factor 3 is cheapest by far: a gap no machine noise bridges, nor the
  // latency its pieces add (PoCL's threads and StarPU's workers waking up,
  // the buffer moving between the two devices: factor 3 measured 8-75 ms on
  // a 2-core host, 24*base undivided about 150 ms). The strategy's own logic
  // is tested deterministically in divide_strategy_test.cpp.
  const int base = 100000;
  struct Synthetic {
    cl_kernel piece;
    cl_mem out;
    size_t n;
  } synth{piece, out, n};
  set_args(k, out.m, 24 * base);
  auto divide = [](cl_command_queue q, cl_uint factor, const cl_event before, cl_event* after,
                   void* user_data) -> cl_int {
    auto* s = static_cast<Synthetic*>(user_data);
    int iters = (factor == 3 ? base : 24 * base) / static_cast<int>(factor);
    std::vector<cl_event> pieces(factor);
    for (cl_uint p = 0; p < factor; ++p) {
      clSetKernelArg(s->piece, 0, sizeof(cl_mem), &s->out);
      clSetKernelArg(s->piece, 1, sizeof iters, &iters);
      cl_int err = clEnqueueNDRangeKernel(q, s->piece, 1, nullptr, &s->n, nullptr, 1, &before, &pieces[p]);
      if (err != CL_SUCCESS) return err;
    }
    cl_int err = clEnqueueMarkerWithWaitList(q, factor, pieces.data(), after);
    for (auto e : pieces) clReleaseEvent(e);
    return err;
  };
  CL_REQUIRE(set_divide()(k, divide, 1, 6, &synth));

  const int iterations = 48;
  std::vector<cl_uint> chosen;
  for (int it = 0; it < iterations; ++it) {
    Event e;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
    CL_REQUIRE(clWaitForEvents(1, &e.e));
    chosen.push_back(factor_of(e));
  }
  // 7 candidates (undivided, 1..6) explored twice each: 14 launches. After
  // that, factor 3 except for the periodic probes (one in 16 launches).
  int on_three = 0;
  std::string sequence;
  for (int it = 0; it < iterations; ++it) {
    sequence += std::to_string(chosen[it]) + (it + 1 < iterations ? " " : "");
    if (it >= 24) on_three += chosen[it] == 3;
  }
  INFO("factors chosen: " << sequence << "; in the last 24 launches " << on_three << " times 3");
  CHECK(on_three >= 18);
}

TEST_CASE("the enqueue returns before the division's sub-commands finish, so iterations pipeline") {
  auto devs = pocl_devices();
  Context ctx(devs, eager);
  Queue q{ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
  Program prog(ctx, kSource);
  Kernel k(prog, "spin");
  const size_t n = 64;
  Mem out(ctx, CL_MEM_READ_WRITE, n * sizeof(int));
  set_args(k, out.m, 3000000);  // tens of milliseconds per piece
  Split split{k, n, {}};
  CL_REQUIRE(set_divide()(k, &split_by_offset, 2, 2, &split));
  // A gate holds everything back: an enqueue that waited for its division
  // to finish would never return.
  cl_int err;
  cl_event gate = clCreateUserEvent(ctx, &err);
  CL_REQUIRE(err);
  std::vector<Event> events(4);
  for (auto& e : events)
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 1, &gate, &e));
  for (auto& e : events) CHECK(event_status(e) > CL_COMPLETE);
  CL_REQUIRE(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_REQUIRE(clWaitForEvents(1, &events.back().e));
  for (auto& e : events) CHECK(event_status(e) == CL_COMPLETE);
  clReleaseEvent(gate);
}

TEST_CASE("divide-function misuse: invalid ranges, errors and a missing `after` fail cleanly") {
  auto devs = pocl_devices();
  Context ctx(devs, eager);
  Queue q{ctx, nullptr};
  Program prog(ctx, kSource);
  Kernel k(prog, "scale2");
  const size_t n = 256;
  Mem buf(ctx, CL_MEM_READ_WRITE, n * sizeof(float));
  set_args(k, buf.m);
  Split split{k, n, {}};
  CHECK(set_divide()(k, &split_by_offset, 0, 4, &split) == CL_INVALID_VALUE);
  CHECK(set_divide()(k, &split_by_offset, 5, 4, &split) == CL_INVALID_VALUE);

  auto failing = [](cl_command_queue, cl_uint, const cl_event, cl_event*, void*) -> cl_int {
    return CL_OUT_OF_RESOURCES;
  };
  auto silent = [](cl_command_queue, cl_uint, const cl_event, cl_event*, void*) -> cl_int {
    return CL_SUCCESS;  // never sets `after`
  };
  for (auto fn : {+failing, +silent}) {
    CL_REQUIRE(set_divide()(k, fn, 1, 1, nullptr));
    // Run until the strategy has tried the divided form (it also explores
    // the undivided kernel).
    bool saw_failure = false;
    for (int i = 0; i < 6 && !saw_failure; ++i) {
      Event e;
      CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
      cl_int wait = clWaitForEvents(1, &e.e);
      if (factor_of(e) == 1) {
        CHECK(wait == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        CHECK(event_status(e) < 0);
        saw_failure = true;
      } else {
        CHECK(wait == CL_SUCCESS);
      }
    }
    CHECK(saw_failure);
  }
  CL_REQUIRE(set_divide()(k, nullptr, 0, 0, nullptr));  // removed: plain launches again
  Event e;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
  CL_REQUIRE(clWaitForEvents(1, &e.e));
  CHECK(factor_of(e) == 0);
}

// SOCL's convention, as SOCL 1.3's sources define it (StarPU's
// socl/src/cl_setkernelarg.c, cl_enqueuendrangekernel.c).
namespace socl {

// What one call of the divide function was given, and the `before` it got.
struct Call {
  cl_command_queue queue;
  cl_uint factor;
  void* data;
  cl_event before;  // retained
};

// Splits like split_by_offset; a factor listed in `slow` ends its run only
// when the test sets `gate` (a user event), so that run measures long.
struct Divider {
  Split split;
  std::vector<Call> calls;
  std::vector<cl_uint> slow;
  cl_event gate = nullptr;
};

cl_int CL_CALLBACK divide(cl_command_queue q, cl_uint factor, void* data, const cl_event before,
                          cl_event* after) {
  auto* d = static_cast<Divider*>(data);
  clRetainEvent(before);
  d->calls.push_back({q, factor, data, before});
  cl_event pieces_done;
  cl_int err = split_by_offset(q, factor, before, &pieces_done, &d->split);
  if (err != CL_SUCCESS) return err;
  const bool slow = std::find(d->slow.begin(), d->slow.end(), factor) != d->slow.end();
  cl_event waits[2] = {pieces_done, d->gate};
  err = clEnqueueMarkerWithWaitList(q, slow ? 2 : 1, waits, after);
  clReleaseEvent(pieces_done);
  return err;
}

cl_int CL_CALLBACK failing(cl_command_queue, cl_uint, void*, const cl_event, cl_event*) {
  return CL_OUT_OF_RESOURCES;
}

cl_ulong profiling(cl_event e, cl_profiling_info what) {
  cl_ulong t = 0;
  CL_REQUIRE(clGetEventProfilingInfo(e, what, sizeof t, &t, nullptr));
  return t;
}

}  // namespace socl

TEST_CASE("SOCL's divide function: factors 1 .. space-1 in turn, then the fastest, on any queue") {
  auto devs = pocl_devices();
  Context ctx(devs, eager);
  // SOCL divides on device queues as on context queues.
  for (cl_device_id queue_device : {static_cast<cl_device_id>(nullptr), devs[0]}) {
    Queue q{ctx, queue_device, CL_QUEUE_PROFILING_ENABLE};
    Program prog(ctx, kSource);
    Kernel k(prog, "scale2");
    const size_t n = 1024;
    std::vector<float> x(n, 1.0f);
    Mem buf(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), x.data());
    set_args(k, buf.m);
    socl::Divider d{{k, n, {}}, {}, {1, 3}, nullptr};
    // The values are the function and the data themselves; arg_size is
    // not read (SOCL's own example passes sizeof(void*)).
    const cl_uint space = 4;
    CL_REQUIRE(clSetKernelArg(k, static_cast<cl_uint>(-1), 0,
                              reinterpret_cast<const void*>(&socl::divide)));
    CL_REQUIRE(clSetKernelArg(k, static_cast<cl_uint>(-2), sizeof(void*), &space));
    CL_REQUIRE(clSetKernelArg(k, static_cast<cl_uint>(-3), 0, &d));

    const int launches = 6;
    std::vector<cl_uint> factors;
    for (int it = 0; it < launches; ++it) {
      cl_int err;
      d.gate = clCreateUserEvent(ctx, &err);
      CL_REQUIRE(err);
      Event e;
      CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
      // A slow factor's run lasts until the gate opens: a second, far past
      // what a fast run takes on a loaded host.
      REQUIRE(!d.calls.empty());
      if (std::find(d.slow.begin(), d.slow.end(), d.calls.back().factor) != d.slow.end())
        std::this_thread::sleep_for(std::chrono::seconds(1));
      CL_REQUIRE(clSetUserEventStatus(d.gate, CL_COMPLETE));
      CL_REQUIRE(clWaitForEvents(1, &e.e));
      clReleaseEvent(d.gate);
      REQUIRE(d.calls.size() == static_cast<size_t>(it + 1));
      const socl::Call& call = d.calls.back();
      factors.push_back(call.factor);
      CHECK(call.queue == q.q);
      CHECK(call.data == &d);
      CHECK(factor_of(e) == call.factor);
      // The enqueue's event stands for the run: from `before`'s end to the end.
      CHECK(socl::profiling(e, CL_PROFILING_COMMAND_START) ==
            socl::profiling(call.before, CL_PROFILING_COMMAND_END));
      CHECK(socl::profiling(e, CL_PROFILING_COMMAND_QUEUED) ==
            socl::profiling(e, CL_PROFILING_COMMAND_START));
      CHECK(socl::profiling(e, CL_PROFILING_COMMAND_END) >=
            socl::profiling(e, CL_PROFILING_COMMAND_START));
      clReleaseEvent(call.before);
    }
    // 1, 2, 3 explored; 2 (the one fast factor) kept.
    CHECK(factors == std::vector<cl_uint>{1, 2, 3, 2, 2, 2});
    // Each launch of the function ran the kernel once over the whole range.
    std::vector<float> out(n);
    CL_REQUIRE(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n * sizeof(float), out.data(), 0, nullptr,
                                   nullptr));
    double ref = 1.0;
    for (int it = 0; it < launches; ++it) ref = 2.0 * ref + 1.0;
    CHECK(out[0] == Approx(ref));
    CHECK(out[n - 1] == Approx(ref));
  }
}

TEST_CASE("SOCL's divide function: its error is the enqueue's, and a null function removes it") {
  auto devs = pocl_devices();
  Context ctx(devs, eager);
  Queue q{ctx, nullptr, 0};
  Program prog(ctx, kSource);
  Kernel k(prog, "scale2");
  const size_t n = 64;
  std::vector<float> x(n, 1.0f);
  Mem buf(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), x.data());
  set_args(k, buf.m);
  CL_REQUIRE(clSetKernelArg(k, static_cast<cl_uint>(-1), sizeof(void*),
                            reinterpret_cast<const void*>(&socl::failing)));
  cl_event e = nullptr;
  CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &e) ==
        CL_OUT_OF_RESOURCES);
  CHECK(e == nullptr);
  // -2 reads one cl_uint: a null value is refused, not read.
  CHECK(clSetKernelArg(k, static_cast<cl_uint>(-2), sizeof(cl_uint), nullptr) ==
        CL_INVALID_ARG_VALUE);
  // Any space is taken, the largest too: the statistics grow with the
  // factors tried, not with the space.
  const cl_uint huge = 0xFFFFFFFFu;
  CL_REQUIRE(clSetKernelArg(k, static_cast<cl_uint>(-2), sizeof huge, &huge));
  CL_REQUIRE(clSetKernelArg(k, static_cast<cl_uint>(-1), 0, nullptr));
  Event plain;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &plain));
  CL_REQUIRE(clWaitForEvents(1, &plain.e));
  std::vector<float> out(n);
  CL_REQUIRE(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n * sizeof(float), out.data(), 0, nullptr,
                                 nullptr));
  CHECK(out[0] == 3.0f);
}
