// Whether a vendor runs independent commands of one queue, or of several
// in-order queues, at the same time (no Parasol): the measurement behind a
// device's lanes (src/runtime/direct_launch.h). The same work on one
// in-order queue, one out-of-order queue, and 2, 4 and 8 in-order queues
// taken in turn: nbody's force blocks (independent, latency-bound on a GPU
// at these sizes) and Black-Scholes' blocks (16 iterations, then pageable
// reads of the results).
//
//   bench_vendor_queues [vendor-platform-prefix]   (default: the first platform)
// Environment: BENCH_NBODY_N [16384] bodies, BENCH_BS_N [4194304] options,
// BENCH_ROUNDS [9] (best and median).
#include <algorithm>

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
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
  BENCH_CHECK(err);
  const size_t nb_n = env_int("BENCH_NBODY_N", 16384), bs_n = env_int("BENCH_BS_N", 4194304);
  const int rounds = env_int("BENCH_ROUNDS", 9);
  std::vector<cl_mem> keep;
  Blocks nbody = nbody_blocks(ctx, nb_n, keep);
  BlackScholesBlocks bs = bs_blocks(ctx, bs_n, keep);

  std::printf("%s (%s): %u blocks; nbody %zu bodies, 2 steps of force blocks; Black-Scholes %zu "
              "options, 16 iterations, then pageable reads\n\n",
              device_name(dev).c_str(), platform_name(p).c_str(), kBlocks, nb_n, bs_n);
  std::printf("| queues | nbody best ms | median | Black-Scholes best ms | median |\n"
              "|---|---|---|---|---|\n");
  auto run = [&](const std::string& label, std::vector<cl_command_queue> qs) {
    auto on = [&](unsigned block) { return qs[block % qs.size()]; };
    auto finish = [&] {
      for (auto q : qs) BENCH_CHECK(clFinish(q));
    };
    auto nbody_round = [&] {
      for (int step = 0; step < 2; ++step) {
        for (unsigned b = 0; b < kBlocks; ++b)
          BENCH_CHECK(clEnqueueNDRangeKernel(on(b), nbody.kernels[b], 1, nullptr, &nbody.items[b],
                                             nullptr, 0, nullptr, nullptr));
        finish();
      }
    };
    auto bs_round = [&] {
      for (int it = 0; it < 16; ++it)
        for (unsigned b = 0; b < kBlocks; ++b)
          BENCH_CHECK(clEnqueueNDRangeKernel(on(b), bs.blocks.kernels[b], 1, nullptr,
                                             &bs.blocks.items[b], nullptr, 0, nullptr, nullptr));
      for (unsigned b = 0; b < kBlocks; ++b) {
        const size_t bytes = bs.blocks.items[b] * sizeof(float);
        BENCH_CHECK(clEnqueueReadBuffer(on(b), bs.call[b], CL_FALSE, 0, bytes,
                                        &bs.host_call[bs.first[b]], 0, nullptr, nullptr));
        BENCH_CHECK(clEnqueueReadBuffer(on(b), bs.put[b], CL_FALSE, 0, bytes,
                                        &bs.host_put[bs.first[b]], 0, nullptr, nullptr));
      }
      finish();
    };
    nbody_round();  // warm-up
    bs_round();
    std::vector<double> tn, tb;
    for (int r = 0; r < rounds; ++r) {
      tn.push_back(best_of(1, nbody_round));
      tb.push_back(best_of(1, bs_round));
    }
    std::printf("| %s | %.2f | %.2f | %.2f | %.2f |\n", label.c_str(),
                *std::min_element(tn.begin(), tn.end()) * 1e3, median(tn) * 1e3,
                *std::min_element(tb.begin(), tb.end()) * 1e3, median(tb) * 1e3);
    for (auto q : qs) clReleaseCommandQueue(q);
  };
  auto queue = [&](cl_command_queue_properties props) {
    cl_command_queue q = clCreateCommandQueue(ctx, dev, props, &err);
    BENCH_CHECK(err);
    return q;
  };
  run("1 in-order", {queue(0)});
  run("1 out-of-order", {queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)});
  for (int k : {2, 4, 8}) {
    std::vector<cl_command_queue> qs;
    for (int i = 0; i < k; ++i) qs.push_back(queue(0));
    run(std::to_string(k) + " in-order, in turn", qs);
  }
  for (auto k : nbody.kernels) clReleaseKernel(k);
  for (auto k : bs.blocks.kernels) clReleaseKernel(k);
  for (cl_mem m : keep) clReleaseMemObject(m);
  clReleaseContext(ctx);
  return 0;
}
