// Whether a vendor runs independent commands of one queue, or of several
// in-order queues, at the same time, and whether Parasol's device queues over
// the same device keep that (when Parasol is registered too): the
// measurement behind a device's lanes and in-order queues' home lanes
// (src/runtime/direct_launch.h). The same work on one
// in-order queue, one out-of-order queue, and 2, 4 and 8 in-order queues
// taken in turn: nbody's force blocks (independent, latency-bound on a GPU
// at these sizes) and Black-Scholes' blocks (16 iterations, then pageable
// reads of the results).
//
//   bench_vendor_queues [vendor-platform-prefix]   (default: the first platform)
// Environment: BENCH_NBODY_N [16384] bodies, BENCH_BS_N [4194304] options,
// BENCH_ROUNDS [9] (best and median).
#include <algorithm>
#include <memory>

#include "bench_util.h"
#include "blackscholes/blackscholes_kernels.h"
#include "nbody/nbody_kernels.h"

using namespace bench;

namespace {

constexpr unsigned kBlocks = 8;

template <typename T>
void arg(cl_kernel k, cl_uint i, const T& v) {
  BENCH_CHECK(clSetKernelArg(k, i, sizeof v, &v));
}

cl_mem buffer(cl_context ctx, size_t bytes, const void* host = nullptr) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                            const_cast<void*>(host), &err);
  BENCH_CHECK(err);
  return m;
}

// A kernel object per block: the blocks are enqueued without setting
// arguments in between.
struct Blocks {
  std::vector<cl_kernel> kernels;
  std::vector<size_t> items;
};

Blocks nbody_blocks(cl_context ctx, size_t n, std::vector<cl_mem>& keep) {
  cl_program prog = build(ctx, kNbodySource);
  std::vector<float> pos(4 * n);
  for (size_t i = 0; i < n; ++i) nbody_initial(i, n, &pos[4 * i]);
  cl_mem pos_buf = buffer(ctx, pos.size() * sizeof(float), pos.data());
  keep.push_back(pos_buf);
  Blocks b;
  for (unsigned i = 0; i < kBlocks; ++i) {
    cl_int err;
    cl_kernel k = clCreateKernel(prog, "nbody_forces", &err);
    BENCH_CHECK(err);
    const cl_uint first = static_cast<cl_uint>(n * i / kBlocks);
    const cl_uint count = static_cast<cl_uint>(n * (i + 1) / kBlocks) - first;
    cl_mem acc = buffer(ctx, count * 4 * sizeof(float));
    keep.push_back(acc);
    arg(k, 0, pos_buf);
    arg(k, 1, acc);
    arg(k, 2, static_cast<cl_uint>(n));
    arg(k, 3, first);
    arg(k, 4, count);
    arg(k, 5, NBODY_EPS2);
    b.kernels.push_back(k);
    b.items.push_back(count);
  }
  clReleaseProgram(prog);
  return b;
}

struct BlackScholesBlocks {
  Blocks blocks;
  std::vector<cl_mem> call, put;
  std::vector<size_t> first;
  std::vector<float> host_call, host_put;
};

BlackScholesBlocks bs_blocks(cl_context ctx, size_t n, std::vector<cl_mem>& keep) {
  cl_program prog = build(ctx, kBlackScholesSource);
  std::vector<float> s(n), x(n), t(n);
  for (size_t i = 0; i < n; ++i) blackscholes_input(i, &s[i], &x[i], &t[i]);
  BlackScholesBlocks b;
  b.host_call.resize(n);
  b.host_put.resize(n);
  for (unsigned i = 0; i < kBlocks; ++i) {
    const size_t first = n * i / kBlocks, count = n * (i + 1) / kBlocks - first;
    const size_t bytes = count * sizeof(float);
    cl_mem in_s = buffer(ctx, bytes, &s[first]), in_x = buffer(ctx, bytes, &x[first]),
           in_t = buffer(ctx, bytes, &t[first]), call = buffer(ctx, bytes),
           put = buffer(ctx, bytes);
    for (cl_mem m : {in_s, in_x, in_t, call, put}) keep.push_back(m);
    cl_int err;
    cl_kernel k = clCreateKernel(prog, "black_scholes", &err);
    BENCH_CHECK(err);
    arg(k, 0, call);
    arg(k, 1, put);
    arg(k, 2, in_s);
    arg(k, 3, in_x);
    arg(k, 4, in_t);
    arg(k, 5, blackscholes_rate(0));
    arg(k, 6, BLACKSCHOLES_VOLATILITY);
    arg(k, 7, static_cast<cl_uint>(count));
    b.blocks.kernels.push_back(k);
    b.blocks.items.push_back(count);
    b.call.push_back(call);
    b.put.push_back(put);
    b.first.push_back(first);
  }
  clReleaseProgram(prog);
  return b;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One device's side: its context, the blocks' kernels and buffers.
struct Side {
  cl_device_id dev = nullptr;
  cl_context ctx = nullptr;
  std::vector<cl_mem> keep;
  Blocks nbody;
  BlackScholesBlocks bs;
  Side(cl_device_id d, size_t nb_n, size_t bs_n) : dev(d) {
    cl_int err;
    ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
    BENCH_CHECK(err);
    nbody = nbody_blocks(ctx, nb_n, keep);
    bs = bs_blocks(ctx, bs_n, keep);
  }
  ~Side() {
    for (auto k : nbody.kernels) clReleaseKernel(k);
    for (auto k : bs.blocks.kernels) clReleaseKernel(k);
    for (cl_mem m : keep) clReleaseMemObject(m);
    clReleaseContext(ctx);
  }
  Side(const Side&) = delete;
  Side& operator=(const Side&) = delete;
  cl_command_queue queue(cl_command_queue_properties props) const {
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, props, &err);
    BENCH_CHECK(err);
    return q;
  }
};

// Round times (seconds) of one side with one set of queues.
struct Times {
  std::vector<double> nbody, bs;
};

// One round of each workload over qs, blocks taken in turn.
void one_round(Side& s, const std::vector<cl_command_queue>& qs, Times& t) {
  auto on = [&](unsigned block) { return qs[block % qs.size()]; };
  auto finish = [&] {
    for (auto q : qs) BENCH_CHECK(clFinish(q));
  };
  t.nbody.push_back(best_of(1, [&] {
    for (int step = 0; step < 2; ++step) {
      for (unsigned b = 0; b < kBlocks; ++b)
        BENCH_CHECK(clEnqueueNDRangeKernel(on(b), s.nbody.kernels[b], 1, nullptr,
                                           &s.nbody.items[b], nullptr, 0, nullptr, nullptr));
      finish();
    }
  }));
  t.bs.push_back(best_of(1, [&] {
    for (int it = 0; it < 16; ++it)
      for (unsigned b = 0; b < kBlocks; ++b)
        BENCH_CHECK(clEnqueueNDRangeKernel(on(b), s.bs.blocks.kernels[b], 1, nullptr,
                                           &s.bs.blocks.items[b], nullptr, 0, nullptr, nullptr));
    for (unsigned b = 0; b < kBlocks; ++b) {
      const size_t bytes = s.bs.blocks.items[b] * sizeof(float);
      BENCH_CHECK(clEnqueueReadBuffer(on(b), s.bs.call[b], CL_FALSE, 0, bytes,
                                      &s.bs.host_call[s.bs.first[b]], 0, nullptr, nullptr));
      BENCH_CHECK(clEnqueueReadBuffer(on(b), s.bs.put[b], CL_FALSE, 0, bytes,
                                      &s.bs.host_put[s.bs.first[b]], 0, nullptr, nullptr));
    }
    finish();
  }));
}

}  // namespace

int main(int argc, char** argv) {
  cl_platform_id p = argc > 1 ? find_platform(argv[1]) : nullptr;
  if (!p) {
    cl_uint n = 0;
    clGetPlatformIDs(1, &p, &n);
    if (!n) {
      std::fprintf(stderr, "no OpenCL platform\n");
      return 1;
    }
  }
  cl_device_id dev = devices(p)[0];
  // Parasol's device over the same vendor device, measured in the same
  // process, rounds interleaved (absent: the vendor alone).
  cl_device_id pdev = nullptr;
  if (cl_platform_id parasol = find_platform("Parasol"); parasol && parasol != p)
    for (cl_device_id d : devices(parasol))
      if (vendor_device_of(d) == dev) pdev = d;
  const size_t nb_n = env_int("BENCH_NBODY_N", 16384), bs_n = env_int("BENCH_BS_N", 4194304);
  const int rounds = env_int("BENCH_ROUNDS", 9);
  Side vendor(dev, nb_n, bs_n);
  std::unique_ptr<Side> parasol = pdev ? std::make_unique<Side>(pdev, nb_n, bs_n) : nullptr;

  std::printf("%s (%s): %u blocks; nbody %zu bodies, 2 steps of force blocks; Black-Scholes %zu "
              "options, 16 iterations, then pageable reads; best / median of %d rounds, ms%s\n\n",
              device_name(dev).c_str(), platform_name(p).c_str(), kBlocks, nb_n, bs_n, rounds,
              pdev ? "; Parasol's device queues over the same device beside (ratio: the "
                     "vendor's median round over Parasol's)"
                   : "");
  if (pdev)
    std::printf("| queues | nbody, vendor | nbody, Parasol | ratio | Black-Scholes, vendor | "
                "Black-Scholes, Parasol | ratio |\n|---|---|---|---|---|---|---|\n");
  else
    std::printf("| queues | nbody | Black-Scholes |\n|---|---|---|\n");
  auto run = [&](const std::string& label, int count, cl_command_queue_properties props) {
    std::vector<cl_command_queue> vq, pq;
    for (int i = 0; i < count; ++i) {
      vq.push_back(vendor.queue(props));
      if (parasol) pq.push_back(parasol->queue(props));
    }
    Times vt, pt, warm;
    one_round(vendor, vq, warm);
    if (parasol) one_round(*parasol, pq, warm);
    for (int r = 0; r < rounds; ++r) {
      one_round(vendor, vq, vt);
      if (parasol) one_round(*parasol, pq, pt);
    }
    auto cell = [](const std::vector<double>& v) {
      char out[64];
      std::snprintf(out, sizeof out, "%.2f / %.2f", *std::min_element(v.begin(), v.end()) * 1e3,
                    median(v) * 1e3);
      return std::string(out);
    };
    if (parasol)
      std::printf("| %s | %s | %s | %.2fx | %s | %s | %.2fx |\n", label.c_str(),
                  cell(vt.nbody).c_str(), cell(pt.nbody).c_str(),
                  median(vt.nbody) / median(pt.nbody), cell(vt.bs).c_str(), cell(pt.bs).c_str(),
                  median(vt.bs) / median(pt.bs));
    else
      std::printf("| %s | %s | %s |\n", label.c_str(), cell(vt.nbody).c_str(),
                  cell(vt.bs).c_str());
    for (auto q : vq) clReleaseCommandQueue(q);
    for (auto q : pq) clReleaseCommandQueue(q);
  };
  run("1 in-order", 1, 0);
  run("1 out-of-order", 1, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  for (int k : {2, 4, 8}) run(std::to_string(k) + " in-order, in turn", k, 0);
  return 0;
}
