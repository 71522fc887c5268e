// shuffle and shuffle2 (OpenCL C 1.2, 6.12.12): for every element type but
// half (the device has no cl_khr_fp16) and every input and result width of
// 2, 4, 8 and 16. Each mask element is an unsigned integer of the element's
// size, of which only the low bits count: log2(m) of them picking an element
// of x for shuffle, log2(2m) for shuffle2, whose upper half picks from y.
#include "parasol_builtins.h"

#define SHUFFLE_NM(T, U, N, M)                                                       \
  OVL T##N shuffle(T##M x, U##N mask) {                                              \
    T##N r;                                                                          \
    for (int i = 0; i < N; ++i) r[i] = x[mask[i] & (U)(M - 1)];                      \
    return r;                                                                        \
  }                                                                                  \
  OVL T##N shuffle2(T##M x, T##M y, U##N mask) {                                     \
    T##N r;                                                                          \
    for (int i = 0; i < N; ++i) {                                                    \
      U k = mask[i] & (U)(2 * M - 1);                                                \
      r[i] = k < (U)M ? x[k] : y[k - (U)M];                                          \
    }                                                                                \
    return r;                                                                        \
  }
#define SHUFFLE_M(T, U, M) \
  SHUFFLE_NM(T, U, 2, M) SHUFFLE_NM(T, U, 4, M) SHUFFLE_NM(T, U, 8, M) SHUFFLE_NM(T, U, 16, M)
#define SHUFFLE(T, U) SHUFFLE_M(T, U, 2) SHUFFLE_M(T, U, 4) SHUFFLE_M(T, U, 8) SHUFFLE_M(T, U, 16)

SHUFFLE(char, uchar) SHUFFLE(uchar, uchar) SHUFFLE(short, ushort) SHUFFLE(ushort, ushort)
SHUFFLE(int, uint) SHUFFLE(uint, uint) SHUFFLE(long, ulong) SHUFFLE(ulong, ulong)
SHUFFLE(float, uint) SHUFFLE(double, ulong)
