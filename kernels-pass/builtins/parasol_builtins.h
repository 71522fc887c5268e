// Shared macros for Parasol's OpenCL C built-in library.
//
// The library is compiled as OpenCL C 2.0 with Clang's own builtin
// declarations, so every definition here is a redeclaration of the exact
// overload user code calls (same mangled name). Vector overloads are built
// from the scalar ones by splitting in halves, never written out by hand.
#pragma once
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define OVL __attribute__((overloadable, always_inline))
#define INL __attribute__((always_inline))

// Launch geometry, resolved by the work-group lowering pass.
size_t __parasol_local_id(uint dim);
size_t __parasol_local_size(uint dim);
size_t __parasol_group_id(uint dim);
size_t __parasol_num_groups(uint dim);
size_t __parasol_global_offset(uint dim);
uint __parasol_work_dim(void);
void __parasol_barrier(void) __attribute__((convergent, noduplicate));

// ---- vector lifting: F over each component, halves at a time ----------------
#define LIFT1_N(F, R, A)                                                         \
  OVL R##2 F(A##2 x) { return (R##2)(F(x.s0), F(x.s1)); }                     \
  OVL R##3 F(A##3 x) { return (R##3)(F(x.s0), F(x.s1), F(x.s2)); }            \
  OVL R##4 F(A##4 x) { return (R##4)(F(x.lo), F(x.hi)); }                     \
  OVL R##8 F(A##8 x) { return (R##8)(F(x.lo), F(x.hi)); }                     \
  OVL R##16 F(A##16 x) { return (R##16)(F(x.lo), F(x.hi)); }

#define LIFT2_N(F, R, A, B)                                                      \
  OVL R##2 F(A##2 x, B##2 y) { return (R##2)(F(x.s0, y.s0), F(x.s1, y.s1)); } \
  OVL R##3 F(A##3 x, B##3 y) {                                                \
    return (R##3)(F(x.s0, y.s0), F(x.s1, y.s1), F(x.s2, y.s2));               \
  }                                                                           \
  OVL R##4 F(A##4 x, B##4 y) { return (R##4)(F(x.lo, y.lo), F(x.hi, y.hi)); } \
  OVL R##8 F(A##8 x, B##8 y) { return (R##8)(F(x.lo, y.lo), F(x.hi, y.hi)); } \
  OVL R##16 F(A##16 x, B##16 y) { return (R##16)(F(x.lo, y.lo), F(x.hi, y.hi)); }

#define LIFT3_N(F, R, A, B, C)                                                   \
  OVL R##2 F(A##2 x, B##2 y, C##2 z) {                                        \
    return (R##2)(F(x.s0, y.s0, z.s0), F(x.s1, y.s1, z.s1));                  \
  }                                                                           \
  OVL R##3 F(A##3 x, B##3 y, C##3 z) {                                        \
    return (R##3)(F(x.s0, y.s0, z.s0), F(x.s1, y.s1, z.s1), F(x.s2, y.s2, z.s2)); \
  }                                                                           \
  OVL R##4 F(A##4 x, B##4 y, C##4 z) {                                        \
    return (R##4)(F(x.lo, y.lo, z.lo), F(x.hi, y.hi, z.hi));                  \
  }                                                                           \
  OVL R##8 F(A##8 x, B##8 y, C##8 z) {                                        \
    return (R##8)(F(x.lo, y.lo, z.lo), F(x.hi, y.hi, z.hi));                  \
  }                                                                           \
  OVL R##16 F(A##16 x, B##16 y, C##16 z) {                                    \
    return (R##16)(F(x.lo, y.lo, z.lo), F(x.hi, y.hi, z.hi));                 \
  }

// A body written with OpenCL's elementwise operators works for scalars and
// vectors alike: define it once per width.
#define EACH_WIDTH(M, T, ...) \
  M(T, __VA_ARGS__) M(T##2, __VA_ARGS__) M(T##3, __VA_ARGS__) M(T##4, __VA_ARGS__) \
  M(T##8, __VA_ARGS__) M(T##16, __VA_ARGS__)

#define FOR_INT_TYPES(M, ...) \
  M(char, __VA_ARGS__) M(uchar, __VA_ARGS__) M(short, __VA_ARGS__) M(ushort, __VA_ARGS__) \
  M(int, __VA_ARGS__) M(uint, __VA_ARGS__) M(long, __VA_ARGS__) M(ulong, __VA_ARGS__)
#define FOR_FLOAT_TYPES(M, ...) M(float, __VA_ARGS__) M(double, __VA_ARGS__)
#define FOR_ALL_TYPES(M, ...) FOR_INT_TYPES(M, __VA_ARGS__) FOR_FLOAT_TYPES(M, __VA_ARGS__)

// Address spaces a pointer argument of a built-in may carry (generic for 2.0+).
#define FOR_WRITABLE_AS(M, ...) \
  M(__global, __VA_ARGS__) M(__local, __VA_ARGS__) M(__private, __VA_ARGS__) M(__generic, __VA_ARGS__)
#define FOR_READABLE_AS(M, ...) FOR_WRITABLE_AS(M, __VA_ARGS__) M(__constant, __VA_ARGS__)
