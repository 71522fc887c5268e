/* Black-Scholes European option pricing: the OpenCL C kernel and its CPU
 * (double) reference, shared by examples/blackscholes and bench/throughput so
 * both run the very same kernel. */
#ifndef PARASOL_BLACKSCHOLES_KERNELS_H
#define PARASOL_BLACKSCHOLES_KERNELS_H

#include <math.h>
#include <stddef.h>

/* Polynomial approximation of the cumulative normal distribution
 * (Abramowitz & Stegun 26.2.17), the one of the classic SDK samples. */
static const char* kBlackScholesSource =
    "#define A1 0.31938153f\n"
    "#define A2 -0.356563782f\n"
    "#define A3 1.781477937f\n"
    "#define A4 -1.821255978f\n"
    "#define A5 1.330274429f\n"
    "#define RSQRT2PI 0.39894228040143267793994605993438f\n"
    "float cnd(float d) {\n"
    "  float k = 1.0f / (1.0f + 0.2316419f * fabs(d));\n"
    "  float c = RSQRT2PI * exp(-0.5f * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));\n"
    "  return d > 0.0f ? 1.0f - c : c;\n"
    "}\n"
    "__kernel void black_scholes(__global float* call, __global float* put,\n"
    "                            __global const float* S, __global const float* X,\n"
    "                            __global const float* T, float r, float v, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i >= n) return;\n"
    "  float s = S[i], x = X[i], t = T[i];\n"
    "  float sqrt_t = sqrt(t);\n"
    "  float d1 = (log(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);\n"
    "  float d2 = d1 - v * sqrt_t;\n"
    "  float cnd1 = cnd(d1), cnd2 = cnd(d2);\n"
    "  float disc = exp(-r * t);\n"
    "  call[i] = s * cnd1 - x * disc * cnd2;\n"
    "  put[i] = x * disc * (1.0f - cnd2) - s * (1.0f - cnd1);\n"
    "}\n";

/* Inputs of option i: spot 5..30, strike 1..100, expiry 0.25..10 years. */
static inline void blackscholes_input(size_t i, float* s, float* x, float* t) {
  unsigned h = (unsigned)(i * 2654435761u);
  *s = 5.0f + 25.0f * (float)((h >> 8) & 0xffff) / 65535.0f;
  *x = 1.0f + 99.0f * (float)((h >> 4) & 0xfff) / 4095.0f;
  *t = 0.25f + 9.75f * (float)(h & 0xff) / 255.0f;
}

static inline double blackscholes_cnd(double d) {
  double k = 1.0 / (1.0 + 0.2316419 * fabs(d));
  double c = 0.39894228040143267793994605993438 * exp(-0.5 * d * d) *
             (k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))));
  return d > 0 ? 1.0 - c : c;
}

static inline void blackscholes_reference(double s, double x, double t, double r, double v,
                                          double* call, double* put) {
  double sqrt_t = sqrt(t);
  double d1 = (log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t);
  double d2 = d1 - v * sqrt_t;
  double cnd1 = blackscholes_cnd(d1), cnd2 = blackscholes_cnd(d2);
  double disc = exp(-r * t);
  *call = s * cnd1 - x * disc * cnd2;
  *put = x * disc * (1.0 - cnd2) - s * (1.0 - cnd1);
}

/* Single precision against double: absolute error on prices up to ~100. */
static inline int blackscholes_close(float got, double want) {
  return fabs((double)got - want) <= 2e-4 * fabs(want) + 2e-4;
}

/* The rate of iteration it: every iteration prices with a different rate, so
 * a block left at an older iteration's result is caught by the check. */
static inline float blackscholes_rate(unsigned it) { return 0.02f + 0.0025f * (float)(it % 8); }
#define BLACKSCHOLES_VOLATILITY 0.30f

#endif /* PARASOL_BLACKSCHOLES_KERNELS_H */
