// A few single-precision math built-ins over sampled inputs, on the native
// CPU device and on PoCL: each result within OpenCL 1.2's ULP limit of a
// double-precision reference. (kernels-pass's own tests cover the rest.)
#include <cmath>
#include <functional>
#include <random>

#include "native/native_fixture.h"

using namespace parasol_test;

namespace {

const char* kMathKernels = R"CLC(
__kernel void f_sin(__global const float* x, __global const float* y, __global float* o) { size_t i = get_global_id(0); o[i] = sin(x[i]); }
__kernel void f_cos(__global const float* x, __global const float* y, __global float* o) { size_t i = get_global_id(0); o[i] = cos(x[i]); }
__kernel void f_exp(__global const float* x, __global const float* y, __global float* o) { size_t i = get_global_id(0); o[i] = exp(x[i]); }
__kernel void f_log(__global const float* x, __global const float* y, __global float* o) { size_t i = get_global_id(0); o[i] = log(x[i]); }
__kernel void f_sqrt(__global const float* x, __global const float* y, __global float* o) { size_t i = get_global_id(0); o[i] = sqrt(x[i]); }
__kernel void f_pow(__global const float* x, __global const float* y, __global float* o) { size_t i = get_global_id(0); o[i] = pow(x[i], y[i]); }
__kernel void f_tanh(__global const float* x, __global const float* y, __global float* o) { size_t i = get_global_id(0); o[i] = tanh(x[i]); }
__kernel void f_atan2(__global const float* x, __global const float* y, __global float* o) { size_t i = get_global_id(0); o[i] = atan2(y[i], x[i]); }
)CLC";

struct MathCase {
  const char* kernel;
  double max_ulp;  // OpenCL 1.2 section 7.4, single precision
  float lo, hi;    // x sampled in [lo, hi]
  float ylo, yhi;  // y (second operand)
  std::function<double(double, double)> reference;
};

// Distance in units in the last place of the float nearest the exact result.
double ulp_error(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : 1e9;
  if (std::isinf(want)) return got == static_cast<float>(want) ? 0 : 1e9;
  int exp = 0;
  std::frexp(want, &exp);
  double ulp = std::ldexp(1.0, std::max(exp - 24, -149));
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

}  // namespace

TEST_CASE("sin, cos, exp, log, sqrt, pow, tanh and atan2 stay within their ULP limits on native and PoCL") {
  NativeAndPocl f;
  Program prog(f.ctx, kMathKernels);
  const MathCase cases[] = {
      {"f_sin", 4, -100.0f, 100.0f, 0, 0, [](double x, double) { return std::sin(x); }},
      {"f_cos", 4, -100.0f, 100.0f, 0, 0, [](double x, double) { return std::cos(x); }},
      {"f_exp", 3, -87.0f, 88.0f, 0, 0, [](double x, double) { return std::exp(x); }},
      {"f_log", 3, 1e-30f, 1e30f, 0, 0, [](double x, double) { return std::log(x); }},
      {"f_sqrt", 3, 0.0f, 1e30f, 0, 0, [](double x, double) { return std::sqrt(x); }},
      {"f_pow", 16, 1e-3f, 100.0f, -12.0f, 12.0f, [](double x, double y) { return std::pow(x, y); }},
      {"f_tanh", 5, -12.0f, 12.0f, 0, 0, [](double x, double) { return std::tanh(x); }},
      {"f_atan2", 6, -50.0f, 50.0f, -50.0f, 50.0f, [](double x, double y) { return std::atan2(y, x); }},
  };
  const size_t n = 1 << 14;
  for (const auto& c : cases) {
    INFO(c.kernel);
    std::mt19937 rng(42);
    std::vector<float> x(n), y(n, 0.0f);
    // Log-uniform for wide positive ranges, uniform otherwise.
    const bool wide = c.lo > 0 && c.hi / c.lo > 1e6;
    std::uniform_real_distribution<double> ux(wide ? std::log(c.lo) : c.lo, wide ? std::log(c.hi) : c.hi),
        uy(c.ylo, c.yhi);
    for (size_t i = 0; i < n; ++i) {
      x[i] = static_cast<float>(wide ? std::exp(ux(rng)) : ux(rng));
      y[i] = static_cast<float>(uy(rng));
    }
    x[0] = c.lo;
    x[1] = c.hi;
    Kernel k(prog, c.kernel);
    std::vector<std::vector<float>> got;
    for (auto [name, q] : f.queues()) {
      INFO(name);
      Mem mx(make_buffer(f.ctx, x)), my(make_buffer(f.ctx, y)),
          out(f.ctx, CL_MEM_READ_WRITE, n * sizeof(float));
      set_args(k, mx.m, my.m, out.m);
      launch(q, k, 1, &n, nullptr);
      got.push_back(read_back<float>(q, out, n));
      double worst = 0;
      size_t worst_i = 0;
      for (size_t i = 0; i < n; ++i) {
        double e = ulp_error(got.back()[i], c.reference(x[i], y[i]));
        if (e > worst) worst = e, worst_i = i;
      }
      INFO("worst " << worst << " ulp at x=" << x[worst_i] << " y=" << y[worst_i] << ": got "
                    << got.back()[worst_i] << ", reference " << c.reference(x[worst_i], y[worst_i]));
      CHECK(worst <= c.max_ulp);
    }
    // The two devices agree within the sum of their allowances.
    size_t far = 0;
    for (size_t i = 0; i < n; ++i)
      if (ulp_error(got[0][i], got[1][i]) > 2 * c.max_ulp) ++far;
    CHECK(far == 0);
  }
}
