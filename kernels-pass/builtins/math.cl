// Math built-ins for float and double. Scalars map onto LLVM intrinsics or
// glibc's libm (<= 1-2 ulp, inside OpenCL's limits); float versions of
// functions glibc lacks compute in double and round once.
#include "parasol_builtins.h"

#define PI_D 3.14159265358979323846

// F(float), D(double) are expressions in x (and y, z).
#define MATH1(NAME, F, D)                                                 \
  OVL float NAME(float x) { return F; }                                  \
  OVL double NAME(double x) { return D; }                                \
  LIFT1_N(NAME, float, float) LIFT1_N(NAME, double, double)
#define MATH2(NAME, F, D)                                                 \
  OVL float NAME(float x, float y) { return F; }                         \
  OVL double NAME(double x, double y) { return D; }                      \
  LIFT2_N(NAME, float, float, float) LIFT2_N(NAME, double, double, double)
#define MATH3(NAME, F, D)                                                 \
  OVL float NAME(float x, float y, float z) { return F; }                \
  OVL double NAME(double x, double y, double z) { return D; }            \
  LIFT3_N(NAME, float, float, float, float) LIFT3_N(NAME, double, double, double, double)
// NAME(x) is libm's NAMEf / NAME.
#define LIBM1(NAME) MATH1(NAME, __builtin_##NAME##f(x), __builtin_##NAME(x))
#define LIBM2(NAME) MATH2(NAME, __builtin_##NAME##f(x, y), __builtin_##NAME(x, y))

LIBM1(acos) LIBM1(acosh) LIBM1(asin) LIBM1(asinh) LIBM1(atan) LIBM1(atanh)
LIBM1(ceil) LIBM1(cos) LIBM1(cosh) LIBM1(erf) LIBM1(erfc)
LIBM1(expm1) LIBM1(fabs) LIBM1(floor)
LIBM1(lgamma) LIBM1(log1p) LIBM1(logb)
LIBM1(rint) LIBM1(round) LIBM1(sin) LIBM1(sinh) LIBM1(sqrt) LIBM1(tan)
LIBM1(tanh) LIBM1(tgamma) LIBM1(trunc)
LIBM2(atan2) LIBM2(copysign) LIBM2(fdim) LIBM2(fmod) LIBM2(hypot)
LIBM2(nextafter) LIBM2(pow) LIBM2(remainder)

// OpenCL allows 3 ulp for exp, exp2, log, log2 and log10 in float. The
// vectoriser maps float calls onto glibc's libmvec, whose float versions
// may be 4 ulp off (measured: logf 3.3 ulp at 0.78); in double and rounded
// once they stay within 0.5 ulp (+ a trace), vectorised all the same.
#define VIA_DOUBLE1(NAME) MATH1(NAME, (float)__builtin_##NAME((double)x), __builtin_##NAME(x))
VIA_DOUBLE1(exp) VIA_DOUBLE1(exp2) VIA_DOUBLE1(log) VIA_DOUBLE1(log2) VIA_DOUBLE1(log10)

// glibc names that clang does not know as builtins; asm labels keep them
// apart from the OpenCL overloads of the same name.
double libm_exp10(double) __asm__("exp10");
float libm_exp10f(float) __asm__("exp10f");
double libm_lgamma_r(double, __private int *) __asm__("lgamma_r");
float libm_lgammaf_r(float, __private int *) __asm__("lgammaf_r");
MATH1(exp10, libm_exp10f(x), libm_exp10(x))
// glibc's double cbrt is up to ~3 ulp; one Newton step with an exactly
// computed residual (fma) brings it within OpenCL's 2.
INL static double cbrt_d(double x) {
  double y = __builtin_cbrt(x);
  if (y == 0.0 || __builtin_isinf(y) || y != y) return y;
  double y2 = y * y, e2 = __builtin_fma(y, y, -y2);
  double y3 = y2 * y, e3 = __builtin_fma(y2, y, -y3) + e2 * y;
  double r = (y3 - x) + e3;
  return y - r / (3.0 * y2);
}
MATH1(cbrt, __builtin_cbrtf(x), cbrt_d(x))
// In float: sqrt and the division each round once (0.5 ulp), together within
// rsqrt's 2 ulp; twice as many lanes per vector as going through double.
MATH1(rsqrt, 1.0f / __builtin_sqrtf(x), 1.0 / __builtin_sqrt(x))

// x*pi reduced exactly to [-1, 1] first, so large arguments keep their accuracy.
INL static double reduce_pi(double x) { return x - 2.0 * __builtin_rint(x * 0.5); }
// Folded to [0, 1/2] and then to whichever of sin/cos has its argument in
// [0, pi/4], so results near the zeros keep their relative accuracy.
INL static double sin_cos_pi_folded(double a, int want_cos) {
  // a in [0, 0.5]; cos(pi a) = sin(pi (0.5 - a)).
  if (want_cos) a = 0.5 - a;
  return a <= 0.25 ? __builtin_sin(PI_D * a) : __builtin_cos(PI_D * (0.5 - a));
}
INL static double sinpi_d(double x) {
  if (__builtin_isinf(x) || x != x) return __builtin_nan("");
  double r = reduce_pi(x);               // [-1, 1], exact
  double a = __builtin_fabs(r);
  if (a > 0.5) a = 1.0 - a;              // sin(pi (1 - a)) = sin(pi a), exact
  double v = sin_cos_pi_folded(a, 0);
  if (v == 0.0) return __builtin_copysign(0.0, x);
  return r < 0 ? -v : v;
}
INL static double cospi_d(double x) {
  if (__builtin_isinf(x) || x != x) return __builtin_nan("");
  double a = __builtin_fabs(reduce_pi(x));  // [0, 1]
  double sign = 1.0;
  if (a > 0.5) { a = 1.0 - a; sign = -1.0; }
  double v = sin_cos_pi_folded(a, 1);
  return v == 0.0 ? 0.0 : sign * v;
}
INL static double tanpi_d(double x) { return sinpi_d(x) / cospi_d(x); }
MATH1(sinpi, (float)sinpi_d(x), sinpi_d(x))
MATH1(cospi, (float)cospi_d(x), cospi_d(x))
MATH1(tanpi, (float)tanpi_d(x), tanpi_d(x))
MATH1(asinpi, (float)(__builtin_asin((double)x) / PI_D), __builtin_asin(x) / PI_D)
MATH1(acospi, (float)(__builtin_acos((double)x) / PI_D), __builtin_acos(x) / PI_D)
MATH1(atanpi, (float)(__builtin_atan((double)x) / PI_D), __builtin_atan(x) / PI_D)
MATH2(atan2pi, (float)(__builtin_atan2((double)x, (double)y) / PI_D), __builtin_atan2(x, y) / PI_D)
MATH2(fmax, __builtin_fmaxf(x, y), __builtin_fmax(x, y))
MATH2(fmin, __builtin_fminf(x, y), __builtin_fmin(x, y))
MATH2(maxmag, __builtin_fabsf(x) > __builtin_fabsf(y) ? x : __builtin_fabsf(y) > __builtin_fabsf(x) ? y : __builtin_fmaxf(x, y),
              __builtin_fabs(x) > __builtin_fabs(y) ? x : __builtin_fabs(y) > __builtin_fabs(x) ? y : __builtin_fmax(x, y))
MATH2(minmag, __builtin_fabsf(x) < __builtin_fabsf(y) ? x : __builtin_fabsf(y) < __builtin_fabsf(x) ? y : __builtin_fminf(x, y),
              __builtin_fabs(x) < __builtin_fabs(y) ? x : __builtin_fabs(y) < __builtin_fabs(x) ? y : __builtin_fmin(x, y))
MATH2(powr, x < 0 ? __builtin_nanf("") : __builtin_powf(x, y), x < 0 ? __builtin_nan("") : __builtin_pow(x, y))
MATH3(fma, __builtin_fmaf(x, y, z), __builtin_fma(x, y, z))
// mad may be computed any way that is fast; fma is exact and vectorises.
MATH3(mad, __builtin_fmaf(x, y, z), __builtin_fma(x, y, z))

// Native and half_ variants: the full-precision ones satisfy their (looser) limits.
#define ALIAS1(P, NAME) MATH1(P##NAME, NAME(x), NAME(x))
#define ALIAS2(P, NAME) MATH2(P##NAME, NAME(x, y), NAME(x, y))
#define NATIVE_AND_HALF1(NAME) ALIAS1(native_, NAME) ALIAS1(half_, NAME)
// Those computed in double above: libm's float versions (libmvec's when
// vectorised) are well within native_'s and half_'s limits, and faster.
#define FLOAT_LIBM1(P, NAME) MATH1(P##NAME, __builtin_##NAME##f(x), __builtin_##NAME(x))
#define NATIVE_AND_HALF_FLOAT1(NAME) FLOAT_LIBM1(native_, NAME) FLOAT_LIBM1(half_, NAME)
NATIVE_AND_HALF1(cos) NATIVE_AND_HALF_FLOAT1(exp) NATIVE_AND_HALF_FLOAT1(exp2) NATIVE_AND_HALF1(exp10)
NATIVE_AND_HALF_FLOAT1(log) NATIVE_AND_HALF_FLOAT1(log2) NATIVE_AND_HALF_FLOAT1(log10) NATIVE_AND_HALF1(rsqrt)
NATIVE_AND_HALF1(sin) NATIVE_AND_HALF1(sqrt) NATIVE_AND_HALF1(tan)
MATH1(native_recip, 1.0f / x, 1.0 / x) MATH1(half_recip, 1.0f / x, 1.0 / x)
MATH2(native_divide, x / y, x / y) MATH2(half_divide, x / y, x / y)
ALIAS2(native_, powr) ALIAS2(half_, powr)

// Functions with an integer operand or result.
OVL float ldexp(float x, int n) { return __builtin_ldexpf(x, n); }
OVL double ldexp(double x, int n) { return __builtin_ldexp(x, n); }
LIFT2_N(ldexp, float, float, int) LIFT2_N(ldexp, double, double, int)
#define LDEXP_SCALAR_N(T, N) OVL T##N ldexp(T##N x, int n) { return ldexp(x, (int##N)(n)); }
#define LDEXP_ALL(T) LDEXP_SCALAR_N(T, 2) LDEXP_SCALAR_N(T, 3) LDEXP_SCALAR_N(T, 4) LDEXP_SCALAR_N(T, 8) LDEXP_SCALAR_N(T, 16)
LDEXP_ALL(float) LDEXP_ALL(double)
OVL float pown(float x, int n) { return (float)__builtin_pow((double)x, (double)n); }
OVL double pown(double x, int n) { return __builtin_pow(x, (double)n); }
LIFT2_N(pown, float, float, int) LIFT2_N(pown, double, double, int)
INL static double rootn_d(double x, int n) {
  if (n == 0) return __builtin_nan("");
  if (x < 0 && (n & 1)) return -__builtin_pow(-x, 1.0 / n);
  if (x < 0) return __builtin_nan("");
  return __builtin_pow(x, 1.0 / n);
}
OVL float rootn(float x, int n) { return (float)rootn_d(x, n); }
OVL double rootn(double x, int n) { return rootn_d(x, n); }
LIFT2_N(rootn, float, float, int) LIFT2_N(rootn, double, double, int)
OVL int ilogb(float x) { return __builtin_ilogbf(x); }
OVL int ilogb(double x) { return __builtin_ilogb(x); }
LIFT1_N(ilogb, int, float) LIFT1_N(ilogb, int, double)
OVL float nan(uint c) { return __builtin_astype(0x7fc00000u | (c & 0x3fffff), float); }
OVL double nan(ulong c) { return __builtin_astype(0x7ff8000000000000ul | (c & 0x7ffffffffffff), double); }
LIFT1_N(nan, float, uint) LIFT1_N(nan, double, ulong)

// Functions writing a second result through a pointer, in every address space.
#define PTR_OUT_FNS(AS, T)                                                              \
  OVL T fract(T x, AS T *ip) { T f = floor(x); *ip = f; return fmin(x - f, (T)0x1.fffffep-1f); } \
  OVL T modf(T x, AS T *ip) { T t = trunc(x); *ip = t; return isinf(x) ? copysign((T)0, x) : x - t; } \
  OVL T sincos(T x, AS T *c) { *c = cos(x); return sin(x); }                          \
  OVL T frexp(T x, AS int *e) { int ee; T m = __builtin_frexp(x, &ee); *e = ee; return m; } \
  OVL T lgamma_r(T x, AS int *s) { int ss; T r = sizeof(T) == 4 ? libm_lgammaf_r(x, &ss) : libm_lgamma_r(x, &ss); *s = ss; return r; } \
  OVL T remquo(T x, T y, AS int *q) { int qq; T r = __builtin_remquo(x, y, &qq); *q = qq; return r; }
#define PTR_OUT_VEC(AS, T, N, I)                                                         \
  OVL T##N fract(T##N x, AS T##N *ip) { T##N r; T##N f; for (int i = 0; i < N; ++i) { T t; r[i] = fract(x[i], &t); f[i] = t; } *ip = f; return r; } \
  OVL T##N modf(T##N x, AS T##N *ip) { T##N r; T##N f; for (int i = 0; i < N; ++i) { T t; r[i] = modf(x[i], &t); f[i] = t; } *ip = f; return r; } \
  OVL T##N sincos(T##N x, AS T##N *c) { *c = cos(x); return sin(x); }                \
  OVL T##N frexp(T##N x, AS I##N *e) { T##N r; I##N f; for (int i = 0; i < N; ++i) { int t; r[i] = frexp(x[i], &t); f[i] = t; } *e = f; return r; } \
  OVL T##N lgamma_r(T##N x, AS I##N *e) { T##N r; I##N f; for (int i = 0; i < N; ++i) { int t; r[i] = lgamma_r(x[i], &t); f[i] = t; } *e = f; return r; } \
  OVL T##N remquo(T##N x, T##N y, AS I##N *e) { T##N r; I##N f; for (int i = 0; i < N; ++i) { int t; r[i] = remquo(x[i], y[i], &t); f[i] = t; } *e = f; return r; }
#define PTR_OUT_ALL(AS, T) PTR_OUT_VEC(AS, T, 2, int) PTR_OUT_VEC(AS, T, 3, int) \
  PTR_OUT_VEC(AS, T, 4, int) PTR_OUT_VEC(AS, T, 8, int) PTR_OUT_VEC(AS, T, 16, int)
#define PTR_OUT_SCALAR_FOR_AS(AS, unused) PTR_OUT_FNS(AS, float) PTR_OUT_FNS(AS, double)
#define PTR_OUT_FOR_AS(AS, unused) PTR_OUT_ALL(AS, float) PTR_OUT_ALL(AS, double)
FOR_WRITABLE_AS(PTR_OUT_SCALAR_FOR_AS, 0)
FOR_WRITABLE_AS(PTR_OUT_FOR_AS, 0)
