// Math built-ins against long double references, within OpenCL's ULP limits
// (OpenCL C 1.2 full profile, section 7.4), over sampled inputs.
#include "executor.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <random>

using namespace test;

namespace {

// An infinite result is exact where the reference rounds to it in T, and
// otherwise counts as 2^max_exponent (one ulp past the largest finite
// value), so a result that overflows where the exact value is just below
// T's overflow threshold is measured, not refused.
template <class T>
double ulp_error(T got, long double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0 : 1e9;
  if (std::isinf(ref)) return got == T(ref) ? 0 : 1e9;
  if (std::isnan(got)) return 1e9;
  if (std::isinf(got) && got == T(ref)) return 0;
  const int mant = std::numeric_limits<T>::digits - 1;
  const int min_exp = std::numeric_limits<T>::min_exponent - 1;
  const int max_exp = std::numeric_limits<T>::max_exponent - 1;
  long double g = std::isinf(got) ? std::copysign(std::ldexp(1.0L, max_exp + 1), (long double)got) : got;
  int e = ref == 0 ? min_exp : std::ilogb(ref);
  if (e < min_exp) e = min_exp;
  if (e > max_exp) e = max_exp;
  long double ulp = std::ldexp(1.0L, e - mant);
  return double(std::fabs(g - ref) / ulp);
}

// sin(pi x), cos(pi x) in long double, reduced exactly first (x * pi itself
// would lose the digits that matter near the zeros).
long double sinpi_ref(long double x) {
  const long double pi = 3.14159265358979323846264338327950288L;
  long double r = x - 2 * std::nearbyint(x / 2), a = std::fabs(r);
  if (a > 0.5L) a = 1 - a;
  long double v = a <= 0.25L ? sinl(pi * a) : cosl(pi * (0.5L - a));
  return r < 0 ? -v : v;
}
long double cospi_ref(long double x) {
  const long double pi = 3.14159265358979323846264338327950288L;
  long double a = std::fabs(x - 2 * std::nearbyint(x / 2)), sign = 1;
  if (a > 0.5L) a = 1 - a, sign = -1;
  return sign * (a >= 0.25L ? sinl(pi * (0.5L - a)) : cosl(pi * a));
}

struct Case {
  const char* name;   // kernel name
  const char* expr;   // OpenCL expression in x (and y)
  std::function<long double(long double, long double)> ref;
  double max_ulp;
  double lo, hi;      // x range
  double ylo = 0, yhi = 0;
};

template <class T>
void check_cases(const std::vector<Case>& cases, const char* type) {
  std::string src = std::string(std::is_same_v<T, double> ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "");
  for (auto& c : cases)
    src += std::string("__kernel void ") + c.name + "(__global const " + type + "* xs, __global const " + type +
           "* ys, __global " + type + "* out) { size_t i = get_global_id(0); " + type +
           " x = xs[i], y = ys[i]; out[i] = " + c.expr + "; }\n";
  auto p = build_ok(src);
  const size_t n = 1 << 14;
  std::mt19937_64 rng(7);
  for (auto& c : cases) {
    Buf<T> x(n), y(n), out(n);
    std::uniform_real_distribution<double> dx(c.lo, c.hi), dy(c.ylo, c.yhi);
    for (size_t i = 0; i < n; ++i) x[i] = T(dx(rng)), y[i] = T(dy(rng));
    Args args;
    args.ptr(x.data()).ptr(y.data()).ptr(out.data());
    run(*p, c.name, args, range(1, {n}, {64}));
    double worst = 0;
    size_t worst_i = 0;
    for (size_t i = 0; i < n; ++i) {
      double e = ulp_error<T>(out[i], c.ref(x[i], y[i]));
      if (e > worst) worst = e, worst_i = i;
    }
    INFO(type << " " << c.name << ": worst " << worst << " ulp at x=" << x[worst_i] << " y=" << y[worst_i]
              << " got " << out[worst_i]);
    std::printf("  %-6s %-10s max error %.3f ulp (limit %g)\n", type, c.name, worst, c.max_ulp);
    CHECK(worst <= c.max_ulp);
  }
}

std::vector<Case> common_cases() {
  using L = long double;
  return {
      {"k_sin", "sin(x)", [](L x, L) { return sinl(x); }, 4, -1000, 1000},
      {"k_cos", "cos(x)", [](L x, L) { return cosl(x); }, 4, -1000, 1000},
      {"k_tan", "tan(x)", [](L x, L) { return tanl(x); }, 5, -10, 10},
      {"k_exp", "exp(x)", [](L x, L) { return expl(x); }, 3, -80, 80},
      {"k_exp2", "exp2(x)", [](L x, L) { return exp2l(x); }, 3, -120, 120},
      {"k_log", "log(x)", [](L x, L) { return logl(x); }, 3, 1e-30, 1e30},
      {"k_log2", "log2(x)", [](L x, L) { return log2l(x); }, 3, 1e-3, 1e6},
      {"k_sqrt", "sqrt(x)", [](L x, L) { return sqrtl(x); }, 0.5, 0, 1e30},
      {"k_rsqrt", "rsqrt(x)", [](L x, L) { return 1 / sqrtl(x); }, 2, 1e-10, 1e10},
      {"k_pow", "pow(x, y)", [](L x, L y) { return powl(x, y); }, 16, 0.01, 100, -10, 10},
      {"k_atan", "atan(x)", [](L x, L) { return atanl(x); }, 5, -100, 100},
      {"k_asin", "asin(x)", [](L x, L) { return asinl(x); }, 4, -1, 1},
      {"k_acos", "acos(x)", [](L x, L) { return acosl(x); }, 4, -1, 1},
      {"k_sinh", "sinh(x)", [](L x, L) { return sinhl(x); }, 4, -20, 20},
      {"k_tanh", "tanh(x)", [](L x, L) { return tanhl(x); }, 5, -10, 10},
      {"k_cbrt", "cbrt(x)", [](L x, L) { return cbrtl(x); }, 2, -1e6, 1e6},
      {"k_sinpi", "sinpi(x)", [](L x, L) { return sinpi_ref(x); }, 4, -4, 4},
      {"k_cospi", "cospi(x)", [](L x, L) { return cospi_ref(x); }, 4, -4, 4},
      {"k_fma", "fma(x, y, (x) * 0.5f)", [](L x, L y) { return x * y + x * 0.5L; }, 0.5, -100, 100, -100, 100},
      {"k_hypot", "hypot(x, y)", [](L x, L y) { return sqrtl(x * x + y * y); }, 4, -1e3, 1e3, -1e3, 1e3},
      {"k_atan2", "atan2(x, y)", [](L x, L y) { return atan2l(x, y); }, 6, -10, 10, -10, 10},
      {"k_floor", "floor(x)", [](L x, L) { return floorl(x); }, 0, -1e6, 1e6},
      {"k_fmod", "fmod(x, y)", [](L x, L y) { return fmodl(x, y); }, 0, -1e3, 1e3, 1, 10},
  };
}

}  // namespace

TEST_CASE("math accuracy, float", "[math]") {
  auto cases = common_cases();
  // The float fma case needs exact rounding of x*y + x*0.5: computed in long double it is.
  check_cases<float>(cases, "float");
}

TEST_CASE("math accuracy, double", "[math]") {
  auto cases = common_cases();
  for (auto& c : cases) {
    std::string e = c.expr;
    if (auto pos = e.find("0.5f"); pos != std::string::npos) e.replace(pos, 4, "0.5");
    static std::deque<std::string> keep;  // stable addresses
    keep.push_back(e);
    c.expr = keep.back().c_str();
  }
  check_cases<double>(cases, "double");
}

namespace {

// A component of a random vector of scale 2^e: a random significand a
// little below 2^e (so the components of one vector are alike in size and
// none dominates), sometimes zero, random sign.
template <class T>
T geometric_component(std::mt19937_64& rng, int e) {
  if (rng() % 16 == 0) return rng() % 2 ? T(0) : -T(0);
  std::uniform_real_distribution<double> sig(1.0, 2.0);
  T v = T(std::ldexp(sig(rng), e - int(rng() % 4)));
  return rng() % 2 ? -v : v;
}

// length, distance and normalize of T, widths 1-4, over the whole exponent
// range (subnormals and values whose squares overflow T included), against
// long double references (whose range holds every square of a double).
// Limits: the OpenCL C specification's ULP table for the geometric
// functions (float: 2.75 + 0.5n, 2.5 + 2n, 2 + n; double: 5.5 + n,
// 5.5 + 2n, 4.5 + n). normalize's special cases are the spec's: a zero
// vector comes back unchanged, a NaN makes every component NaN, and
// infinite components count as +-1 and the finite ones as +-0.
template <class T>
void check_geometric(const char* type, double len_ulp, double len_n, double dist_ulp, double dist_n,
                     double norm_ulp) {
  std::string src = std::is_same_v<T, double> ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "";
  for (int n = 1; n <= 4; ++n) {
    const std::string t = std::string(type) + (n == 1 ? "" : std::to_string(n)), ns = std::to_string(n);
    const std::string load_a = n == 1 ? "a[i]" : "vload" + ns + "(i, a)", load_b = n == 1 ? "b[i]" : "vload" + ns + "(i, b)";
    src += "__kernel void g" + ns + "(__global const " + type + "* a, __global const " + type + "* b, __global " + type +
           "* len, __global " + type + "* dist, __global " + type + "* norm) { size_t i = get_global_id(0); " + t +
           " x = " + load_a + ", y = " + load_b + "; len[i] = length(x); dist[i] = distance(x, y); " +
           (n == 1 ? "norm[i] = normalize(x);" : "vstore" + ns + "(normalize(x), i, norm);") + " }\n";
  }
  auto p = build_ok(src);
  using L = std::numeric_limits<T>;
  const int lowest = L::min_exponent - L::digits, highest = L::max_exponent - 1;  // 2^lowest: the least subnormal
  std::mt19937_64 rng(3);
  const T inf = L::infinity(), nan = L::quiet_NaN();
  for (int n = 1; n <= 4; ++n) {
    const size_t items = 4096;
    Buf<T> a(items * n), b(items * n), len(items), dist(items), norm(items * n);
    for (size_t i = 0; i < items; ++i) {
      // Mostly uniform over the exponents; every eighth vector at the edges
      // where the squares of T overflow or underflow (2^+-64 for float).
      int e = lowest + int(rng() % unsigned(highest - lowest + 1));
      if (i % 8 == 1) e = L::max_exponent / 2 + int(rng() % 5) - 2;
      if (i % 8 == 2) e = -(L::max_exponent / 2) + int(rng() % 5) - 2;
      for (int k = 0; k < n; ++k) {
        a[i * n + k] = geometric_component<T>(rng, e);
        // b: a neighbour of a (small distances) or an unrelated vector of
        // the same scale (opposite signs: sums that overflow T).
        b[i * n + k] = i % 2 ? T(a[i * n + k] * T(1 + 0x1p-10)) : geometric_component<T>(rng, e);
      }
    }
    // Special vectors: zero, an infinite component, a NaN component.
    for (int k = 0; k < n; ++k) a[0 * n + k] = k % 2 ? -T(0) : T(0);
    for (int k = 0; k < n; ++k) a[3 * n + k] = k == n - 1 ? -inf : T(k + 1);
    for (int k = 0; k < n; ++k) a[5 * n + k] = k == 0 ? nan : T(k);
    for (int k = 0; k < n; ++k) a[7 * n + k] = inf;
    Args args;
    args.ptr(a.data()).ptr(b.data()).ptr(len.data()).ptr(dist.data()).ptr(norm.data());
    run(*p, "g" + std::to_string(n), args, range(1, {items}, {64}));
    double worst_len = 0, worst_dist = 0, worst_norm = 0;
    for (size_t i = 0; i < items; ++i) {
      const T* x = &a[i * n];
      const T* y = &b[i * n];
      long double sq = 0, dsq = 0;
      bool any_nan = false, any_inf = false;
      for (int k = 0; k < n; ++k) {
        sq += (long double)x[k] * x[k];
        long double d = (long double)x[k] - y[k];
        dsq += d * d;
        any_nan |= std::isnan(x[k]);
        any_inf |= std::isinf(x[k]);
      }
      INFO(type << n << " item " << i << ": x0 " << x[0] << ", y0 " << y[0]);
      const double el = ulp_error<T>(len[i], std::sqrt(sq)), ed = ulp_error<T>(dist[i], std::sqrt(dsq));
      CHECK(el <= len_ulp + len_n * n);
      CHECK(ed <= dist_ulp + dist_n * n);
      worst_len = std::max(worst_len, el);
      worst_dist = std::max(worst_dist, ed);
      // normalize's reference, special cases first.
      long double want[4];
      long double norm_sq = sq;
      for (int k = 0; k < n; ++k) want[k] = x[k];
      if (any_inf && !any_nan) {
        norm_sq = 0;
        for (int k = 0; k < n; ++k) {
          want[k] = std::isinf(x[k]) ? std::copysign(1.0L, (long double)x[k]) : std::copysign(0.0L, (long double)x[k]);
          norm_sq += want[k] * want[k];
        }
      }
      for (int k = 0; k < n; ++k) {
        const T got = norm[i * n + k];
        if (any_nan) {
          CHECK(std::isnan(got));
          continue;
        }
        if (norm_sq == 0) {  // the zero vector itself, signs included
          CHECK(got == 0);
          CHECK(std::signbit(got) == std::signbit(x[k]));
          continue;
        }
        const double en = ulp_error<T>(got, want[k] / std::sqrt(norm_sq));
        CHECK(en <= norm_ulp + n);
        worst_norm = std::max(worst_norm, en);
      }
    }
    std::printf("  %-6s n=%d  length %.3f ulp, distance %.3f ulp, normalize %.3f ulp (worst)\n", type, n, worst_len,
                worst_dist, worst_norm);
  }
}

}  // namespace

TEST_CASE("length, distance and normalize keep their ULP limits over the whole float range", "[math][geometric]") {
  check_geometric<float>("float", 2.75, 0.5, 2.5, 2, 2);
}

TEST_CASE("length, distance and normalize keep their ULP limits over the whole double range", "[math][geometric]") {
  check_geometric<double>("double", 5.5, 1, 5.5, 2, 4.5);
}

TEST_CASE("vector math and relational built-ins", "[math]") {
  auto p = build_ok(R"(
    __kernel void k(__global float4* a, __global int4* r) {
      size_t i = get_global_id(0);
      float4 x = a[i];
      a[i] = sqrt(fabs(x)) + floor(x) + select((float4)(0.0f), (float4)(1.0f), isgreater(x, (float4)(0.0f)));
      r[i] = isnan(x / (float4)(0.0f)) + (int4)(any(x < (float4)(0.0f)), all(x > (float4)(-100.0f)), 0, 0);
    })");
  Buf<float> a(64 * 4);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(int(i) - 100) * 0.75f;
  auto a0 = a;
  Buf<int> r(64 * 4);
  Args args;
  args.ptr(a.data()).ptr(r.data());
  run(*p, "k", args, range(1, {64}, {8}));
  for (size_t v = 0; v < 64; ++v) {
    bool any_neg = false, all_gt = true;
    for (int k = 0; k < 4; ++k) any_neg |= a0[v * 4 + k] < 0, all_gt &= a0[v * 4 + k] > -100;
    for (int k = 0; k < 4; ++k) {
      float x = a0[v * 4 + k];
      REQUIRE(a[v * 4 + k] == std::sqrt(std::fabs(x)) + std::floor(x) + (x > 0 ? 1.0f : 0.0f));
      int expect = (x == 0 ? -1 : 0) + (k == 0 ? int(any_neg) : k == 1 ? int(all_gt) : 0);
      REQUIRE(r[v * 4 + k] == expect);
    }
  }
}

TEST_CASE("conversions and half", "[math]") {
  auto p = build_ok(R"(
    __kernel void k(__global const float* f, __global int* i, __global uchar* u, __global half* h, __global float* back) {
      size_t g = get_global_id(0);
      i[g] = convert_int_sat_rte(f[g]);
      u[g] = convert_uchar_sat(f[g]);
      vstore_half(f[g], g, h);
      back[g] = vload_half(g, h);
    })");
  const size_t n = 256;
  Buf<float> f(n), back(n);
  Buf<int> i(n);
  Buf<unsigned char> u(n);
  Buf<uint16_t> h(n);
  for (size_t k = 0; k < n; ++k) f[k] = (float(k) - 128.0f) * 2.5f + 0.5f;
  f[0] = 3e9f, f[1] = -3e9f, f[2] = NAN, f[3] = 1e-6f, f[4] = 70000.0f;
  Args args;
  args.ptr(f.data()).ptr(i.data()).ptr(u.data()).ptr(h.data()).ptr(back.data());
  run(*p, "k", args, range(1, {n}, {16}));
  for (size_t k = 0; k < n; ++k) {
    float x = f[k];
    int ei = std::isnan(x) ? 0 : x >= 2147483647.0f ? INT32_MAX : x <= -2147483648.0f ? INT32_MIN : int(std::nearbyint(x));
    REQUIRE(i[k] == ei);
    int eu = std::isnan(x) ? 0 : x <= 0 ? 0 : x >= 255 ? 255 : int(x);
    REQUIRE(u[k] == eu);
    // Round trip through half: NaN stays NaN, overflow is inf, else within half precision.
    if (std::isnan(x)) REQUIRE(std::isnan(back[k]));
    else if (std::fabs(x) > 65520) REQUIRE(std::isinf(back[k]));
    else REQUIRE(std::fabs(back[k] - x) <= std::max(std::fabs(x) * (1.0f / 2048), 6e-8f));
  }
  REQUIRE(h[5] == 0xdccc);  // -307.0 as an IEEE half
}
