// Async copies, events and atomics.
#include "parasol_builtins.h"

// Every work-item of the group calls async_work_group_copy with the same
// arguments: each copies its share (stride = group size), and
// wait_group_events is a barrier, after which the whole copy is visible.
#define ASYNC(T, unused)                                                            \
  ASYNC_DIR(__local, __global, T) ASYNC_DIR(__global, __local, T)
#define ASYNC_DIR(DST, SRC, T)                                                      \
  OVL event_t async_work_group_copy(DST T *dst, const SRC T *src, size_t n, event_t e) { \
    size_t step = __parasol_local_size(0) * __parasol_local_size(1) * __parasol_local_size(2); \
    for (size_t i = get_local_linear_id(); i < n; i += step) dst[i] = src[i];       \
    return e;                                                                       \
  }                                                                                 \
  OVL event_t async_work_group_strided_copy(DST T *dst, const SRC T *src, size_t n, \
                                            size_t stride, event_t e) {             \
    size_t step = __parasol_local_size(0) * __parasol_local_size(1) * __parasol_local_size(2); \
    for (size_t i = get_local_linear_id(); i < n; i += step)                        \
      ASYNC_STRIDED_##DST(dst, src, i, stride);                                     \
    return e;                                                                       \
  }
#define ASYNC_STRIDED___local(d, s, i, st) d[i] = s[(i) * (st)]
#define ASYNC_STRIDED___global(d, s, i, st) d[(i) * (st)] = s[i]
#define ASYNC_ALL(T, unused) EACH_WIDTH(ASYNC, T, 0)
FOR_ALL_TYPES(ASYNC_ALL, 0)

OVL void wait_group_events(int n, __generic event_t *events) { __parasol_barrier(); }
OVL void wait_group_events(int n, __private event_t *events) { __parasol_barrier(); }
#define PREFETCH(T, unused) OVL void prefetch(const __global T *p, size_t n) {}
#define PREFETCH_ALL(T, unused) EACH_WIDTH(PREFETCH, T, 0)
FOR_ALL_TYPES(PREFETCH_ALL, 0)

// ---- OpenCL 1.x atomics ------------------------------------------------------
#define RLX __ATOMIC_RELAXED
#define ATOMIC_INT_OPS(PFX, AS, T)                                                  \
  OVL T PFX##_add(volatile AS T *p, T v) { return __atomic_fetch_add(p, v, RLX); }  \
  OVL T PFX##_sub(volatile AS T *p, T v) { return __atomic_fetch_sub(p, v, RLX); }  \
  OVL T PFX##_xchg(volatile AS T *p, T v) { return __atomic_exchange_n(p, v, RLX); } \
  OVL T PFX##_min(volatile AS T *p, T v) { return __atomic_fetch_min(p, v, RLX); }  \
  OVL T PFX##_max(volatile AS T *p, T v) { return __atomic_fetch_max(p, v, RLX); }  \
  OVL T PFX##_and(volatile AS T *p, T v) { return __atomic_fetch_and(p, v, RLX); }  \
  OVL T PFX##_or(volatile AS T *p, T v) { return __atomic_fetch_or(p, v, RLX); }    \
  OVL T PFX##_xor(volatile AS T *p, T v) { return __atomic_fetch_xor(p, v, RLX); }  \
  OVL T PFX##_inc(volatile AS T *p) { return __atomic_fetch_add(p, (T)1, RLX); }    \
  OVL T PFX##_dec(volatile AS T *p) { return __atomic_fetch_sub(p, (T)1, RLX); }    \
  OVL T PFX##_cmpxchg(volatile AS T *p, T cmp, T v) {                               \
    __atomic_compare_exchange_n(p, &cmp, v, 0, RLX, RLX);                           \
    return cmp;                                                                     \
  }
#define ATOMIC_AS(AS, unused)                                                       \
  ATOMIC_INT_OPS(atomic, AS, int) ATOMIC_INT_OPS(atomic, AS, uint)                  \
  ATOMIC_INT_OPS(atom, AS, int) ATOMIC_INT_OPS(atom, AS, uint)                      \
  ATOMIC_INT_OPS(atom, AS, long) ATOMIC_INT_OPS(atom, AS, ulong)                    \
  OVL float atomic_xchg(volatile AS float *p, float v) {                            \
    return __builtin_astype(__atomic_exchange_n((volatile AS uint *)p, __builtin_astype(v, uint), RLX), float); \
  }
ATOMIC_AS(__global, 0) ATOMIC_AS(__local, 0)
// The non-volatile atom_* spellings are declared too (cl_khr_*_atomics).
#define ATOM_NV(AS, T)                                                              \
  OVL T atom_add(AS T *p, T v) { return atom_add((volatile AS T *)p, v); }          \
  OVL T atom_sub(AS T *p, T v) { return atom_sub((volatile AS T *)p, v); }          \
  OVL T atom_xchg(AS T *p, T v) { return atom_xchg((volatile AS T *)p, v); }        \
  OVL T atom_min(AS T *p, T v) { return atom_min((volatile AS T *)p, v); }          \
  OVL T atom_max(AS T *p, T v) { return atom_max((volatile AS T *)p, v); }          \
  OVL T atom_and(AS T *p, T v) { return atom_and((volatile AS T *)p, v); }          \
  OVL T atom_or(AS T *p, T v) { return atom_or((volatile AS T *)p, v); }            \
  OVL T atom_xor(AS T *p, T v) { return atom_xor((volatile AS T *)p, v); }          \
  OVL T atom_inc(AS T *p) { return atom_inc((volatile AS T *)p); }                  \
  OVL T atom_dec(AS T *p) { return atom_dec((volatile AS T *)p); }                  \
  OVL T atom_cmpxchg(AS T *p, T c, T v) { return atom_cmpxchg((volatile AS T *)p, c, v); }
ATOM_NV(__global, long) ATOM_NV(__global, ulong) ATOM_NV(__local, long) ATOM_NV(__local, ulong)

// ---- OpenCL 2.0 atomics (C11 style) -----------------------------------------
// Orders and scopes are honoured conservatively: everything is seq_cst.
#define SC __ATOMIC_SEQ_CST
#define C11_LOAD_STORE(A, T)                                                        \
  OVL void atomic_init(volatile __generic A *p, T v) { __c11_atomic_init(p, v); }   \
  OVL void atomic_store(volatile __generic A *p, T v) { __c11_atomic_store(p, v, SC); } \
  OVL void atomic_store_explicit(volatile __generic A *p, T v, memory_order o) { __c11_atomic_store(p, v, SC); } \
  OVL void atomic_store_explicit(volatile __generic A *p, T v, memory_order o, memory_scope s) { __c11_atomic_store(p, v, SC); } \
  OVL T atomic_load(volatile __generic A *p) { return __c11_atomic_load(p, SC); }    \
  OVL T atomic_load_explicit(volatile __generic A *p, memory_order o) { return __c11_atomic_load(p, SC); } \
  OVL T atomic_load_explicit(volatile __generic A *p, memory_order o, memory_scope s) { return __c11_atomic_load(p, SC); } \
  OVL T atomic_exchange(volatile __generic A *p, T v) { return __c11_atomic_exchange(p, v, SC); } \
  OVL T atomic_exchange_explicit(volatile __generic A *p, T v, memory_order o) { return __c11_atomic_exchange(p, v, SC); } \
  OVL T atomic_exchange_explicit(volatile __generic A *p, T v, memory_order o, memory_scope s) { return __c11_atomic_exchange(p, v, SC); } \
  C11_CMPXCHG(A, T, strong) C11_CMPXCHG(A, T, weak)
#define C11_CMPXCHG(A, T, KIND)                                                     \
  OVL bool atomic_compare_exchange_##KIND(volatile __generic A *p, __generic T *e, T d) { \
    return __c11_atomic_compare_exchange_strong(p, e, d, SC, SC);                   \
  }                                                                                 \
  OVL bool atomic_compare_exchange_##KIND##_explicit(volatile __generic A *p, __generic T *e, T d, \
                                                     memory_order s, memory_order f) { \
    return __c11_atomic_compare_exchange_strong(p, e, d, SC, SC);                   \
  }                                                                                 \
  OVL bool atomic_compare_exchange_##KIND##_explicit(volatile __generic A *p, __generic T *e, T d, \
                                                     memory_order s, memory_order f, memory_scope sc) { \
    return __c11_atomic_compare_exchange_strong(p, e, d, SC, SC);                   \
  }
#define C11_FETCH(A, T, OP, B)                                                      \
  OVL T atomic_fetch_##OP(volatile __generic A *p, T v) { return B(p, v, SC); }     \
  OVL T atomic_fetch_##OP##_explicit(volatile __generic A *p, T v, memory_order o) { return B(p, v, SC); } \
  OVL T atomic_fetch_##OP##_explicit(volatile __generic A *p, T v, memory_order o, memory_scope s) { return B(p, v, SC); }
#define C11_INT(A, T)                                                               \
  C11_LOAD_STORE(A, T) C11_FETCH(A, T, add, __c11_atomic_fetch_add)                 \
  C11_FETCH(A, T, sub, __c11_atomic_fetch_sub) C11_FETCH(A, T, or, __c11_atomic_fetch_or) \
  C11_FETCH(A, T, xor, __c11_atomic_fetch_xor) C11_FETCH(A, T, and, __c11_atomic_fetch_and) \
  C11_FETCH(A, T, min, __c11_atomic_fetch_min) C11_FETCH(A, T, max, __c11_atomic_fetch_max)
C11_INT(atomic_int, int) C11_INT(atomic_uint, uint) C11_INT(atomic_long, long) C11_INT(atomic_ulong, ulong)
C11_LOAD_STORE(atomic_float, float) C11_LOAD_STORE(atomic_double, double)
OVL bool atomic_flag_test_and_set(volatile __generic atomic_flag *f) {
  return __c11_atomic_exchange((volatile __generic atomic_int *)f, 1, SC) != 0;
}
OVL bool atomic_flag_test_and_set_explicit(volatile __generic atomic_flag *f, memory_order o) { return atomic_flag_test_and_set(f); }
OVL bool atomic_flag_test_and_set_explicit(volatile __generic atomic_flag *f, memory_order o, memory_scope s) { return atomic_flag_test_and_set(f); }
OVL void atomic_flag_clear(volatile __generic atomic_flag *f) { __c11_atomic_store((volatile __generic atomic_int *)f, 0, SC); }
OVL void atomic_flag_clear_explicit(volatile __generic atomic_flag *f, memory_order o) { atomic_flag_clear(f); }
OVL void atomic_flag_clear_explicit(volatile __generic atomic_flag *f, memory_order o, memory_scope s) { atomic_flag_clear(f); }
OVL void atomic_work_item_fence(cl_mem_fence_flags f, memory_order o, memory_scope s) { __atomic_thread_fence(SC); }
