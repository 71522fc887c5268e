/* matmul: SGEMM C = A.B (n x n) with 16x16 __local tiles and barriers, C split
 * in B row blocks (one command each: rows of A in, rows of C out, all of B
 * shared), repeated for several iterations. The blocks go to one context
 * queue (the context's policy places them) or round robin to the devices'
 * queues. Prints where each block ran and per-device statistics, and checks C
 * against a CPU (double) reference: exit status 1 on a mismatch.
 *
 *   matmul [--context-queue [--policy heft] | --round-robin] [--vendor PREFIX]
 *          [--n 128] [--blocks 4] [--iterations 2] */
#include "common/example_util.h"
#include "matmul/matmul_kernels.h"

struct block {
  size_t first, rows;
  cl_mem a, c;
  cl_event last;
};

int main(int argc, char** argv) {
  struct example_options o = {MODE_CONTEXT_QUEUE, "heft", NULL, 128, 4, 2};
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
  size_t n = o.n;
  printf("C = A.B, %zu x %zu, in %u row blocks, %u iterations\n", n, n, o.blocks, o.iterations);

  cl_program prog = example_build(&s, kMatmulSource);
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "sgemm_tiled", &err);
  CHECK(err);

  float* a = malloc(n * n * sizeof(float));
  float* b = malloc(n * n * sizeof(float));
  float* c = malloc(n * n * sizeof(float));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      a[i * n + j] = matmul_a(i, j);
      b[i * n + j] = matmul_b(i, j);
      c[i * n + j] = NAN;
    }
  cl_mem buf_b = clCreateBuffer(s.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * n * sizeof(float), b, &err);
  CHECK(err);
  struct block* blocks = calloc(o.blocks, sizeof *blocks);
  for (unsigned bl = 0; bl < o.blocks; ++bl) {
    struct block* x = &blocks[bl];
    x->first = n * bl / o.blocks;
    x->rows = n * (bl + 1) / o.blocks - x->first;
    size_t bytes = x->rows * n * sizeof(float);
    x->a = clCreateBuffer(s.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a + x->first * n, &err);
    CHECK(err);
    x->c = clCreateBuffer(s.ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    CHECK(err);
  }

  cl_event* events = malloc((size_t)o.iterations * o.blocks * sizeof *events);
  const size_t local[2] = {MATMUL_TILE, MATMUL_TILE};
  for (unsigned it = 0; it < o.iterations; ++it)
    for (unsigned bl = 0; bl < o.blocks; ++bl) {
      struct block* x = &blocks[bl];
      cl_int m = (cl_int)x->rows, nn = (cl_int)n;
      size_t global[2] = {matmul_round_up(n), matmul_round_up(x->rows)};
      CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &x->a));
      CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &buf_b));
      CHECK(clSetKernelArg(k, 2, sizeof(cl_mem), &x->c));
      CHECK(clSetKernelArg(k, 3, sizeof m, &m));
      CHECK(clSetKernelArg(k, 4, sizeof nn, &nn));
      CHECK(clSetKernelArg(k, 5, sizeof nn, &nn));
      cl_event* e = &events[it * o.blocks + bl];
      CHECK(clEnqueueNDRangeKernel(example_queue_for(&s, bl), k, 2, NULL, global, local,
                                   x->last ? 1 : 0, x->last ? &x->last : NULL, e));
      clRetainEvent(*e);
      example_chain(&x->last, *e);
    }
  for (unsigned bl = 0; bl < o.blocks; ++bl) {
    struct block* x = &blocks[bl];
    CHECK(clEnqueueReadBuffer(example_queue_for(&s, bl), x->c, CL_TRUE, 0, x->rows * n * sizeof(float),
                              c + x->first * n, 1, &x->last, NULL));
  }

  example_print_placement(&s, "row block", events, o.blocks, o.iterations);
  example_print_stats(&s);

  double* want = malloc(n * sizeof(double));
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    matmul_reference_row(a, b, i, n, n, want);
    for (size_t j = 0; j < n; ++j)
      if (!matmul_close(c[i * n + j], want[j], n) && bad++ < 5)
        fprintf(stderr, "C[%zu][%zu] = %f, expected %f\n", i, j, c[i * n + j], want[j]);
  }
  printf("%s: %zu of %zu elements differ from the CPU reference\n", bad ? "FAILED" : "OK", bad, n * n);

  for (unsigned i = 0; i < o.iterations * o.blocks; ++i) clReleaseEvent(events[i]);
  for (unsigned bl = 0; bl < o.blocks; ++bl) {
    clReleaseEvent(blocks[bl].last);
    clReleaseMemObject(blocks[bl].a);
    clReleaseMemObject(blocks[bl].c);
  }
  clReleaseMemObject(buf_b);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  example_setup_close(&s);
  free(events); free(blocks); free(want); free(a); free(b); free(c);
  return bad ? 1 : 0;
}
