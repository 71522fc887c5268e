// HEFT (StarPU's dmda) with warm performance models: data stays where it is
// used, and the faster device receives more of the work.
#include <CL/cl_parasol.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

const char* kSaxpyLoop =
    "__kernel void saxpy_loop(__global float* y, __global const float* x, float a, int reps) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float v = y[i];\n"
    "  for (int r = 0; r < reps; ++r) v = a * x[i] + v * 0.5f;\n"
    "  y[i] = v;\n"
    "}\n";

const Policy heft("heft");

cl_ulong bytes_moved(const std::vector<cl_device_id>& devs) {
  cl_ulong total = 0;
  for (auto d : devs) {
    auto s = device_stats(d);
    total += s.bytes_in + s.bytes_out;
  }
  return total;
}

// Two PoCL devices of one machine: alike (core::Device::alike), as two GPUs
// of one model are; an out-of-order context queue over them under heft.
struct TwoAlike {
  std::vector<cl_device_id> devs = first_two(pocl_devices());
  Context ctx{devs, heft};
  Queue q{ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};

  static std::vector<cl_device_id> first_two(std::vector<cl_device_id> d) {
    REQUIRE(d.size() >= 2);
    d.resize(2);
    return d;
  }
};

// saxpy_loop on n floats of x = 1, y = 0, its arguments set: y = a * x + y / 2, reps times a launch.
struct SaxpyLoop {
  Program prog;
  Kernel k{prog, "saxpy_loop"};
  std::vector<float> x, y;
  Mem bx, by;
  SaxpyLoop(cl_context ctx, size_t n, int reps, float a = 1.0f)
      : prog(ctx, kSaxpyLoop),
        x(n, 1.0f),
        y(n, 0.0f),
        bx(ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, n * sizeof(float), x.data()),
        by(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), y.data()) {
    set_args(k, by.m, bx.m, a, reps);
  }
};

}  // namespace

TEST_CASE("under heft with warm models a chain reusing its buffers stays on one device") {
  auto devs = pocl_devices();
  REQUIRE(devs.size() >= 2);
  Context ctx(devs, heft);
  Queue q{ctx, nullptr};  // in-order context queue
  const size_t n = 1 << 18;
  const float a = 1.0f;
  const int reps = 8;
  SaxpyLoop s(ctx, n, reps, a);
  auto& [prog, k, x, y, bx, by] = s;

  // Warm-up: enough runs for StarPU to calibrate this footprint on every device.
  for (int i = 0; i < 40; ++i)
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  CL_REQUIRE(clFinish(q));

  cl_ulong before = bytes_moved(devs);
  std::vector<Event> events(20);
  for (auto& e : events)
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
  CL_REQUIRE(clFinish(q));
  cl_ulong moved = bytes_moved(devs) - before;

  std::map<cl_device_id, int> placed;
  for (auto& e : events) ++placed[ran_on(e)];
  INFO("devices used: " << placed.size() << ", bytes moved: " << moved);
  CHECK(placed.size() == 1);
  CHECK(moved <= n * sizeof(float));  // at most one migration of y

  // Whatever the placement, the values are right: y = a*x + y/2, 60 times (8 reps each).
  double ref = 0.0;
  for (int i = 0; i < 60 * reps; ++i) ref = 1.0 * 1.0 + ref * 0.5;
  CL_REQUIRE(clEnqueueReadBuffer(q, by, CL_TRUE, 0, n * sizeof(float), y.data(), 0, nullptr, nullptr));
  CHECK(y[0] == Approx(ref).epsilon(1e-5));
  CHECK(y[n - 1] == Approx(ref).epsilon(1e-5));
}

TEST_CASE("under heft with warm models the faster device receives more of the work") {
  // PoCL runs natively; Oclgrind simulates every instruction, orders of
  // magnitude slower.
  auto pocl = pocl_devices();
  auto grind = oclgrind_devices();
  REQUIRE(!pocl.empty());
  REQUIRE(!grind.empty());
  std::vector<cl_device_id> devs{pocl[0], grind[0]};
  Context ctx(devs, heft);
  Queue q{ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
  Program prog(ctx, kSaxpyLoop);
  Kernel k(prog, "saxpy_loop");
  const size_t n = 2048;
  const int buffers = 40;
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  Mem bx(ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, n * sizeof(float), x.data());
  std::vector<std::unique_ptr<Mem>> ys;
  for (int b = 0; b < buffers; ++b)
    ys.push_back(std::make_unique<Mem>(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), y.data()));
  float a = 1.0f;
  int reps = 4;

  auto run_round = [&](std::vector<Event>* events) {
    for (int b = 0; b < buffers; ++b) {
      set_args(k, ys[b]->m, bx.m, a, reps);
      CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr,
                                        events ? &(*events)[b] : nullptr));
    }
    CL_REQUIRE(clFinish(q));
  };
  // Which device is faster is measured, not assumed (PoCL beats Oclgrind; a
  // GPU may beat PoCL): mean busy time per command on each device alone.
  // Each device measured on a device queue of its own, after one launch
  // that pays for its first-launch costs (PoCL compiles a kernel's
  // work-group function at its first launch).
  std::vector<std::unique_ptr<Queue>> alone;
  for (auto d : devs) alone.push_back(std::make_unique<Queue>(ctx, d));
  set_args(k, ys[0]->m, bx.m, a, reps);
  auto run_alone = [&](int times) {
    for (auto& dq : alone) {
      for (int i = 0; i < times; ++i)
        CL_REQUIRE(clEnqueueNDRangeKernel(*dq, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
      CL_REQUIRE(clFinish(*dq));
    }
  };
  run_alone(1);
  auto before0 = device_stats(devs[0]), before1 = device_stats(devs[1]);
  run_alone(3);
  auto after0 = device_stats(devs[0]), after1 = device_stats(devs[1]);
  run_round(nullptr);  // calibration
  run_round(nullptr);
  std::vector<Event> events(buffers);
  run_round(&events);
  int on0 = 0;
  for (auto& e : events) on0 += ran_on(e) == devs[0];
  int on1 = buffers - on0;
  auto mean = [](const cl_parasol_device_stats& a, const cl_parasol_device_stats& b) {
    return b.commands > a.commands ? double(b.busy_ns - a.busy_ns) / double(b.commands - a.commands)
                                   : 1e300;
  };
  double t0 = mean(before0, after0), t1 = mean(before1, after1);
  INFO(on0 << " commands on " << device_name(devs[0]) << " (" << t0 * 1e-3 << " us each), " << on1
           << " on " << device_name(devs[1]) << " (" << t1 * 1e-3 << " us each)");
  CHECK((t0 < t1 ? on0 : on1) > buffers * 3 / 4);  // the faster one got most of the work
}

TEST_CASE_METHOD(TwoAlike, "under heft two alike devices share blocks that each have data of their own") {
  // Two PoCL devices of one machine are alike (two GPUs of one model would
  // be). Each block's data stays where it first ran, so the whole run keeps
  // the spread of its first burst: first on cold models (a kernel no earlier
  // run has seen, placed by schedulers/calibration_guard.h), then on the
  // models that burst warmed, with new buffers (schedulers/alike_placement.h).
  Program prog(ctx, fresh_source_tag() + kSaxpyLoop);
  Kernel k(prog, "saxpy_loop");
  const size_t n = 1 << 16;
  const int blocks = 8, rounds = 6;
  float a = 1.0f;
  int reps = 16;

  auto run = [&](const char* models) {
    std::vector<float> x(n, 1.0f), y(n, 0.0f);
    std::vector<std::unique_ptr<Mem>> xs, ys;
    for (int b = 0; b < blocks; ++b) {
      xs.push_back(std::make_unique<Mem>(ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, n * sizeof(float), x.data()));
      ys.push_back(std::make_unique<Mem>(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), y.data()));
    }
    std::vector<std::vector<Event>> events(rounds, std::vector<Event>(blocks));
    for (int r = 0; r < rounds; ++r)
      for (int b = 0; b < blocks; ++b) {
        set_args(k, ys[b]->m, xs[b]->m, a, reps);
        cl_event prev = r ? events[r - 1][b].e : nullptr;
        CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, prev ? 1 : 0,
                                          prev ? &prev : nullptr, &events[r][b]));
      }
    CL_REQUIRE(clFinish(q));
    std::string where;
    int on0 = 0;
    for (int r = 0; r < rounds; ++r) {
      for (int b = 0; b < blocks; ++b) where += ran_on(events[r][b]) == devs[0] ? '0' : '1';
      where += ' ';
    }
    for (int b = 0; b < blocks; ++b) on0 += ran_on(events[rounds - 1][b]) == devs[0];
    INFO(models << " models; device of each block, round by round: " << where);
    CHECK(on0 >= 2);
    CHECK(on0 <= blocks - 2);
    // Right values wherever they ran: y = a*x + y/2, rounds * reps times.
    double ref = 0.0;
    for (int i = 0; i < rounds * reps; ++i) ref = 1.0 + ref * 0.5;
    for (int b = 0; b < blocks; ++b) {
      CL_REQUIRE(clEnqueueReadBuffer(q, *ys[b], CL_TRUE, 0, n * sizeof(float), y.data(), 0, nullptr, nullptr));
      CHECK(y[n - 1] == Approx(ref).epsilon(1e-5));
    }
  };
  run("cold");
  run("warm");
}

TEST_CASE_METHOD(TwoAlike, "under heft two alike devices share blocks that each end before the next comes") {
  // An application that starts its blocks one at a time, each done before
  // the next is enqueued: no alike device is busier at any launch, and the
  // blocks still alternate (schedulers/alike_placement.h), then stay. The
  // first launches, on blocks of their own, calibrate the kernel's model
  // (a, b: its first and second device).
  Program prog(ctx, fresh_source_tag() + kSaxpyLoop);
  Kernel k(prog, "saxpy_loop");
  const size_t n = 1 << 14;
  const int calibration = 6, blocks = 8;
  float a = 1.0f;
  int reps = 4;
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  std::vector<std::unique_ptr<Mem>> xs, ys;
  std::string where;
  for (int b = 0; b < calibration; ++b) {
    Mem bx(ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, n * sizeof(float), x.data());
    Mem by(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), y.data());
    set_args(k, by.m, bx.m, a, reps);
    Event e;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
    CL_REQUIRE(clWaitForEvents(1, &e.e));
    where += ran_on(e) == devs[0] ? 'a' : 'b';
  }
  where += ' ';
  for (int b = 0; b < blocks; ++b) {
    xs.push_back(std::make_unique<Mem>(ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, n * sizeof(float), x.data()));
    ys.push_back(std::make_unique<Mem>(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), y.data()));
  }
  int on0 = 0;
  for (int round = 0; round < 2; ++round)
    for (int b = 0; b < blocks; ++b) {
      set_args(k, ys[b]->m, xs[b]->m, a, reps);
      Event e;
      CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
      CL_REQUIRE(clWaitForEvents(1, &e.e));
      where += ran_on(e) == devs[0] ? '0' : '1';
      if (round == 1) on0 += ran_on(e) == devs[0];
    }
  INFO("device of each launch: " << where);
  // The calibration's launches alternate too (schedulers/calibration_guard.h).
  CHECK(std::count(where.begin(), where.begin() + calibration, 'a') >= 2);
  CHECK(std::count(where.begin(), where.begin() + calibration, 'b') >= 2);
  CHECK(on0 >= 3);
  CHECK(on0 <= blocks - 3);
  double ref = 0.0;
  for (int i = 0; i < 2 * reps; ++i) ref = 1.0 + ref * 0.5;
  for (int b = 0; b < blocks; ++b) {
    CL_REQUIRE(clEnqueueReadBuffer(q, *ys[b], CL_TRUE, 0, n * sizeof(float), y.data(), 0, nullptr, nullptr));
    CHECK(y[n - 1] == Approx(ref).epsilon(1e-5));
  }
}

TEST_CASE_METHOD(TwoAlike, "under heft on alike devices blocks stay with their output while a shared input moves") {
  // nbody's shape: each step every block reads positions one kernel rewrote
  // on one device and writes an output of its own. The blocks stay where
  // their outputs are; the positions are copied to them.
  Program prog(ctx, fresh_source_tag() +
                        "__kernel void advance(__global float* out, __global const float* in, int reps) {\n"
                        "  size_t i = get_global_id(0);\n"
                        "  float v = out[i];\n"
                        "  for (int r = 0; r < reps; ++r) v = in[i] + v * 0.5f;\n"
                        "  out[i] = v;\n"
                        "}\n"
                        "__kernel void bump(__global float* p) { p[get_global_id(0)] += 1.0f; }\n");
  Kernel advance(prog, "advance"), bump(prog, "bump");
  const size_t n = 1 << 16;
  const int blocks = 8, steps = 8;
  int reps = 16;
  std::vector<float> zero(n, 0.0f);
  Mem shared(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), zero.data());
  std::vector<std::unique_ptr<Mem>> outs;
  for (int b = 0; b < blocks; ++b)
    outs.push_back(std::make_unique<Mem>(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), zero.data()));
  std::vector<std::vector<Event>> events(steps, std::vector<Event>(blocks));
  std::vector<Event> bumps(steps);
  for (int s = 0; s < steps; ++s) {
    // The shared input is rewritten on one device, after every block read it.
    std::vector<cl_event> before;
    if (s > 0)
      for (auto& e : events[s - 1]) before.push_back(e.e);
    set_args(bump, shared.m);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, bump, 1, nullptr, &n, nullptr, (cl_uint)before.size(),
                                      before.empty() ? nullptr : before.data(), &bumps[s]));
    for (int b = 0; b < blocks; ++b) {
      set_args(advance, outs[b]->m, shared.m, reps);
      cl_event wait = bumps[s];
      CL_REQUIRE(clEnqueueNDRangeKernel(q, advance, 1, nullptr, &n, nullptr, 1, &wait, &events[s][b]));
    }
  }
  CL_REQUIRE(clFinish(q));
  std::string where;
  for (int s = 0; s < steps; ++s) {
    for (int b = 0; b < blocks; ++b) where += ran_on(events[s][b]) == devs[0] ? '0' : '1';
    where += ' ';
  }
  INFO("device of each block, step by step: " << where);
  for (int s = steps / 2; s < steps; ++s) {
    int on0 = 0;
    for (int b = 0; b < blocks; ++b) on0 += ran_on(events[s][b]) == devs[0];
    CHECK(on0 >= 2);
    CHECK(on0 <= blocks - 2);
  }
  // Right values wherever they ran: in = s + 1 at step s, out = in + out/2, reps times a step.
  double ref = 0.0;
  for (int s = 0; s < steps; ++s)
    for (int r = 0; r < reps; ++r) ref = (s + 1) + ref * 0.5;
  std::vector<float> out(n);
  for (int b = 0; b < blocks; ++b) {
    CL_REQUIRE(clEnqueueReadBuffer(q, *outs[b], CL_TRUE, 0, n * sizeof(float), out.data(), 0, nullptr, nullptr));
    CHECK(out[n - 1] == Approx(ref).epsilon(1e-5));
  }
}

#if PARASOL_TEST_HAVE_NATIVE  // built with the native device's compiler
TEST_CASE("under heft a chain of tiny kernels over PoCL and the native device settles on one device "
          "and moves nothing") {
  // The native device is reached through StarPU only, and its model of a
  // tiny kernel beats PoCL's while each of its commands pays StarPU's path
  // (schedulers/starpu_path_cost.h). Weighing that path wrongly makes the
  // calibration guard call the data's PoCL device stranded against the
  // native device while the native device is held back: every command then
  // moves the buffer to the other PoCL device and back.
  auto devs = pocl_devices();
  REQUIRE(devs.size() >= 2);
  auto native = native_devices();
  REQUIRE(native.size() == 1);
  devs.push_back(native[0]);
  Context ctx(devs, heft);
  Queue q{ctx, nullptr};  // in-order context queue
  // One work-item: PoCL's launch takes tens of times the native device's,
  // past the guard's "stranded" ratio.
  const size_t n = 1;
  SaxpyLoop s(ctx, n, 1);
  auto& [prog, k, x, y, bx, by] = s;
  int runs = 0;
  for (; runs < 60; ++runs)  // calibration on every device, then the policy's choice
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  CL_REQUIRE(clFinish(q));

  const cl_ulong before = bytes_moved(devs);
  std::vector<Event> events(200);
  for (auto& e : events) {
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
    ++runs;
  }
  CL_REQUIRE(clFinish(q));
  const cl_ulong moved = bytes_moved(devs) - before;
  CL_REQUIRE(clEnqueueReadBuffer(q, by, CL_TRUE, 0, n * sizeof(float), y.data(), 0, nullptr, nullptr));
  // y = 1 * x + 0.5 * y, runs times from 0: 2 * (1 - 0.5^runs).
  const float want = 2.0f * (1.0f - std::pow(0.5f, float(runs)));
  for (float v : y) REQUIRE(std::fabs(v - want) < 1e-5f);

  std::map<cl_device_id, int> placed;
  for (auto& e : events) ++placed[ran_on(e)];
  INFO("devices used: " << placed.size() << ", bytes moved: " << moved);
  CHECK(placed.size() == 1);
  CHECK(moved <= 2 * n * sizeof(float));  // at most one migration of y (and of x)
}
#endif
