// Integer built-ins for char..ulong, scalar and vector. Bodies that work
// elementwise are written once per type with OpenCL's vector operators;
// the rest are scalar and lifted.
#include "parasol_builtins.h"

// T: type, U: unsigned type of the same width, B: bits, MIN/MAX: limits.
// add_sat/sub_sat: Clang 19 applies the integer promotions to scalar
// arguments of __builtin_elementwise_{add,sub}_sat, so on a scalar char or
// short it saturates at int's limits and truncates (add_sat((uchar)255, 1)
// gave 0). Vectors are not promoted: scalars go through a 2-vector.
#define INT_SAT_VECTOR(T)                                                            \
  OVL T add_sat(T x, T y) { return __builtin_elementwise_add_sat(x, y); }            \
  OVL T sub_sat(T x, T y) { return __builtin_elementwise_sub_sat(x, y); }
#define INT_SAT_SCALAR(T)                                                            \
  OVL T add_sat(T x, T y) { return add_sat((T##2)(x), (T##2)(y)).s0; }               \
  OVL T sub_sat(T x, T y) { return sub_sat((T##2)(x), (T##2)(y)).s0; }
#define INT_ELEMENTWISE(T, U)                                                        \
  OVL T hadd(T x, T y) { return (x >> (T)1) + (y >> (T)1) + (x & y & (T)1); }         \
  OVL T rhadd(T x, T y) { return (x >> (T)1) + (y >> (T)1) + ((x | y) & (T)1); }      \
  OVL T min(T x, T y) { return __builtin_elementwise_min(x, y); }                     \
  OVL T max(T x, T y) { return __builtin_elementwise_max(x, y); }                     \
  OVL T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }                      \
  OVL T rotate(T v, T n) {                                                           \
    U bits = (U)(sizeof(v) / vec_step(v) * 8);                                       \
    U s = __builtin_astype(n, U) & (bits - (U)1);                                    \
    U uv = __builtin_astype(v, U);                                                   \
    return __builtin_astype((U)((uv << s) | (uv >> ((bits - s) & (bits - (U)1)))), T);    \
  }
#define INT_SCALAR_MIXED(T, V)                                                       \
  OVL V min(V x, T y) { return min(x, (V)y); }                                       \
  OVL V max(V x, T y) { return max(x, (V)y); }                                       \
  OVL V clamp(V x, T lo, T hi) { return clamp(x, (V)lo, (V)hi); }

#define INT_ALL_WIDTHS(T, U)                                                         \
  INT_SAT_VECTOR(T##2) INT_SAT_VECTOR(T##3) INT_SAT_VECTOR(T##4) INT_SAT_VECTOR(T##8)  \
  INT_SAT_VECTOR(T##16) INT_SAT_SCALAR(T)                                            \
  INT_ELEMENTWISE(T, U) INT_ELEMENTWISE(T##2, U##2) INT_ELEMENTWISE(T##3, U##3)      \
  INT_ELEMENTWISE(T##4, U##4) INT_ELEMENTWISE(T##8, U##8) INT_ELEMENTWISE(T##16, U##16) \
  INT_SCALAR_MIXED(T, T##2) INT_SCALAR_MIXED(T, T##3) INT_SCALAR_MIXED(T, T##4)      \
  INT_SCALAR_MIXED(T, T##8) INT_SCALAR_MIXED(T, T##16)
INT_ALL_WIDTHS(char, uchar) INT_ALL_WIDTHS(uchar, uchar) INT_ALL_WIDTHS(short, ushort)
INT_ALL_WIDTHS(ushort, ushort) INT_ALL_WIDTHS(int, uint) INT_ALL_WIDTHS(uint, uint)
INT_ALL_WIDTHS(long, ulong) INT_ALL_WIDTHS(ulong, ulong)

// Scalar-only definitions, lifted to vectors. (OpenCL long is 64-bit; long
// long would be 128, so the *l builtins are the 64-bit ones.)
#define INT_SCALAR(T, U, B)                                                          \
  OVL U abs(T x) { return x < 0 ? (U)0 - (U)x : (U)x; }                              \
  OVL U abs_diff(T x, T y) { return x > y ? (U)x - (U)y : (U)y - (U)x; }              \
  OVL T clz(T x) { return x == 0 ? (T)B : (T)(__builtin_clzl((ulong)(U)x) - (64 - B)); } \
  OVL T ctz(T x) { return x == 0 ? (T)B : (T)__builtin_ctzl((ulong)(U)x); }         \
  OVL T popcount(T x) { return (T)__builtin_popcountl((ulong)(U)x); }               \
  LIFT1_N(abs, U, T) LIFT2_N(abs_diff, U, T, T) LIFT1_N(clz, T, T) LIFT1_N(ctz, T, T) \
  LIFT1_N(popcount, T, T)
INT_SCALAR(char, uchar, 8) INT_SCALAR(uchar, uchar, 8) INT_SCALAR(short, ushort, 16)
INT_SCALAR(ushort, ushort, 16) INT_SCALAR(int, uint, 32) INT_SCALAR(uint, uint, 32)
INT_SCALAR(long, ulong, 64) INT_SCALAR(ulong, ulong, 64)

// mul_hi: via the double-width type, 64-bit by 32-bit halves.
#define MUL_HI_VIA(T, W, B) OVL T mul_hi(T x, T y) { return (T)(((W)x * (W)y) >> B); }
MUL_HI_VIA(char, short, 8) MUL_HI_VIA(uchar, ushort, 8) MUL_HI_VIA(short, int, 16)
MUL_HI_VIA(ushort, uint, 16) MUL_HI_VIA(int, long, 32) MUL_HI_VIA(uint, ulong, 32)
OVL ulong mul_hi(ulong x, ulong y) {
  ulong xl = x & 0xffffffff, xh = x >> 32, yl = y & 0xffffffff, yh = y >> 32;
  ulong ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
  ulong mid = (ll >> 32) + (lh & 0xffffffff) + (hl & 0xffffffff);
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
OVL long mul_hi(long x, long y) {
  ulong h = mul_hi((ulong)x, (ulong)y);
  // Signed correction of the unsigned high product.
  return (long)(h - (x < 0 ? (ulong)y : 0) - (y < 0 ? (ulong)x : 0));
}
#define MUL_HI_LIFT(T, unused) LIFT2_N(mul_hi, T, T, T)
FOR_INT_TYPES(MUL_HI_LIFT, 0)

// mad_sat: a * b + c computed exactly, then saturated (saturating the
// product first is wrong whenever c brings an overflowing product back into
// range: mad_sat((char)127, 2, -128) is 126). char..uint go through a wider
// type, where |a * b + c| < 2^63; long and ulong carry the product in 128
// bits, its high half from mul_hi.
#define MAD_SAT_VIA(T, W, MINV, MAXV)                                                \
  OVL T mad_sat(T a, T b, T c) {                                                     \
    W r = (W)a * (W)b + (W)c;                                                        \
    return (T)(r < (W)MINV ? (W)MINV : r > (W)MAXV ? (W)MAXV : r);                   \
  }
MAD_SAT_VIA(char, int, CHAR_MIN, CHAR_MAX) MAD_SAT_VIA(uchar, uint, 0, UCHAR_MAX)
MAD_SAT_VIA(short, int, SHRT_MIN, SHRT_MAX) MAD_SAT_VIA(ushort, uint, 0, USHRT_MAX)
MAD_SAT_VIA(int, long, INT_MIN, INT_MAX) MAD_SAT_VIA(uint, ulong, 0, UINT_MAX)
OVL long mad_sat(long a, long b, long c) {
  // The product is hi:lo in two's complement; c is added sign-extended.
  ulong lo = (ulong)a * (ulong)b, sum = lo + (ulong)c;
  long hi = mul_hi(a, b) + (long)(sum < lo) - (long)(c < 0);
  // It fits in a long when hi is the sign extension of sum; else hi's sign
  // is the result's.
  if (hi == ((long)sum >> 63)) return (long)sum;
  return hi < 0 ? LONG_MIN : LONG_MAX;
}
OVL ulong mad_sat(ulong a, ulong b, ulong c) {
  ulong lo = a * b, sum = lo + c;
  return mul_hi(a, b) != 0 || sum < lo ? ULONG_MAX : sum;
}
#define MAD_SAT_LIFT(T, unused) LIFT3_N(mad_sat, T, T, T, T)
FOR_INT_TYPES(MAD_SAT_LIFT, 0)

#define MAD_HI(T, unused) EACH_WIDTH(MAD_HI_1, T, 0)
#define MAD_HI_1(T, unused) OVL T mad_hi(T a, T b, T c) { return mul_hi(a, b) + c; }
FOR_INT_TYPES(MAD_HI, 0)

// 24-bit multiplies: full 32-bit products are within the spec's latitude.
#define MUL24(T, unused) \
  OVL T mul24(T a, T b) { return a * b; } OVL T mad24(T a, T b, T c) { return a * b + c; }
EACH_WIDTH(MUL24, int, 0) EACH_WIDTH(MUL24, uint, 0)

// upsample: hi << bits | lo.
#define UPSAMPLE(H, L, W, B)                                                         \
  OVL W upsample(H hi, L lo) { return ((W)hi << B) | (W)lo; }                        \
  LIFT2_N(upsample, W, H, L)
UPSAMPLE(char, uchar, short, 8) UPSAMPLE(uchar, uchar, ushort, 8)
UPSAMPLE(short, ushort, int, 16) UPSAMPLE(ushort, ushort, uint, 16)
UPSAMPLE(int, uint, long, 32) UPSAMPLE(uint, uint, ulong, 32)
