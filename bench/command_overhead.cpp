// Per-command overhead: the same command stream sent to a vendor device
// directly, to the same device through a Parasol device queue, through a
// Parasol context queue holding only that device, and (where Parasol has
// other devices) through a context queue over every Parasol device under
// the default policy (BENCH_POLICY names another), its buffers first put on
// that device. One process, one run, ratios against the vendor.
//
//   bench_command_overhead [vendor-platform-prefix]   (default: first vendor
//   platform behind Parasol's first device)
//   BENCH_COMMANDS [2000] commands per stream; BENCH_POLICY: the every-device
//   context's policy (CL_CONTEXT_SCHEDULER_PARASOL)
#include <algorithm>
#include <cstring>

#include "bench_util.h"

using namespace bench;

namespace {

const char* kSource =
    // NVIDIA's compiler emits invalid PTX for a kernel with an empty body: a
    // store the compiler cannot prove dead keeps it a real (if idle) kernel.
    "__kernel void empty_kernel(__global float* y, float a) { if (a < 0.0f) y[0] = a; }\n"
    // No data at all: nothing ties it to a device (a volatile store keeps
    // the body).
    "__kernel void idle(int a) { __local volatile int s[1]; if (a < 0) s[0] = a; }\n"
    "__kernel void tiny_saxpy(__global float* y, __global const float* x, float a) {\n"
    "  size_t i = get_global_id(0); y[i] = a * x[i] + y[i];\n"
    "}\n";

struct Setup {
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel empty, idle, tiny;
  cl_mem x, y;
};

Setup make(cl_context ctx, cl_device_id queue_device) {
  Setup s{};
  cl_int err;
  s.ctx = ctx;
  s.q = clCreateCommandQueue(ctx, queue_device, 0, &err);
  BENCH_CHECK(err);
  s.prog = build(ctx, kSource);
  s.empty = clCreateKernel(s.prog, "empty_kernel", &err);
  BENCH_CHECK(err);
  s.idle = clCreateKernel(s.prog, "idle", &err);
  BENCH_CHECK(err);
  s.tiny = clCreateKernel(s.prog, "tiny_saxpy", &err);
  BENCH_CHECK(err);
  s.x = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1024 * sizeof(float), nullptr, &err);
  s.y = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1024 * sizeof(float), nullptr, &err);
  float a = 2.0f;
  BENCH_CHECK(clSetKernelArg(s.empty, 0, sizeof(cl_mem), &s.y));
  BENCH_CHECK(clSetKernelArg(s.empty, 1, sizeof a, &a));
  const int one = 1;
  BENCH_CHECK(clSetKernelArg(s.idle, 0, sizeof one, &one));
  BENCH_CHECK(clSetKernelArg(s.tiny, 0, sizeof(cl_mem), &s.y));
  BENCH_CHECK(clSetKernelArg(s.tiny, 1, sizeof(cl_mem), &s.x));
  BENCH_CHECK(clSetKernelArg(s.tiny, 2, sizeof a, &a));
  BENCH_CHECK(clFinish(s.q));
  return s;
}

struct Figures {
  // microseconds per command
  double empty, idle, tiny, chain, write, evented_write, blocking_read, roundtrip;
};

Figures measure(Setup& s, int n) {
  Figures f{};
  const size_t one = 1, many = 1024;
  auto per = [n](double secs) { return secs * 1e6 / n; };
  f.empty = per(best_of(3, [&] {
    for (int i = 0; i < n; ++i)
      BENCH_CHECK(clEnqueueNDRangeKernel(s.q, s.empty, 1, nullptr, &one, nullptr, 0, nullptr, nullptr));
    BENCH_CHECK(clFinish(s.q));
  }));
  f.idle = per(best_of(3, [&] {
    for (int i = 0; i < n; ++i)
      BENCH_CHECK(clEnqueueNDRangeKernel(s.q, s.idle, 1, nullptr, &one, nullptr, 0, nullptr, nullptr));
    BENCH_CHECK(clFinish(s.q));
  }));
  f.tiny = per(best_of(3, [&] {
    for (int i = 0; i < n; ++i)
      BENCH_CHECK(clEnqueueNDRangeKernel(s.q, s.tiny, 1, nullptr, &many, nullptr, 0, nullptr, nullptr));
    BENCH_CHECK(clFinish(s.q));
  }));
  f.chain = per(best_of(3, [&] {
    cl_event prev = nullptr;
    for (int i = 0; i < n; ++i) {
      cl_event e;
      BENCH_CHECK(clEnqueueNDRangeKernel(s.q, s.tiny, 1, nullptr, &many, nullptr, prev ? 1 : 0,
                                         prev ? &prev : nullptr, &e));
      if (prev) clReleaseEvent(prev);
      prev = e;
    }
    BENCH_CHECK(clWaitForEvents(1, &prev));
    clReleaseEvent(prev);
  }));
  float small[16] = {};
  f.write = per(best_of(3, [&] {
    for (int i = 0; i < n; ++i)
      BENCH_CHECK(clEnqueueWriteBuffer(s.q, s.x, CL_FALSE, 0, sizeof small, small, 0, nullptr, nullptr));
    BENCH_CHECK(clFinish(s.q));
  }));
  // Each write returns an event, released at once (the application may
  // wait for it): the same stream as above with one more object per command.
  f.evented_write = per(best_of(3, [&] {
    for (int i = 0; i < n; ++i) {
      cl_event e;
      BENCH_CHECK(clEnqueueWriteBuffer(s.q, s.x, CL_FALSE, 0, sizeof small, small, 0, nullptr, &e));
      clReleaseEvent(e);
    }
    BENCH_CHECK(clFinish(s.q));
  }));
  int rt = std::max(1, n / 4);
  // Round trips: each read returns once its 64 bytes are on the host.
  f.blocking_read = best_of(3, [&] {
    for (int i = 0; i < rt; ++i)
      BENCH_CHECK(clEnqueueReadBuffer(s.q, s.x, CL_TRUE, 0, sizeof small, small, 0, nullptr, nullptr));
  }) * 1e6 / rt;
  f.roundtrip = best_of(3, [&] {
    for (int i = 0; i < rt; ++i) {
      BENCH_CHECK(clEnqueueNDRangeKernel(s.q, s.empty, 1, nullptr, &one, nullptr, 0, nullptr, nullptr));
      BENCH_CHECK(clFinish(s.q));
    }
  }) * 1e6 / rt;
  return f;
}

void release(Setup& s) {
  clReleaseMemObject(s.x);
  clReleaseMemObject(s.y);
  clReleaseKernel(s.empty);
  clReleaseKernel(s.idle);
  clReleaseKernel(s.tiny);
  clReleaseProgram(s.prog);
  clReleaseCommandQueue(s.q);
}

}  // namespace

int main(int argc, char** argv) {
  int n = env_int("BENCH_COMMANDS", 2000);
  cl_device_id pdev = parasol_device_of(argc > 1 ? argv[1] : nullptr);
  if (!pdev) return 1;
  auto pdevs = devices(find_platform("Parasol"));
  cl_device_id vdev = vendor_device_of(pdev);
  cl_int err;

  cl_context vctx = clCreateContext(nullptr, 1, &vdev, nullptr, nullptr, &err);
  BENCH_CHECK(err);
  Setup vendor = make(vctx, vdev);
  cl_context pctx = clCreateContext(nullptr, 1, &pdev, nullptr, nullptr, &err);
  BENCH_CHECK(err);
  Setup devq = make(pctx, pdev);
  Setup ctxq = make(pctx, nullptr);
  // Every device: the policy may place each command anywhere. The buffers
  // start on pdev (a kernel on its device queue), where a data-aware policy
  // keeps commands that use them while its models agree.
  const bool mixed = pdevs.size() > 1;
  cl_context mctx = nullptr;
  Setup mixq{};
  if (mixed) {
    const std::string policy = env_string("BENCH_POLICY", "");
    const cl_context_properties props[] = {
        CL_CONTEXT_SCHEDULER_PARASOL, reinterpret_cast<cl_context_properties>(policy.c_str()), 0};
    mctx = clCreateContext(policy.empty() ? nullptr : props,
                           static_cast<cl_uint>(pdevs.size()), pdevs.data(), nullptr, nullptr,
                           &err);
    BENCH_CHECK(err);
    mixq = make(mctx, nullptr);
    cl_command_queue on_pdev = clCreateCommandQueue(mctx, pdev, 0, &err);
    BENCH_CHECK(err);
    const size_t all = 1024;
    BENCH_CHECK(clEnqueueNDRangeKernel(on_pdev, mixq.tiny, 1, nullptr, &all, nullptr, 0, nullptr,
                                       nullptr));
    BENCH_CHECK(clFinish(on_pdev));
    clReleaseCommandQueue(on_pdev);
  }

  // Interleaved rounds, so that machine noise hits all three alike.
  Figures v{1e30, 1e30, 1e30, 1e30, 1e30, 1e30, 1e30, 1e30}, d = v, c = v, m = v;
  auto keep_best = [](Figures& best, const Figures& f) {
    best.empty = std::min(best.empty, f.empty);
    best.idle = std::min(best.idle, f.idle);
    best.tiny = std::min(best.tiny, f.tiny);
    best.chain = std::min(best.chain, f.chain);
    best.write = std::min(best.write, f.write);
    best.evented_write = std::min(best.evented_write, f.evented_write);
    best.blocking_read = std::min(best.blocking_read, f.blocking_read);
    best.roundtrip = std::min(best.roundtrip, f.roundtrip);
  };
  for (int round = 0; round < 3; ++round) {
    keep_best(v, measure(vendor, n));
    keep_best(d, measure(devq, n));
    keep_best(c, measure(ctxq, n));
    if (mixed) keep_best(m, measure(mixq, n));
  }

  std::printf("Per-command overhead on %s (%s), %d commands, best of 9 runs, microseconds per command\n\n",
              device_name(pdev).c_str(), vendor_of(pdev).c_str(), n);
  std::printf("| command stream | vendor direct | Parasol device queue | ratio | Parasol context queue | ratio |%s\n",
              mixed ? " context queue, every device | ratio |" : "");
  std::printf("|---|---|---|---|---|---|%s\n", mixed ? "---|---|" : "");
  auto row = [mixed](const char* name, double vv, double dd, double cc, double mm) {
    std::printf("| %s | %.2f | %.2f | %.2fx | %.2f | %.2fx |", name, vv, dd, dd / vv, cc, cc / vv);
    if (mixed) std::printf(" %.2f | %.2fx |", mm, mm / vv);
    std::printf("\n");
  };
  row("empty kernel (enqueue N, finish)", v.empty, d.empty, c.empty, m.empty);
  row("empty kernel without data (an int argument)", v.idle, d.idle, c.idle, m.idle);
  row("tiny kernel, 1024 items", v.tiny, d.tiny, c.tiny, m.tiny);
  row("dependent chain (event wait lists)", v.chain, d.chain, c.chain, m.chain);
  row("small write, 64 B, non-blocking", v.write, d.write, c.write, m.write);
  row("empty kernel + clFinish each", v.roundtrip, d.roundtrip, c.roundtrip, m.roundtrip);
  row("small write with an event", v.evented_write, d.evented_write, c.evented_write,
      m.evented_write);
  row("blocking read, 64 B", v.blocking_read, d.blocking_read, c.blocking_read, m.blocking_read);

  release(vendor);
  release(devq);
  release(ctxq);
  if (mixed) {
    release(mixq);
    clReleaseContext(mctx);
  }
  clReleaseContext(vctx);
  clReleaseContext(pctx);
  return 0;
}
