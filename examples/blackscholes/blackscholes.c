/* blackscholes: N European options priced in B blocks (one buffer set per
 * block: S, X, T in; call, put out), several iterations over the same inputs,
 * each iteration at its own interest rate. The blocks go to one context queue
 * (the context's policy places them) or round robin to the devices' queues.
 * Prints where each block ran and per-device statistics, and checks every
 * price against a CPU (double) reference: exit status 1 on a mismatch.
 *
 *   blackscholes [--context-queue [--policy heft] | --round-robin] [--vendor PREFIX]
 *                [--n 16384] [--blocks 8] [--iterations 4] */
#include "common/example_util.h"
#include "blackscholes/blackscholes_kernels.h"

struct block {
  size_t first, count;
  cl_mem s, x, t, call, put;
  cl_event last; /* the block's latest command: the next one waits for it */
};

int main(int argc, char** argv) {
  struct example_options o = {MODE_CONTEXT_QUEUE, "heft", NULL, 16384, 8, 4};
  for (int i = 1; i < argc; ++i)
    if (!example_parse_option(&o, argc, argv, &i)) {
      example_usage(argv[0], NULL);
      return 2;
    }
  if (o.blocks == 0 || o.n < o.blocks || o.iterations == 0) {
    example_usage(argv[0], NULL);
    return 2;
  }
  struct example_setup s;
  example_setup_open(&s, &o);
  printf("%zu options in %u blocks, %u iterations\n", o.n, o.blocks, o.iterations);

  cl_program prog = example_build(&s, kBlackScholesSource);
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "black_scholes", &err);
  CHECK(err);

  float* host_s = malloc(o.n * sizeof(float));
  float* host_x = malloc(o.n * sizeof(float));
  float* host_t = malloc(o.n * sizeof(float));
  float* call = malloc(o.n * sizeof(float));
  float* put = malloc(o.n * sizeof(float));
  for (size_t i = 0; i < o.n; ++i) blackscholes_input(i, &host_s[i], &host_x[i], &host_t[i]);

  struct block* blocks = calloc(o.blocks, sizeof *blocks);
  for (unsigned b = 0; b < o.blocks; ++b) {
    struct block* bl = &blocks[b];
    bl->first = o.n * b / o.blocks;
    bl->count = o.n * (b + 1) / o.blocks - bl->first;
    size_t bytes = bl->count * sizeof(float);
    cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    bl->s = clCreateBuffer(s.ctx, in, bytes, host_s + bl->first, &err); CHECK(err);
    bl->x = clCreateBuffer(s.ctx, in, bytes, host_x + bl->first, &err); CHECK(err);
    bl->t = clCreateBuffer(s.ctx, in, bytes, host_t + bl->first, &err); CHECK(err);
    bl->call = clCreateBuffer(s.ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err); CHECK(err);
    bl->put = clCreateBuffer(s.ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err); CHECK(err);
  }

  /* Iteration it prices every block at rate(it); within a block the
   * iterations are ordered by events (they overwrite call and put). */
  cl_event* events = malloc((size_t)o.iterations * o.blocks * sizeof *events);
  float v = BLACKSCHOLES_VOLATILITY;
  for (unsigned it = 0; it < o.iterations; ++it) {
    float r = blackscholes_rate(it);
    for (unsigned b = 0; b < o.blocks; ++b) {
      struct block* bl = &blocks[b];
      cl_uint n = (cl_uint)bl->count;
      size_t global = bl->count;
      CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &bl->call));
      CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &bl->put));
      CHECK(clSetKernelArg(k, 2, sizeof(cl_mem), &bl->s));
      CHECK(clSetKernelArg(k, 3, sizeof(cl_mem), &bl->x));
      CHECK(clSetKernelArg(k, 4, sizeof(cl_mem), &bl->t));
      CHECK(clSetKernelArg(k, 5, sizeof r, &r));
      CHECK(clSetKernelArg(k, 6, sizeof v, &v));
      CHECK(clSetKernelArg(k, 7, sizeof n, &n));
      cl_event* e = &events[it * o.blocks + b];
      CHECK(clEnqueueNDRangeKernel(example_queue_for(&s, b), k, 1, NULL, &global, NULL,
                                   bl->last ? 1 : 0, bl->last ? &bl->last : NULL, e));
      clRetainEvent(*e);
      example_chain(&bl->last, *e);
    }
  }
  for (unsigned b = 0; b < o.blocks; ++b) {
    struct block* bl = &blocks[b];
    size_t bytes = bl->count * sizeof(float);
    cl_command_queue q = example_queue_for(&s, b);
    CHECK(clEnqueueReadBuffer(q, bl->call, CL_TRUE, 0, bytes, call + bl->first, 1, &bl->last, NULL));
    CHECK(clEnqueueReadBuffer(q, bl->put, CL_TRUE, 0, bytes, put + bl->first, 1, &bl->last, NULL));
  }

  example_print_placement(&s, "block", events, o.blocks, o.iterations);
  example_print_stats(&s);

  double r = blackscholes_rate(o.iterations - 1);
  size_t bad = 0;
  for (size_t i = 0; i < o.n; ++i) {
    double want_call, want_put;
    blackscholes_reference(host_s[i], host_x[i], host_t[i], r, BLACKSCHOLES_VOLATILITY, &want_call,
                           &want_put);
    if (!blackscholes_close(call[i], want_call) || !blackscholes_close(put[i], want_put)) {
      if (bad++ < 5)
        fprintf(stderr, "option %zu: call %f put %f, expected %f %f\n", i, call[i], put[i],
                want_call, want_put);
    }
  }
  printf("%s: %zu of %zu options differ from the CPU reference\n", bad ? "FAILED" : "OK", bad, o.n);

  for (unsigned i = 0; i < o.iterations * o.blocks; ++i) clReleaseEvent(events[i]);
  for (unsigned b = 0; b < o.blocks; ++b) {
    struct block* bl = &blocks[b];
    clReleaseEvent(bl->last);
    clReleaseMemObject(bl->s); clReleaseMemObject(bl->x); clReleaseMemObject(bl->t);
    clReleaseMemObject(bl->call); clReleaseMemObject(bl->put);
  }
  clReleaseKernel(k);
  clReleaseProgram(prog);
  example_setup_close(&s);
  free(events); free(blocks);
  free(host_s); free(host_x); free(host_t); free(call); free(put);
  return bad ? 1 : 0;
}
