// Work-item functions: thin wrappers over the geometry the lowering pass
// substitutes (local ids are its loop counters, the rest come from NDRange).
#include "parasol_builtins.h"

OVL uint get_work_dim(void) { return __parasol_work_dim(); }
OVL size_t get_local_id(uint d) { return __parasol_local_id(d); }
OVL size_t get_local_size(uint d) { return __parasol_local_size(d); }
OVL size_t get_enqueued_local_size(uint d) { return __parasol_local_size(d); }
OVL size_t get_group_id(uint d) { return __parasol_group_id(d); }
OVL size_t get_num_groups(uint d) { return __parasol_num_groups(d); }
OVL size_t get_global_offset(uint d) { return __parasol_global_offset(d); }
OVL size_t get_global_size(uint d) { return __parasol_num_groups(d) * __parasol_local_size(d); }
OVL size_t get_global_id(uint d) {
  return __parasol_group_id(d) * __parasol_local_size(d) + __parasol_local_id(d) +
         __parasol_global_offset(d);
}
OVL size_t get_local_linear_id(void) {
  return (__parasol_local_id(2) * __parasol_local_size(1) + __parasol_local_id(1)) *
             __parasol_local_size(0) + __parasol_local_id(0);
}
OVL size_t get_global_linear_id(void) {
  size_t g0 = get_global_id(0) - get_global_offset(0);
  size_t g1 = get_global_id(1) - get_global_offset(1);
  size_t g2 = get_global_id(2) - get_global_offset(2);
  return (g2 * get_global_size(1) + g1) * get_global_size(0) + g0;
}

// Synchronisation. One thread runs a whole work-group, so fences only need
// to stop the compiler from moving memory accesses across them.
OVL void barrier(cl_mem_fence_flags f) { __parasol_barrier(); }
OVL void work_group_barrier(cl_mem_fence_flags f) { __parasol_barrier(); }
OVL void work_group_barrier(cl_mem_fence_flags f, memory_scope s) { __parasol_barrier(); }
OVL void mem_fence(cl_mem_fence_flags f) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
OVL void read_mem_fence(cl_mem_fence_flags f) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
OVL void write_mem_fence(cl_mem_fence_flags f) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
