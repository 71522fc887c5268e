// One stream of commands on one device queue, nothing else: the program to
// run under callgrind to count what a launch costs Parasol per command
// (docs/benchmarks.md), where bench_command_overhead mixes several streams
// and queues. Prints microseconds per command (best of 5 rounds).
//
//   bench_launch_stream [platform-prefix]   (default: Parasol)
// Environment: BENCH_COMMANDS [4000] per round, BENCH_STREAM [write], kernel
// (a 16-item kernel with two arguments, set once) or chain (that kernel, each
// returning an event the next one waits on), evented-write (the write,
// each returning an event released at once), empty (a kernel of one unused
// int argument, set once), tiny (the 16-item kernel, its buffer argument set
// before every launch, rotating over 4 buffers) or read (a blocking 64-byte
// read), BENCH_DEVICE: the
// first device whose name contains it (default: the platform's first),
// BENCH_QUEUE [device] or context: a context queue (Parasol's) over every
// device whose name contains BENCH_DEVICE, placed by the context's policy.
// BENCH_THREAD_STATS set: every thread's CPU time and context switches at
// the end (bench/thread_stats.h). BENCH_SPIN_NS [0]: the enqueuing thread
// spins that long before each command (on the vendor directly: how its time
// grows with what a layer above it adds per command; docs/benchmarks.md).
#include "bench_util.h"
#include "thread_stats.h"

using namespace bench;

int main(int argc, char** argv) {
  const std::string platform = argc > 1 ? argv[1] : "Parasol";
  const int n = env_int("BENCH_COMMANDS", 4000);
  const std::string stream = env_string("BENCH_STREAM", "write");
  const bool chain = stream == "chain", rotating = stream == "tiny";
  const bool empty = stream == "empty", kernels = chain || rotating || stream == "kernel";
  const bool evented = stream == "evented-write", reads = stream == "read";
  const auto spin = std::chrono::nanoseconds(env_int("BENCH_SPIN_NS", 0));
  const int flush_every = env_int("BENCH_FLUSH_EVERY", 0);
  cl_platform_id p = find_platform(platform);
  auto devs = devices(p);
  if (devs.empty()) {
    std::fprintf(stderr, "no device on platform %s\n", platform.c_str());
    return 1;
  }
  cl_device_id dev = devs[0];
  const std::string want = env_string("BENCH_DEVICE", "");
  std::vector<cl_device_id> matching;
  for (cl_device_id d : devs)
    if (want.empty() || device_name(d).find(want) != std::string::npos) matching.push_back(d);
  if (!matching.empty()) dev = matching[0];
  const bool context_queue = env_string("BENCH_QUEUE", "device") == "context";
  if (!context_queue) matching = {dev};
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, static_cast<cl_uint>(matching.size()),
                                   matching.data(), nullptr, nullptr, &err);
  BENCH_CHECK(err);
  cl_command_queue q = clCreateCommandQueue(ctx, context_queue ? nullptr : dev, 0, &err);
  BENCH_CHECK(err);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, nullptr, &err);
  BENCH_CHECK(err);
  cl_program prog = build(
      ctx,
      "__kernel void add(__global float* x, float a) { x[get_global_id(0)] += a; }\n"
      // A volatile store the compiler cannot drop keeps the body (NVIDIA's
      // compiler emits invalid PTX for an empty one).
      "__kernel void idle(int a) { __local volatile int s[1]; if (a < 0) s[0] = a; }\n");
  cl_kernel k = clCreateKernel(prog, "add", &err);
  BENCH_CHECK(err);
  cl_kernel idle = clCreateKernel(prog, "idle", &err);
  BENCH_CHECK(err);
  const float a = 1.0f;
  const int one = 1;
  BENCH_CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
  BENCH_CHECK(clSetKernelArg(k, 1, sizeof a, &a));
  BENCH_CHECK(clSetKernelArg(idle, 0, sizeof one, &one));
  // The buffers on the device first: the stream then runs on the direct path.
  const size_t items = 16;
  cl_mem bufs[4];
  for (cl_mem& b : bufs) {
    b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, nullptr, &err);
    BENCH_CHECK(err);
    BENCH_CHECK(clSetKernelArg(k, 0, sizeof b, &b));
    BENCH_CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, nullptr, 0, nullptr, nullptr));
  }
  BENCH_CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
  BENCH_CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, nullptr, 0, nullptr, nullptr));
  BENCH_CHECK(clFinish(q));

  float small[16] = {};
  std::vector<double> enqueue_secs;
  double secs = best_of(5, [&] {
    const auto t_round = std::chrono::steady_clock::now();
    cl_event prev = nullptr;
    for (int i = 0; i < n; ++i) {
      if (spin.count() > 0)
        for (auto t0 = std::chrono::steady_clock::now(); std::chrono::steady_clock::now() - t0 < spin;) {
        }
      if (chain) {
        cl_event e;
        BENCH_CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, nullptr, prev ? 1 : 0,
                                           prev ? &prev : nullptr, &e));
        if (prev) clReleaseEvent(prev);
        prev = e;
      } else if (kernels) {
        if (rotating) BENCH_CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &bufs[i % 4]));
        BENCH_CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, nullptr, 0, nullptr, nullptr));
      } else if (empty) {
        const size_t single = 1;
        BENCH_CHECK(clEnqueueNDRangeKernel(q, idle, 1, nullptr, &single, nullptr, 0, nullptr, nullptr));
      } else if (reads) {
        BENCH_CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof small, small, 0, nullptr, nullptr));
      } else {
        cl_event e = nullptr;
        BENCH_CHECK(clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, sizeof small, small, 0, nullptr,
                                         evented ? &e : nullptr));
        if (e) clReleaseEvent(e);
      }
      if (flush_every > 0 && (i + 1) % flush_every == 0) clFlush(q);
    }
    if (prev) clReleaseEvent(prev);
    enqueue_secs.push_back(seconds_since(t_round));
    BENCH_CHECK(clFinish(q));
  });
  std::printf("%s on %s%s (%s): %.3f us per command, %d commands, best of 5\n",
              chain      ? "16-item kernel chain"
              : rotating ? "16-item kernel, its buffer set before each launch"
              : kernels  ? "16-item kernel"
              : empty    ? "1-item kernel of one unused int argument"
              : evented  ? "64-byte write with an event"
              : reads    ? "blocking 64-byte read"
                         : "64-byte write",
              context_queue ? "a context queue over " : "", device_name(dev).c_str(),
              platform.c_str(), secs * 1e6 / n, n);
  if (std::getenv("BENCH_THREAD_STATS")) {
    std::printf("enqueuing alone, per command, each round: ");
    for (double e : enqueue_secs) std::printf("%.3f ", e * 1e6 / n);
    std::printf("us\n");
    print_thread_stats(stdout);
  }
  clReleaseKernel(k);
  clReleaseKernel(idle);
  for (cl_mem b : bufs) clReleaseMemObject(b);
  clReleaseProgram(prog);
  clReleaseMemObject(buf);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}
