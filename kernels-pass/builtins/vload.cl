// vloadN/vstoreN for every element type and address space, and the half
// variants (conversions done in software: no F16C or compiler-rt needed).
#include "parasol_builtins.h"

#define VLOAD_N(AS, T, N)                                                           \
  OVL T##N vload##N(size_t off, const AS T *p) {                                    \
    T##N r; p += off * N;                                                           \
    for (int i = 0; i < N; ++i) r[i] = p[i];                                        \
    return r;                                                                       \
  }
#define VSTORE_N(AS, T, N)                                                          \
  OVL void vstore##N(T##N v, size_t off, AS T *p) {                                 \
    p += off * N;                                                                   \
    for (int i = 0; i < N; ++i) p[i] = v[i];                                        \
  }
#define VLOAD_WIDTHS(T, AS) VLOAD_N(AS, T, 2) VLOAD_N(AS, T, 3) VLOAD_N(AS, T, 4) VLOAD_N(AS, T, 8) VLOAD_N(AS, T, 16)
#define VSTORE_WIDTHS(T, AS) VSTORE_N(AS, T, 2) VSTORE_N(AS, T, 3) VSTORE_N(AS, T, 4) VSTORE_N(AS, T, 8) VSTORE_N(AS, T, 16)
#define VLOAD_AS(AS, unused) FOR_ALL_TYPES(VLOAD_WIDTHS, AS)
#define VSTORE_AS(AS, unused) FOR_ALL_TYPES(VSTORE_WIDTHS, AS)
FOR_READABLE_AS(VLOAD_AS, 0)
FOR_WRITABLE_AS(VSTORE_AS, 0)

// ---- half <-> float ----------------------------------------------------------
INL static float half_bits_to_float(ushort h) {
  uint s = (uint)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0) {  // zero or subnormal: m * 2^-24
    float f = (float)m * 0x1p-24f;
    return s ? -f : f;
  }
  if (e == 31) return __builtin_astype(s | 0x7f800000u | (m << 13), float);
  return __builtin_astype(s | ((e + 112) << 23) | (m << 13), float);
}
// Rounds a non-negative magnitude to an integer in the given mode
// (0 nearest-even, 1 toward zero, 2 toward +inf, 3 toward -inf).
INL static float round_mag(float q, int mode, int neg) {
  if (mode == 0) return __builtin_rintf(q);
  if (mode == 1) return __builtin_truncf(q);
  if ((mode == 2) != (neg != 0)) return __builtin_ceilf(q);
  return __builtin_truncf(q);
}
INL static ushort float_to_half_bits(float f, int mode) {
  uint u = __builtin_astype(f, uint);
  ushort sign = (ushort)((u >> 16) & 0x8000);
  int neg = sign != 0;
  float a = __builtin_fabsf(f);
  if (a != a) return sign | 0x7e00;
  if (a == INFINITY) return sign | 0x7c00;
  if (a < 0x1p-14f) {  // half subnormal range: quantum 2^-24
    float r = round_mag(a * 0x1p24f, mode, neg);
    return sign | (ushort)r;  // r == 1024 is the smallest normal, encoded the same
  }
  int e = __builtin_ilogbf(a);
  float r = round_mag(__builtin_ldexpf(a, 10 - e), mode, neg);
  if (r == 2048.0f) { r = 1024.0f; ++e; }
  if (e > 15) {  // overflow: infinity unless rounding toward the finite side
    int to_inf = mode == 0 || (mode == 2 && !neg) || (mode == 3 && neg);
    return sign | (to_inf ? 0x7c00 : 0x7bff);
  }
  return sign | (ushort)((e + 15) << 10) | (ushort)((uint)r - 1024);
}
INL static ushort double_to_half_bits(double d, int mode) {
  // Through float with round-to-odd would be exact; the direct float rounding is
  // within the spec for the default mode and for all but rare double-rounding ties.
  return float_to_half_bits((float)d, mode);
}

#define VLOAD_HALF(AS, unused)                                                      \
  OVL float vload_half(size_t off, const AS half *p) {                              \
    return half_bits_to_float(((const AS ushort *)p)[off]);                         \
  }                                                                                 \
  VLOAD_HALF_N(AS, 2) VLOAD_HALF_N(AS, 3) VLOAD_HALF_N(AS, 4) VLOAD_HALF_N(AS, 8) VLOAD_HALF_N(AS, 16)
#define VLOAD_HALF_N(AS, N)                                                         \
  OVL float##N vload_half##N(size_t off, const AS half *p) {                        \
    float##N r; const AS ushort *q = (const AS ushort *)p + off * N;                \
    for (int i = 0; i < N; ++i) r[i] = half_bits_to_float(q[i]);                    \
    return r;                                                                       \
  }                                                                                 \
  OVL float##N vloada_half##N(size_t off, const AS half *p) {                       \
    float##N r; const AS ushort *q = (const AS ushort *)p + off * (N == 3 ? 4 : N); \
    for (int i = 0; i < N; ++i) r[i] = half_bits_to_float(q[i]);                    \
    return r;                                                                       \
  }
FOR_READABLE_AS(VLOAD_HALF, 0)

#define VSTORE_HALF_MODE(AS, SUF, MODE)                                             \
  OVL void vstore_half##SUF(float v, size_t off, AS half *p) {                      \
    ((AS ushort *)p)[off] = float_to_half_bits(v, MODE);                            \
  }                                                                                 \
  OVL void vstore_half##SUF(double v, size_t off, AS half *p) {                     \
    ((AS ushort *)p)[off] = double_to_half_bits(v, MODE);                           \
  }                                                                                 \
  VSTORE_HALF_N(AS, SUF, MODE, 2) VSTORE_HALF_N(AS, SUF, MODE, 3) VSTORE_HALF_N(AS, SUF, MODE, 4) \
  VSTORE_HALF_N(AS, SUF, MODE, 8) VSTORE_HALF_N(AS, SUF, MODE, 16)
#define VSTORE_HALF_N_T(AS, SUF, MODE, N, T, CONV)                                  \
  OVL void vstore_half##N##SUF(T##N v, size_t off, AS half *p) {                    \
    AS ushort *q = (AS ushort *)p + off * N;                                        \
    for (int i = 0; i < N; ++i) q[i] = CONV(v[i], MODE);                            \
  }                                                                                 \
  OVL void vstorea_half##N##SUF(T##N v, size_t off, AS half *p) {                   \
    AS ushort *q = (AS ushort *)p + off * (N == 3 ? 4 : N);                         \
    for (int i = 0; i < N; ++i) q[i] = CONV(v[i], MODE);                            \
  }
#define VSTORE_HALF_N(AS, SUF, MODE, N)                                             \
  VSTORE_HALF_N_T(AS, SUF, MODE, N, float, float_to_half_bits)                      \
  VSTORE_HALF_N_T(AS, SUF, MODE, N, double, double_to_half_bits)
#define VSTORE_HALF_AS(AS, unused)                                                  \
  VSTORE_HALF_MODE(AS, , 0) VSTORE_HALF_MODE(AS, _rte, 0) VSTORE_HALF_MODE(AS, _rtz, 1) \
  VSTORE_HALF_MODE(AS, _rtp, 2) VSTORE_HALF_MODE(AS, _rtn, 3)
FOR_WRITABLE_AS(VSTORE_HALF_AS, 0)
