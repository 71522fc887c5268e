/* SGEMM with 16x16 __local tiles: the OpenCL C kernel and its CPU (double)
 * reference, shared by examples/matmul and bench/throughput. */
#ifndef PARASOL_MATMUL_KERNELS_H
#define PARASOL_MATMUL_KERNELS_H

#include <math.h>
#include <stddef.h>

#define MATMUL_TILE 16

/* C (m x n) = A (m x k) . B (k x n), row major. Work-groups of 16x16 items;
 * the global size is m and n rounded up to 16 (dimension 0: columns), and
 * out-of-range items load zeros and store nothing, so any size works. */
static const char* kMatmulSource =
    "#define TILE 16\n"
    "__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))\n"
    "void sgemm_tiled(__global const float* A, __global const float* B, __global float* C,\n"
    "                 int m, int n, int k) {\n"
    "  __local float As[TILE][TILE];\n"
    "  __local float Bs[TILE][TILE];\n"
    "  int col = get_global_id(0), row = get_global_id(1);\n"
    "  int lc = get_local_id(0), lr = get_local_id(1);\n"
    "  float acc = 0.0f;\n"
    "  for (int t = 0; t < k; t += TILE) {\n"
    "    As[lr][lc] = (row < m && t + lc < k) ? A[row * k + t + lc] : 0.0f;\n"
    "    Bs[lr][lc] = (t + lr < k && col < n) ? B[(t + lr) * n + col] : 0.0f;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int j = 0; j < TILE; ++j) acc += As[lr][j] * Bs[j][lc];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (row < m && col < n) C[row * n + col] = acc;\n"
    "}\n";

static inline size_t matmul_round_up(size_t x) {
  return (x + MATMUL_TILE - 1) / MATMUL_TILE * MATMUL_TILE;
}

/* Small integers over 8, exact in float, so sums stay well conditioned. */
static inline float matmul_a(size_t row, size_t col) { return (float)((row * 7 + col * 3) % 17) / 8.0f - 1.0f; }
static inline float matmul_b(size_t row, size_t col) { return (float)((row * 5 + col * 11) % 13) / 8.0f - 0.75f; }

/* Row `row` of the reference product (n columns, inner size k). */
static inline void matmul_reference_row(const float* a, const float* b, size_t row, size_t n,
                                        size_t k, double* out) {
  for (size_t c = 0; c < n; ++c) out[c] = 0.0;
  for (size_t j = 0; j < k; ++j) {
    double av = a[row * k + j];
    for (size_t c = 0; c < n; ++c) out[c] += av * (double)b[j * n + c];
  }
}

static inline int matmul_close(float got, double want, size_t k) {
  return fabs((double)got - want) <= 1e-5 * (double)k + 1e-5 * fabs(want);
}

#endif /* PARASOL_MATMUL_KERNELS_H */
