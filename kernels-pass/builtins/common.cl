// Common, geometric and relational built-ins.
#include "parasol_builtins.h"

// ---- common (float/double), elementwise bodies ------------------------------
#define COMMON_FNS(T, S)                                                            \
  OVL T clamp(T x, T lo, T hi) { return fmin(fmax(x, lo), hi); }                     \
  OVL T degrees(T r) { return r * (S)(180.0 / 3.14159265358979323846); }             \
  OVL T radians(T d) { return d * (S)(3.14159265358979323846 / 180.0); }             \
  OVL T max(T x, T y) { return fmax(x, y); }                                        \
  OVL T min(T x, T y) { return fmin(x, y); }                                        \
  OVL T mix(T x, T y, T a) { return x + (y - x) * a; }                              \
  OVL T step(T edge, T x) { return x < edge ? (T)0 : (T)1; }                        \
  OVL T smoothstep(T e0, T e1, T x) {                                               \
    T t = clamp((x - e0) / (e1 - e0), (T)0, (T)1);                                  \
    return t * t * ((T)3 - (T)2 * t);                                               \
  }                                                                                 \
  OVL T sign(T x) { return isnan(x) ? (T)0 : x > (T)0 ? (T)1 : x < (T)0 ? (T)-1 : x; }
// The vector forms of these use vector relational results (-1/0) directly.
#define COMMON_VEC(T, S)                                                            \
  OVL T clamp(T x, T lo, T hi) { return fmin(fmax(x, lo), hi); }                     \
  OVL T clamp(T x, S lo, S hi) { return fmin(fmax(x, (T)lo), (T)hi); }              \
  OVL T degrees(T r) { return r * (S)(180.0 / 3.14159265358979323846); }             \
  OVL T radians(T d) { return d * (S)(3.14159265358979323846 / 180.0); }             \
  OVL T max(T x, T y) { return fmax(x, y); }                                        \
  OVL T max(T x, S y) { return fmax(x, (T)y); }                                     \
  OVL T min(T x, T y) { return fmin(x, y); }                                        \
  OVL T min(T x, S y) { return fmin(x, (T)y); }                                     \
  OVL T fmax(T x, S y) { return fmax(x, (T)y); }                                    \
  OVL T fmin(T x, S y) { return fmin(x, (T)y); }                                    \
  OVL T mix(T x, T y, T a) { return x + (y - x) * a; }                              \
  OVL T mix(T x, T y, S a) { return x + (y - x) * a; }                              \
  OVL T step(T edge, T x) { return select((T)1, (T)0, x < edge); }                  \
  OVL T step(S edge, T x) { return step((T)edge, x); }                              \
  OVL T smoothstep(T e0, T e1, T x) {                                               \
    T t = clamp((x - e0) / (e1 - e0), (T)0, (T)1);                                  \
    return t * t * ((T)3 - (T)2 * t);                                               \
  }                                                                                 \
  OVL T smoothstep(S e0, S e1, T x) { return smoothstep((T)e0, (T)e1, x); }         \
  OVL T sign(T x) {                                                                 \
    T r = select((T)0, (T)1, x > (T)0);                                             \
    r = select(r, (T)-1, x < (T)0);                                                 \
    return select(r, x, x == (T)0);                                                 \
  }
COMMON_FNS(float, float) COMMON_FNS(double, double)
#define COMMON_VEC_ALL(S) COMMON_VEC(S##2, S) COMMON_VEC(S##3, S) COMMON_VEC(S##4, S) \
  COMMON_VEC(S##8, S) COMMON_VEC(S##16, S)
COMMON_VEC_ALL(float) COMMON_VEC_ALL(double)

// ---- relational -------------------------------------------------------------
// Comparisons on vectors already give -1/0 of the right integer type.
#define REL_FNS(T, unused)                                                          \
  OVL __typeof__((T)0 == (T)0) isequal(T x, T y) { return x == y; }                 \
  OVL __typeof__((T)0 == (T)0) isnotequal(T x, T y) { return x != y; }              \
  OVL __typeof__((T)0 == (T)0) isgreater(T x, T y) { return x > y; }                \
  OVL __typeof__((T)0 == (T)0) isgreaterequal(T x, T y) { return x >= y; }          \
  OVL __typeof__((T)0 == (T)0) isless(T x, T y) { return x < y; }                   \
  OVL __typeof__((T)0 == (T)0) islessequal(T x, T y) { return x <= y; }             \
  OVL __typeof__((T)0 == (T)0) islessgreater(T x, T y) { return (x < y) || (x > y); } \
  OVL __typeof__((T)0 == (T)0) isnan(T x) { return x != x; }                        \
  OVL __typeof__((T)0 == (T)0) isfinite(T x) { return fabs(x) < (T)INFINITY; }      \
  OVL __typeof__((T)0 == (T)0) isinf(T x) { return fabs(x) == (T)INFINITY; }        \
  OVL __typeof__((T)0 == (T)0) isnormal(T x) {                                      \
    return (fabs(x) < (T)INFINITY) && (fabs(x) >= (T)(sizeof(x) / vec_step(x) == 4 ? FLT_MIN : DBL_MIN)); \
  }                                                                                 \
  OVL __typeof__((T)0 == (T)0) isordered(T x, T y) { return (x == x) && (y == y); } \
  OVL __typeof__((T)0 == (T)0) isunordered(T x, T y) { return (x != x) || (y != y); }
EACH_WIDTH(REL_FNS, float, 0) EACH_WIDTH(REL_FNS, double, 0)
OVL int signbit(float x) { return __builtin_signbit(x) != 0; }
OVL int signbit(double x) { return __builtin_signbit(x) != 0; }
#define SIGNBIT_V(N) \
  OVL int##N signbit(float##N x) { return __builtin_astype(x, int##N) < (int##N)0; } \
  OVL long##N signbit(double##N x) { return __builtin_astype(x, long##N) < (long##N)0; }
SIGNBIT_V(2) SIGNBIT_V(3) SIGNBIT_V(4) SIGNBIT_V(8) SIGNBIT_V(16)

// any/all look at the most significant bit; scalars test it too.
#define ANY_ALL(T)                                                                  \
  OVL int any(T x) { return x < 0; }                                                \
  OVL int all(T x) { return x < 0; }                                                \
  OVL int any(T##2 x) { return (x.s0 | x.s1) < 0; }                                 \
  OVL int all(T##2 x) { return (x.s0 & x.s1) < 0; }                                 \
  OVL int any(T##3 x) { return (x.s0 | x.s1 | x.s2) < 0; }                          \
  OVL int all(T##3 x) { return (x.s0 & x.s1 & x.s2) < 0; }                          \
  OVL int any(T##4 x) { return any(x.lo | x.hi); }                                  \
  OVL int all(T##4 x) { return all(x.lo & x.hi); }                                  \
  OVL int any(T##8 x) { return any(x.lo | x.hi); }                                  \
  OVL int all(T##8 x) { return all(x.lo & x.hi); }                                  \
  OVL int any(T##16 x) { return any(x.lo | x.hi); }                                 \
  OVL int all(T##16 x) { return all(x.lo & x.hi); }
ANY_ALL(char) ANY_ALL(short) ANY_ALL(int) ANY_ALL(long)

// select(a, b, c): scalars test c != 0, vectors the MSB of each component.
#define SELECT_SCALAR(T, C) OVL T select(T a, T b, C c) { return c ? b : a; }
#define SELECT_VEC(T, C) OVL T select(T a, T b, C c) { return (c < (C)0) ? b : a; }
#define SELECT_VEC_U(T, C, SC) OVL T select(T a, T b, C c) { return (__builtin_astype(c, SC) < (SC)0) ? b : a; }
#define SELECT_ALL(T, I, U)                                                         \
  SELECT_SCALAR(T, I) SELECT_SCALAR(T, U)                                           \
  SELECT_VEC(T##2, I##2) SELECT_VEC(T##3, I##3) SELECT_VEC(T##4, I##4)              \
  SELECT_VEC(T##8, I##8) SELECT_VEC(T##16, I##16)                                   \
  SELECT_VEC_U(T##2, U##2, I##2) SELECT_VEC_U(T##3, U##3, I##3) SELECT_VEC_U(T##4, U##4, I##4) \
  SELECT_VEC_U(T##8, U##8, I##8) SELECT_VEC_U(T##16, U##16, I##16)
SELECT_ALL(char, char, uchar) SELECT_ALL(uchar, char, uchar)
SELECT_ALL(short, short, ushort) SELECT_ALL(ushort, short, ushort)
SELECT_ALL(int, int, uint) SELECT_ALL(uint, int, uint) SELECT_ALL(float, int, uint)
SELECT_ALL(long, long, ulong) SELECT_ALL(ulong, long, ulong) SELECT_ALL(double, long, ulong)

// bitselect: bits of b where c is set, else a.
#define BITSEL(T, U) OVL T bitselect(T a, T b, T c) {                               \
    return __builtin_astype((U)((__builtin_astype(a, U) & ~__builtin_astype(c, U)) | \
                                (__builtin_astype(b, U) & __builtin_astype(c, U))), T); }
#define BITSEL_ALL(T, U) BITSEL(T, U) BITSEL(T##2, U##2) BITSEL(T##3, U##3) BITSEL(T##4, U##4) \
  BITSEL(T##8, U##8) BITSEL(T##16, U##16)
BITSEL_ALL(char, uchar) BITSEL_ALL(uchar, uchar) BITSEL_ALL(short, ushort) BITSEL_ALL(ushort, ushort)
BITSEL_ALL(int, uint) BITSEL_ALL(uint, uint) BITSEL_ALL(long, ulong) BITSEL_ALL(ulong, ulong)
BITSEL_ALL(float, uint) BITSEL_ALL(double, ulong)

// ---- geometric (scalars and widths 2-4) -------------------------------------
OVL float dot(float x, float y) { return x * y; }
OVL float dot(float2 x, float2 y) { return x.s0 * y.s0 + x.s1 * y.s1; }
OVL float dot(float3 x, float3 y) { return x.s0 * y.s0 + x.s1 * y.s1 + x.s2 * y.s2; }
OVL float dot(float4 x, float4 y) { return dot(x.lo, y.lo) + dot(x.hi, y.hi); }
OVL double dot(double x, double y) { return x * y; }
OVL double dot(double2 x, double2 y) { return x.s0 * y.s0 + x.s1 * y.s1; }
OVL double dot(double3 x, double3 y) { return x.s0 * y.s0 + x.s1 * y.s1 + x.s2 * y.s2; }
OVL double dot(double4 x, double4 y) { return dot(x.lo, y.lo) + dot(x.hi, y.hi); }

// length, distance and normalize never overflow or underflow where their
// result does not: a sum of squares of T would (float squares overflow from
// about 2^64 and vanish below 2^-75).
//
// Scalars need no square: length is |p|, distance |a - b| (for double the
// difference overflows only where the distance does), normalize +-1.
//
// normalize follows the spec's special cases: a zero vector comes back
// unchanged, a NaN component makes every component NaN (it reaches every
// quotient), and infinite components count as +-1 and the finite ones as
// +-0 (0 * p keeps their signs).
#define GEOM_SCALAR(T)                                                              \
  OVL T length(T p) { return fabs(p); }                                             \
  OVL T normalize(T p) { return p == (T)0 || isnan(p) ? p : copysign((T)1, p); }
GEOM_SCALAR(float) GEOM_SCALAR(double)
OVL float distance(float a, float b) { return (float)fabs((double)a - (double)b); }
OVL double distance(double a, double b) { return fabs(a - b); }
#define INF_AS_UNIT(T, p) \
  (any(isinf(p)) ? select((T)0 * (p), copysign((T)1, (p)), isinf(p)) : (p))

// float vectors: computed in double, where the square of every float,
// subnormals included, is a normal number (2^-298 .. 2^256). The products
// are exact, the sums, the square root and the one rounding to float keep
// length and distance within about 0.5 ulp and normalize within about 1 ulp
// (OpenCL allows 2.75 + 0.5n, 2.5 + 2n and 2 + n).
#define GEOM_FLOAT_N(N)                                                             \
  OVL float length(float##N p) {                                                    \
    double##N d = __builtin_convertvector(p, double##N);                            \
    return (float)sqrt(dot(d, d));                                                  \
  }                                                                                 \
  OVL float distance(float##N a, float##N b) {                                      \
    double##N d = __builtin_convertvector(a, double##N) - __builtin_convertvector(b, double##N); \
    return (float)sqrt(dot(d, d));                                                  \
  }                                                                                 \
  OVL float##N normalize(float##N p) {                                              \
    p = INF_AS_UNIT(float##N, p);                                                   \
    double##N d = __builtin_convertvector(p, double##N);                            \
    double l = sqrt(dot(d, d));                                                     \
    return l == 0.0 ? p : __builtin_convertvector(d / l, float##N);                 \
  }
GEOM_FLOAT_N(2) GEOM_FLOAT_N(3) GEOM_FLOAT_N(4)

// double vectors: first scaled by the power of two (exact) that brings the
// largest magnitude into [1, 2), so the sum of squares is in [1, 4n): a
// component that underflows in the scaling is one whose share of the result
// underflows too. length is scaled back; normalize's quotient needs no
// scaling back. Within about 1 + n/2 ulp (OpenCL allows 5.5 + n, 5.5 + 2n
// and 4.5 + n).
OVL static double max_abs(double2 p) { return fmax(fabs(p.s0), fabs(p.s1)); }
OVL static double max_abs(double3 p) { return fmax(max_abs(p.s01), fabs(p.s2)); }
OVL static double max_abs(double4 p) { return fmax(max_abs(p.lo), max_abs(p.hi)); }
#define GEOM_DOUBLE_N(N)                                                            \
  OVL double length(double##N p) {                                                  \
    double m = max_abs(p); /* fmax passes NaN over: they reach the sum */           \
    if (m == 0.0 || isinf(m) || isnan(m)) return sqrt(dot(p, p));                   \
    int e = ilogb(m);                                                               \
    double##N q = ldexp(p, -e);                                                     \
    return ldexp(sqrt(dot(q, q)), e);                                               \
  }                                                                                 \
  OVL double distance(double##N a, double##N b) { return length(a - b); }           \
  OVL double##N normalize(double##N p) {                                            \
    p = INF_AS_UNIT(double##N, p);                                                  \
    double m = max_abs(p);                                                          \
    if (!(m > 0.0)) return p; /* zero, or every component NaN */                    \
    double##N q = ldexp(p, -ilogb(m));                                              \
    return q / sqrt(dot(q, q));                                                     \
  }
GEOM_DOUBLE_N(2) GEOM_DOUBLE_N(3) GEOM_DOUBLE_N(4)

// The fast_ forms (float only) are the accurate ones: within their 8192 ulp
// and defined where those are not.
#define GEOM_FAST(T)                                                                \
  OVL float fast_length(T p) { return length(p); }                                  \
  OVL float fast_distance(T a, T b) { return distance(a, b); }                      \
  OVL T fast_normalize(T p) { return normalize(p); }
GEOM_FAST(float) GEOM_FAST(float2) GEOM_FAST(float3) GEOM_FAST(float4)

OVL float3 cross(float3 a, float3 b) { return a.yzx * b.zxy - a.zxy * b.yzx; }
OVL float4 cross(float4 a, float4 b) { return (float4)(cross(a.xyz, b.xyz), 0.0f); }
OVL double3 cross(double3 a, double3 b) { return a.yzx * b.zxy - a.zxy * b.yzx; }
OVL double4 cross(double4 a, double4 b) { return (double4)(cross(a.xyz, b.xyz), 0.0); }
