// Throughput of whole workloads: the same blocks of work sent to
//   - each selected vendor device directly (its own platform, one queue),
//   - the best of those through Parasol (one-device context, device queue),
//   - with several devices, the application's own round-robin split over them
//     (Parasol device queues, and the vendor's own when one platform has them all),
//   - all selected devices through Parasol (one out-of-order context queue),
//     under each scheduling policy.
// One process, interleaved rounds (machine noise hits every configuration
// alike), best of the rounds (and, beside it, the median round against the
// same vendor's median); markdown tables with ratios against the best single
// vendor device. Figures, never asserts: a wrong result is reported in the
// table's last column.
//
//   bench_throughput [workload...]   blackscholes sgemm nbody saxpy-transfers saxpy-resident
//                                    (default: all)
// Environment (defaults in brackets):
//   BENCH_VENDORS     vendor platform name prefixes, comma separated [every non-Oclgrind vendor]
//   BENCH_POLICIES    context-queue policies [eager,heft,dmdas,ws,lws,random,prio]
//   BENCH_BLOCKS [8]  BENCH_ROUNDS [5]  BENCH_WARMUP [3] (untimed iterations, per configuration)
//   BENCH_BS_N [262144] BENCH_BS_ITER [4]       Black-Scholes options, iterations per timed run
//   BENCH_SGEMM_N [256] BENCH_SGEMM_ITER [2]     matrix size
//   BENCH_NBODY_N [2048] BENCH_NBODY_ITER [2]    bodies, steps
//   BENCH_SAXPY_N [1048576] BENCH_SAXPY_ITER [4] floats per vector
//   BENCH_RESIDENT_ITER [4 x BENCH_SAXPY_ITER]   resident saxpy's kernels per block and timed run
//   BENCH_HANG_S [180] a configuration making no progress this long aborts the run, named
//   BENCH_HANG_STACKS  set: that abort first prints every thread's stack (bench/thread_stacks.h)
//   BENCH_ROUND_TIMES  set: every timed round's milliseconds per configuration, on stderr (the
//                      tables keep the best round; this shows how far the others swing)
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "bench_util.h"
#include "thread_stacks.h"

extern "C" {
#include "blackscholes/blackscholes_kernels.h"
#include "matmul/matmul_kernels.h"
#include "nbody/nbody_kernels.h"
}

using namespace bench;

namespace {

const char* kSaxpySource =
    "__kernel void saxpy(__global float* y, __global const float* x, float a, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Where a configuration sends its blocks: block b goes to queues[b % size].
struct Target {
  std::string label;
  cl_context ctx = nullptr;
  std::vector<cl_command_queue> queues;
  std::vector<cl_device_id> parasol_devices;  // empty for vendor direct
  cl_command_queue queue(size_t block) const { return queues[block % queues.size()]; }
  void finish() const {
    for (auto q : queues) BENCH_CHECK(clFinish(q));
  }
};

// The order of one block's commands, by events: valid on in-order and
// out-of-order queues alike.
struct Chain {
  cl_event last = nullptr;
  cl_uint count() const { return last ? 1 : 0; }
  const cl_event* list() const { return last ? &last : nullptr; }
  void then(cl_event e) {
    if (last) clReleaseEvent(last);
    last = e;
  }
  ~Chain() {
    if (last) clReleaseEvent(last);
  }
};

cl_mem make_buffer(cl_context ctx, cl_mem_flags flags, size_t bytes, const void* host = nullptr) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, flags | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                            const_cast<void*>(host), &err);
  BENCH_CHECK(err);
  return m;
}

cl_kernel make_kernel(cl_program p, const char* name) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  BENCH_CHECK(err);
  return k;
}

template <typename... Args>
void set_args(cl_kernel k, const Args&... args) {
  cl_uint i = 0;
  auto one = [&](size_t size, const void* value) { BENCH_CHECK(clSetKernelArg(k, i++, size, value)); };
  (one(sizeof(Args), &args), ...);
}

// One workload set up on one target: iterate() enqueues `iterations` rounds
// of every block and waits for the results on the host; check() compares the
// latest results with the CPU reference ("ok" or what is wrong).
struct Run {
  virtual ~Run() = default;
  virtual void iterate(int iterations) = 0;
  virtual std::string check() = 0;
};

std::string mismatches(size_t bad, size_t total) {
  if (!bad) return "ok";
  return "WRONG: " + std::to_string(bad) + " of " + std::to_string(total);
}

// ---- Black-Scholes -------------------------------------------------------

struct BlackScholesRun : Run {
  const Target& t;
  size_t n;
  unsigned blocks;
  cl_program prog;
  cl_kernel k;
  std::vector<float> s, x, tt, call, put;
  struct Block {
    size_t first, count;
    cl_mem s, x, t, call, put;
    Chain chain;
  };
  std::vector<Block> bl;
  unsigned done = 0;  // iterations run, for the rate of the latest

  BlackScholesRun(const Target& target, size_t n_, unsigned blocks_)
      : t(target), n(n_), blocks(blocks_), s(n), x(n), tt(n), call(n), put(n), bl(blocks_) {
    prog = build(t.ctx, kBlackScholesSource);
    k = make_kernel(prog, "black_scholes");
    for (size_t i = 0; i < n; ++i) blackscholes_input(i, &s[i], &x[i], &tt[i]);
    for (unsigned b = 0; b < blocks; ++b) {
      auto& B = bl[b];
      B.first = n * b / blocks;
      B.count = n * (b + 1) / blocks - B.first;
      size_t bytes = B.count * sizeof(float);
      B.s = make_buffer(t.ctx, CL_MEM_READ_ONLY, bytes, &s[B.first]);
      B.x = make_buffer(t.ctx, CL_MEM_READ_ONLY, bytes, &x[B.first]);
      B.t = make_buffer(t.ctx, CL_MEM_READ_ONLY, bytes, &tt[B.first]);
      B.call = make_buffer(t.ctx, CL_MEM_WRITE_ONLY, bytes);
      B.put = make_buffer(t.ctx, CL_MEM_WRITE_ONLY, bytes);
    }
  }
  ~BlackScholesRun() override {
    for (auto& B : bl)
      for (cl_mem m : {B.s, B.x, B.t, B.call, B.put}) clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(prog);
  }
  void iterate(int iterations) override {
    for (int it = 0; it < iterations; ++it, ++done) {
      float r = blackscholes_rate(done), v = BLACKSCHOLES_VOLATILITY;
      for (unsigned b = 0; b < blocks; ++b) {
        auto& B = bl[b];
        cl_uint count = (cl_uint)B.count;
        set_args(k, B.call, B.put, B.s, B.x, B.t, r, v, count);
        cl_event e;
        BENCH_CHECK(clEnqueueNDRangeKernel(t.queue(b), k, 1, nullptr, &B.count, nullptr,
                                           B.chain.count(), B.chain.list(), &e));
        B.chain.then(e);
      }
    }
    for (unsigned b = 0; b < blocks; ++b) {
      auto& B = bl[b];
      size_t bytes = B.count * sizeof(float);
      BENCH_CHECK(clEnqueueReadBuffer(t.queue(b), B.call, CL_FALSE, 0, bytes, &call[B.first],
                                      B.chain.count(), B.chain.list(), nullptr));
      BENCH_CHECK(clEnqueueReadBuffer(t.queue(b), B.put, CL_FALSE, 0, bytes, &put[B.first],
                                      B.chain.count(), B.chain.list(), nullptr));
    }
    t.finish();
  }
  std::string check() override {
    double r = blackscholes_rate(done - 1);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      double c, p;
      blackscholes_reference(s[i], x[i], tt[i], r, BLACKSCHOLES_VOLATILITY, &c, &p);
      bad += !blackscholes_close(call[i], c) || !blackscholes_close(put[i], p);
    }
    return mismatches(bad, n);
  }
};

// ---- SGEMM ---------------------------------------------------------------

struct SgemmRun : Run {
  const Target& t;
  size_t n;
  unsigned blocks;
  cl_program prog;
  cl_kernel k;
  std::vector<float> c;
  cl_mem b_all;
  struct Block {
    size_t first, rows;
    cl_mem a, c;
    Chain chain;
  };
  std::vector<Block> bl;
  static inline std::vector<float> a_host, b_host;
  static inline std::vector<double> reference;  // n x n, computed once

  SgemmRun(const Target& target, size_t n_, unsigned blocks_)
      : t(target), n(n_), blocks(blocks_), c(n_ * n_), bl(blocks_) {
    if (a_host.size() != n * n) {
      a_host.resize(n * n);
      b_host.resize(n * n);
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) {
          a_host[i * n + j] = matmul_a(i, j);
          b_host[i * n + j] = matmul_b(i, j);
        }
    }
    prog = build(t.ctx, kMatmulSource);
    k = make_kernel(prog, "sgemm_tiled");
    b_all = make_buffer(t.ctx, CL_MEM_READ_ONLY, n * n * sizeof(float), b_host.data());
    for (unsigned b = 0; b < blocks; ++b) {
      auto& B = bl[b];
      B.first = n * b / blocks;
      B.rows = n * (b + 1) / blocks - B.first;
      B.a = make_buffer(t.ctx, CL_MEM_READ_ONLY, B.rows * n * sizeof(float), &a_host[B.first * n]);
      B.c = make_buffer(t.ctx, CL_MEM_WRITE_ONLY, B.rows * n * sizeof(float));
    }
  }
  ~SgemmRun() override {
    for (auto& B : bl) {
      clReleaseMemObject(B.a);
      clReleaseMemObject(B.c);
    }
    clReleaseMemObject(b_all);
    clReleaseKernel(k);
    clReleaseProgram(prog);
  }
  void iterate(int iterations) override {
    const size_t local[2] = {MATMUL_TILE, MATMUL_TILE};
    for (int it = 0; it < iterations; ++it)
      for (unsigned b = 0; b < blocks; ++b) {
        auto& B = bl[b];
        cl_int m = (cl_int)B.rows, nn = (cl_int)n;
        size_t global[2] = {matmul_round_up(n), matmul_round_up(B.rows)};
        set_args(k, B.a, b_all, B.c, m, nn, nn);
        cl_event e;
        BENCH_CHECK(clEnqueueNDRangeKernel(t.queue(b), k, 2, nullptr, global, local, B.chain.count(),
                                           B.chain.list(), &e));
        B.chain.then(e);
      }
    for (unsigned b = 0; b < blocks; ++b) {
      auto& B = bl[b];
      BENCH_CHECK(clEnqueueReadBuffer(t.queue(b), B.c, CL_FALSE, 0, B.rows * n * sizeof(float),
                                      &c[B.first * n], B.chain.count(), B.chain.list(), nullptr));
    }
    t.finish();
  }
  std::string check() override {
    if (reference.size() != n * n) {
      reference.resize(n * n);
      for (size_t i = 0; i < n; ++i) matmul_reference_row(a_host.data(), b_host.data(), i, n, n, &reference[i * n]);
    }
    size_t bad = 0;
    for (size_t i = 0; i < n * n; ++i) bad += !matmul_close(c[i], reference[i], n);
    return mismatches(bad, n * n);
  }
};

// ---- n-body (update by a kernel) -----------------------------------------

struct NbodyRun : Run {
  const Target& t;
  size_t n;
  unsigned blocks;
  cl_program prog;
  cl_kernel forces, update;
  std::vector<float> pos;
  cl_mem pos_buf, vel_buf, acc_all;
  struct Block {
    cl_uint first, count;
    cl_mem acc;
  };
  std::vector<Block> bl;
  Chain ready;  // the positions of the next step are in pos_buf after this
  unsigned steps = 0;
  static inline std::map<unsigned, std::vector<double>> reference;  // steps -> positions

  NbodyRun(const Target& target, size_t n_, unsigned blocks_)
      : t(target), n(n_), blocks(blocks_), pos(4 * n_), bl(blocks_) {
    prog = build(t.ctx, kNbodySource);
    forces = make_kernel(prog, "nbody_forces");
    update = make_kernel(prog, "nbody_update");
    for (size_t i = 0; i < n; ++i) nbody_initial(i, n, &pos[4 * i]);
    std::vector<float> zero(4 * n, 0.0f);
    pos_buf = make_buffer(t.ctx, CL_MEM_READ_WRITE, 4 * n * sizeof(float), pos.data());
    vel_buf = make_buffer(t.ctx, CL_MEM_READ_WRITE, 4 * n * sizeof(float), zero.data());
    acc_all = make_buffer(t.ctx, CL_MEM_READ_WRITE, 4 * n * sizeof(float));
    for (unsigned b = 0; b < blocks; ++b) {
      bl[b].first = (cl_uint)(n * b / blocks);
      bl[b].count = (cl_uint)(n * (b + 1) / blocks) - bl[b].first;
      bl[b].acc = make_buffer(t.ctx, CL_MEM_READ_WRITE, bl[b].count * 4 * sizeof(float));
    }
  }
  ~NbodyRun() override {
    for (auto& B : bl) clReleaseMemObject(B.acc);
    for (cl_mem m : {pos_buf, vel_buf, acc_all}) clReleaseMemObject(m);
    clReleaseKernel(forces);
    clReleaseKernel(update);
    clReleaseProgram(prog);
  }
  void iterate(int iterations) override {
    cl_uint nn = (cl_uint)n;
    float eps2 = NBODY_EPS2, dt = NBODY_DT;
    std::vector<cl_event> computed(blocks);
    for (int it = 0; it < iterations; ++it, ++steps) {
      for (unsigned b = 0; b < blocks; ++b) {
        size_t global = bl[b].count;
        set_args(forces, pos_buf, bl[b].acc, nn, bl[b].first, bl[b].count, eps2);
        BENCH_CHECK(clEnqueueNDRangeKernel(t.queue(b), forces, 1, nullptr, &global, nullptr,
                                           ready.count(), ready.list(), &computed[b]));
      }
      // The copies write one buffer: one after another.
      Chain gathered;
      for (unsigned b = 0; b < blocks; ++b) {
        cl_event wait[2] = {computed[b], gathered.last}, e;
        BENCH_CHECK(clEnqueueCopyBuffer(t.queue(b), bl[b].acc, acc_all, 0,
                                        (size_t)bl[b].first * 4 * sizeof(float),
                                        bl[b].count * 4 * sizeof(float), gathered.last ? 2 : 1, wait, &e));
        clReleaseEvent(computed[b]);
        gathered.then(e);
      }
      size_t global = n;
      set_args(update, pos_buf, vel_buf, acc_all, dt, nn);
      cl_event e;
      BENCH_CHECK(clEnqueueNDRangeKernel(t.queue(steps), update, 1, nullptr, &global, nullptr, 1,
                                         &gathered.last, &e));
      ready.then(e);
    }
    BENCH_CHECK(clEnqueueReadBuffer(t.queue(0), pos_buf, CL_FALSE, 0, 4 * n * sizeof(float), pos.data(),
                                    ready.count(), ready.list(), nullptr));
    t.finish();
  }
  std::string check() override {
    auto& ref = reference[steps];
    if (ref.empty()) {
      ref.resize(4 * n);
      std::vector<double> vel(3 * n, 0.0);
      for (size_t i = 0; i < n; ++i) {
        float body[4];
        nbody_initial(i, n, body);
        for (int c = 0; c < 4; ++c) ref[4 * i + c] = body[c];
      }
      nbody_reference(ref.data(), vel.data(), n, steps, NBODY_DT, NBODY_EPS2);
    }
    size_t bad = 0;
    // Many steps in float against double: a looser bound than the example's.
    for (size_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) bad += std::fabs(pos[4 * i + c] - ref[4 * i + c]) > 1e-3 + 1e-3 * std::fabs(ref[4 * i + c]);
    return mismatches(bad, 3 * n);
  }
};

// ---- saxpy: with transfers every iteration, or resident ------------------

struct SaxpyRun : Run {
  const Target& t;
  size_t n;
  unsigned blocks;
  bool transfers;
  cl_program prog;
  cl_kernel k;
  std::vector<float> x, y0, y;
  struct Block {
    size_t first, count;
    cl_mem x, y;
    Chain chain;
  };
  std::vector<Block> bl;
  unsigned resident_runs = 0;  // kernels applied to y since it was written

  SaxpyRun(const Target& target, size_t n_, unsigned blocks_, bool transfers_)
      : t(target), n(n_), blocks(blocks_), transfers(transfers_), x(n_), y0(n_), y(n_), bl(blocks_) {
    prog = build(t.ctx, kSaxpySource);
    k = make_kernel(prog, "saxpy");
    for (size_t i = 0; i < n; ++i) {
      x[i] = (float)(i % 7);
      y0[i] = (float)(i % 5);
    }
    for (unsigned b = 0; b < blocks; ++b) {
      auto& B = bl[b];
      B.first = n * b / blocks;
      B.count = n * (b + 1) / blocks - B.first;
      B.x = make_buffer(t.ctx, CL_MEM_READ_ONLY, B.count * sizeof(float), &x[B.first]);
      B.y = make_buffer(t.ctx, CL_MEM_READ_WRITE, B.count * sizeof(float), &y0[B.first]);
    }
  }
  ~SaxpyRun() override {
    for (auto& B : bl) {
      clReleaseMemObject(B.x);
      clReleaseMemObject(B.y);
    }
    clReleaseKernel(k);
    clReleaseProgram(prog);
  }
  void kernel(unsigned b, cl_uint nwait, const cl_event* wait) {
    auto& B = bl[b];
    float a = 1.0f;
    cl_uint count = (cl_uint)B.count;
    set_args(k, B.y, B.x, a, count);
    cl_event e;
    BENCH_CHECK(clEnqueueNDRangeKernel(t.queue(b), k, 1, nullptr, &B.count, nullptr, nwait, wait, &e));
    B.chain.then(e);
  }
  void iterate(int iterations) override {
    for (int it = 0; it < iterations; ++it)
      for (unsigned b = 0; b < blocks; ++b) {
        auto& B = bl[b];
        size_t bytes = B.count * sizeof(float);
        if (!transfers) {
          kernel(b, B.chain.count(), B.chain.list());
          continue;
        }
        // write x, write y; kernel; read y: the host's data every iteration.
        cl_event w[2];
        BENCH_CHECK(clEnqueueWriteBuffer(t.queue(b), B.x, CL_FALSE, 0, bytes, &x[B.first], B.chain.count(),
                                         B.chain.list(), &w[0]));
        BENCH_CHECK(clEnqueueWriteBuffer(t.queue(b), B.y, CL_FALSE, 0, bytes, &y0[B.first], B.chain.count(),
                                         B.chain.list(), &w[1]));
        kernel(b, 2, w);
        clReleaseEvent(w[0]);
        clReleaseEvent(w[1]);
        cl_event r;
        BENCH_CHECK(clEnqueueReadBuffer(t.queue(b), B.y, CL_FALSE, 0, bytes, &y[B.first], 1, &B.chain.last, &r));
        B.chain.then(r);
      }
    if (!transfers) resident_runs += iterations;
    t.finish();
  }
  std::string check() override {
    // Resident: y comes back only here, untimed. Read inside the rounds, its
    // 64 MB over PCIe (pageable, 5-12 ms) outweighed the kernels (about 1 ms
    // on an H200) and the rounds measured the host link.
    if (!transfers) {
      for (unsigned b = 0; b < blocks; ++b) {
        auto& B = bl[b];
        BENCH_CHECK(clEnqueueReadBuffer(t.queue(b), B.y, CL_FALSE, 0, B.count * sizeof(float), &y[B.first],
                                        B.chain.count(), B.chain.list(), nullptr));
      }
      t.finish();
    }
    // a = 1, small integers: exact in float.
    double times = transfers ? 1.0 : (double)resident_runs;
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad += y[i] != (float)(y0[i] + times * x[i]);
    return mismatches(bad, n);
  }
};

// ---- the benchmark -------------------------------------------------------

struct Workload {
  std::string name, what, unit;  // unit of throughput, e.g. "M options/s"
  double per_iteration;          // work units per iteration, already in `unit`
  int iterations;                // per timed run
  std::function<std::unique_ptr<Run>(const Target&)> make;
};

// The watchdog: a configuration that makes no progress for BENCH_HANG_S
// seconds aborts the benchmark, naming what it was running.
long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
std::atomic<long> progress_stamp{0};
std::string current_step;
std::mutex step_mutex;

void progress(const std::string& step) {
  std::lock_guard<std::mutex> lock(step_mutex);
  current_step = step;
  progress_stamp = now_ms();
}

void start_watchdog() {
  int limit = env_int("BENCH_HANG_S", 180);
  std::thread([limit] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      double idle = (now_ms() - progress_stamp.load()) * 1e-3;
      if (idle > limit) {
        std::lock_guard<std::mutex> lock(step_mutex);
        std::fprintf(stderr, "\nno progress for %d s while running: %s (hang?)\n", limit, current_step.c_str());
        std::fflush(stdout);
        if (std::getenv("BENCH_HANG_STACKS")) dump_thread_stacks();
        std::_Exit(3);
      }
    }
  }).detach();
}

bool one_platform(const std::vector<cl_device_id>& devs) {
  auto platform = [](cl_device_id d) {
    cl_platform_id p = nullptr;
    BENCH_CHECK(clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof p, &p, nullptr));
    return p;
  };
  return std::all_of(devs.begin(), devs.end(), [&](cl_device_id d) { return platform(d) == platform(devs[0]); });
}

clGetDeviceStatsPARASOL_fn stats_fn(cl_platform_id parasol) {
  return reinterpret_cast<clGetDeviceStatsPARASOL_fn>(
      clGetExtensionFunctionAddressForPlatform(parasol, "clGetDeviceStatsPARASOL"));
}

// Per device: the commands it ran, and how many of them were StarPU tasks
// (the rest went to its vendor queues directly).
struct Ran {
  cl_ulong commands = 0, tasks = 0;
};

std::vector<Ran> commands_now(cl_platform_id parasol, const std::vector<cl_device_id>& devs) {
  std::vector<Ran> out;
  auto fn = stats_fn(parasol);
  auto paths = reinterpret_cast<clGetDevicePathsPARASOL_fn>(
      clGetExtensionFunctionAddressForPlatform(parasol, "clGetDevicePathsPARASOL"));
  for (auto d : devs) {
    cl_parasol_device_stats s{};
    cl_parasol_device_paths p{};
    if (fn) fn(d, &s);
    if (paths) paths(d, &p);
    out.push_back({s.commands, p.tasks});
  }
  return out;
}

void run_workload(const Workload& w, cl_platform_id parasol, const std::vector<cl_device_id>& pdevs,
                  const std::vector<std::string>& policies) {
  int rounds = std::max(1, env_int("BENCH_ROUNDS", 5)), warmup = env_int("BENCH_WARMUP", 3);
  unsigned blocks = (unsigned)env_int("BENCH_BLOCKS", 8);
  cl_int err;

  // Targets live in a deque: the runs keep references to them.
  std::deque<Target> targets;
  std::vector<int> same_device;  // per target: the vendor row of its device, or -1
  std::vector<int> vendor_row(pdevs.size(), -1);  // per device; -1: Parasol's native device
  for (size_t d = 0; d < pdevs.size(); ++d) {
    Target t;
    cl_device_id vdev = vendor_device_of(pdevs[d]);
    if (!vdev) continue;  // no vendor behind it
    vendor_row[d] = (int)targets.size();
    t.label = "vendor direct, d" + std::to_string(d);
    t.ctx = clCreateContext(nullptr, 1, &vdev, nullptr, nullptr, &err);
    BENCH_CHECK(err);
    t.queues.push_back(clCreateCommandQueue(t.ctx, vdev, 0, &err));
    BENCH_CHECK(err);
    targets.push_back(std::move(t));
    same_device.push_back(-1);
  }
  const size_t vendor_rows = targets.size();
  for (size_t d = 0; d < pdevs.size(); ++d) {
    Target t;
    t.label = "Parasol device queue, d" + std::to_string(d);
    t.ctx = clCreateContext(nullptr, 1, &pdevs[d], nullptr, nullptr, &err);
    BENCH_CHECK(err);
    t.queues.push_back(clCreateCommandQueue(t.ctx, pdevs[d], 0, &err));
    BENCH_CHECK(err);
    t.parasol_devices = {pdevs[d]};
    targets.push_back(std::move(t));
    same_device.push_back(vendor_row[d]);
  }
  // Several devices: the application's own split too, block b on device
  // b % N, through Parasol's device queues and, when every device is of one
  // vendor platform (two GPUs), straight to that vendor in one context: the
  // reference a policy spreading the blocks is measured against.
  if (pdevs.size() > 1) {
    const std::string over = ", round-robin over d0-d" + std::to_string(pdevs.size() - 1);
    // One context over devs, a device queue for each.
    auto round_robin = [&](const std::string& label, const std::vector<cl_device_id>& devs) {
      Target t;
      t.label = label + over;
      t.ctx = clCreateContext(nullptr, (cl_uint)devs.size(), devs.data(), nullptr, nullptr, &err);
      BENCH_CHECK(err);
      for (auto d : devs) {
        t.queues.push_back(clCreateCommandQueue(t.ctx, d, 0, &err));
        BENCH_CHECK(err);
      }
      targets.push_back(std::move(t));
      same_device.push_back(-1);
    };
    std::vector<cl_device_id> vdevs;
    for (auto d : pdevs) vdevs.push_back(vendor_device_of(d));
    if (std::find(vdevs.begin(), vdevs.end(), nullptr) == vdevs.end() && one_platform(vdevs))
      round_robin("vendor direct", vdevs);
    round_robin("Parasol device queues", pdevs);
    targets.back().parasol_devices = pdevs;
  }
  for (auto& policy : policies) {
    Target t;
    t.label = "Parasol context queue, " + policy;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(parasol),
                                     CL_CONTEXT_SCHEDULER_PARASOL,
                                     reinterpret_cast<cl_context_properties>(policy.c_str()), 0};
    t.ctx = clCreateContext(props, (cl_uint)pdevs.size(), pdevs.data(), nullptr, nullptr, &err);
    if (err != CL_SUCCESS) {
      std::printf("(policy %s: clCreateContext failed with %d, skipped)\n", policy.c_str(), err);
      continue;
    }
    t.queues.push_back(clCreateCommandQueue(t.ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err));
    BENCH_CHECK(err);
    t.parasol_devices = pdevs;
    targets.push_back(std::move(t));
    same_device.push_back(-1);
  }

  std::vector<std::unique_ptr<Run>> runs;
  std::vector<double> best(targets.size(), 1e30);
  std::vector<std::vector<Ran>> placed(targets.size(), std::vector<Ran>(pdevs.size()));
  for (size_t i = 0; i < targets.size(); ++i) {
    progress(w.name + ": set-up and warm-up of " + targets[i].label);
    runs.push_back(w.make(targets[i]));
    runs[i]->iterate(warmup);  // also the calibration of the performance models
  }
  std::vector<std::vector<double>> times(targets.size());
  const bool show_rounds = std::getenv("BENCH_ROUND_TIMES") != nullptr;
  // Interleaved rounds, so that machine noise hits every configuration alike.
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < targets.size(); ++i) {
      progress(w.name + ": " + targets[i].label);
      auto before = commands_now(parasol, pdevs);
      const double secs = best_of(1, [&] { runs[i]->iterate(w.iterations); });
      best[i] = std::min(best[i], secs);
      times[i].push_back(secs);
      auto after = commands_now(parasol, pdevs);
      if (!targets[i].parasol_devices.empty())
        for (size_t d = 0; d < pdevs.size(); ++d) {
          placed[i][d].commands += after[d].commands - before[d].commands;
          placed[i][d].tasks += after[d].tasks - before[d].tasks;
        }
    }
  for (size_t i = 0; show_rounds && i < targets.size(); ++i) {
    std::fprintf(stderr, "%s rounds, %s (ms):", w.name.c_str(), targets[i].label.c_str());
    for (double secs : times[i]) std::fprintf(stderr, " %.2f", secs * 1e3);
    std::fprintf(stderr, "\n");
  }
  size_t best_vendor = 0;
  for (size_t i = 0; i < vendor_rows; ++i)
    if (best[i] < best[best_vendor]) best_vendor = i;
  progress(w.name + ": checking results");

  double base = w.per_iteration * w.iterations / best[best_vendor];
  std::printf("\n### %s\n\n%s; %u blocks, %d iterations per timed run, %d untimed warm-up iterations, "
              "best of %d rounds\n\n",
              w.name.c_str(), w.what.c_str(), blocks, w.iterations, warmup, rounds);
  // The median round beside the best: a workload bound by pageable host
  // transfers (Black-Scholes' reads) has the vendor's own rounds swing by
  // 20%, and one lucky round decides the best.
  auto median = [&](size_t i) {
    std::vector<double> v = times[i];
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  std::printf("| configuration | %s | vs best vendor device | median rounds, vs that vendor | vs same device direct | commands per device "
              "(timed rounds; StarPU tasks among them) | results |\n",
              w.unit.c_str());
  std::printf("|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < targets.size(); ++i) {
    double thr = w.per_iteration * w.iterations / best[i];
    std::string share = "-";
    if (!targets[i].parasol_devices.empty()) {
      share.clear();
      for (size_t d = 0; d < pdevs.size(); ++d) {
        share += (d ? " / " : "") + std::to_string(placed[i][d].commands);
        if (placed[i][d].tasks) share += " (" + std::to_string(placed[i][d].tasks) + " tasks)";
      }
    }
    std::string same = "-";
    if (same_device[i] >= 0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2fx", best[same_device[i]] / best[i]);
      same = buf;
    }
    std::printf("| %s%s | %.2f | %.2fx | %.2fx | %s | %s | %s |\n", targets[i].label.c_str(),
                i == best_vendor ? " (best)" : "", thr, thr / base, median(best_vendor) / median(i),
                same.c_str(), share.c_str(),
                runs[i]->check().c_str());
  }
  std::fflush(stdout);
  runs.clear();
  for (auto& t : targets) {
    for (auto q : t.queues) clReleaseCommandQueue(q);
    clReleaseContext(t.ctx);
  }
}

}  // namespace

int main(int argc, char** argv) {
  cl_platform_id parasol = find_platform("Parasol");
  std::vector<std::string> vendors = split(env_string("BENCH_VENDORS", ""));
  std::vector<cl_device_id> pdevs;
  for (auto d : devices(parasol)) {
    std::string v = vendor_of(d);
    bool take = vendors.empty() ? v.rfind("Oclgrind", 0) != 0 : false;
    for (auto& prefix : vendors) take = take || v.rfind(prefix, 0) == 0;
    if (take) pdevs.push_back(d);
  }
  if (pdevs.empty()) {
    std::fprintf(stderr, "no Parasol device selected (BENCH_VENDORS)\n");
    return 1;
  }
  auto policies = split(env_string("BENCH_POLICIES", "eager,heft,dmdas,ws,lws,random,prio"));

  size_t bs_n = env_int("BENCH_BS_N", 1 << 18), sg_n = env_int("BENCH_SGEMM_N", 256),
         nb_n = env_int("BENCH_NBODY_N", 2048), sx_n = env_int("BENCH_SAXPY_N", 1 << 20);
  unsigned blocks = (unsigned)env_int("BENCH_BLOCKS", 8);
  std::vector<Workload> all = {
      {"blackscholes", std::to_string(bs_n) + " options", "M options/s", bs_n * 1e-6,
       env_int("BENCH_BS_ITER", 4), [=](const Target& t) { return std::make_unique<BlackScholesRun>(t, bs_n, blocks); }},
      {"sgemm", std::to_string(sg_n) + "x" + std::to_string(sg_n) + " SGEMM, 16x16 local tiles, row blocks",
       "GFLOP/s", 2.0 * sg_n * sg_n * sg_n * 1e-9, env_int("BENCH_SGEMM_ITER", 2),
       [=](const Target& t) { return std::make_unique<SgemmRun>(t, sg_n, blocks); }},
      {"nbody", std::to_string(nb_n) + " bodies, one force sub-kernel per block, update by a kernel",
       "G interactions/s", (double)nb_n * nb_n * 1e-9, env_int("BENCH_NBODY_ITER", 2),
       [=](const Target& t) { return std::make_unique<NbodyRun>(t, nb_n, blocks); }},
      {"saxpy-transfers",
       std::to_string(sx_n) + " floats, every iteration: write x and y, kernel, read y (GB/s of host transfers)",
       "GB/s", 3.0 * sx_n * sizeof(float) * 1e-9, env_int("BENCH_SAXPY_ITER", 4),
       [=](const Target& t) { return std::make_unique<SaxpyRun>(t, sx_n, blocks, true); }},
      {"saxpy-resident",
       std::to_string(sx_n) + " floats resident, kernel only (GB/s the kernel reads and writes)", "GB/s",
       3.0 * sx_n * sizeof(float) * 1e-9, env_int("BENCH_RESIDENT_ITER", env_int("BENCH_SAXPY_ITER", 4) * 4),
       [=](const Target& t) { return std::make_unique<SaxpyRun>(t, sx_n, blocks, false); }},
  };

  std::printf("Throughput, Parasol against the vendors; devices:\n\n");
  for (size_t d = 0; d < pdevs.size(); ++d)
    std::printf("- d%zu: %s (%s)\n", d, device_name(pdevs[d]).c_str(), vendor_of(pdevs[d]).c_str());
  start_watchdog();
  progress("start");
  for (auto& w : all) {
    bool wanted = argc < 2;
    for (int i = 1; i < argc; ++i) wanted = wanted || w.name == argv[i];
    if (wanted) run_workload(w, parasol, pdevs, policies);
  }
  return 0;
}
