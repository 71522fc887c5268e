// parasol-kernels-opt --access-ranges: one line per argument and per
// dimension (kernels-pass/test/CMakeLists.txt runs it through FileCheck).

// CHECK-LABEL: kernel saxpy
// CHECK:       arg0 'x'
// CHECK-NEXT:    reads:  global_offset0*4 + local_size0*4*group0 + 4*lid0 [4B]
// CHECK-NEXT:    writes: none
// CHECK:       arg1 'y'
// CHECK-NEXT:    reads:  global_offset0*4 + local_size0*4*group0 + 4*lid0 [4B]
// CHECK-NEXT:    writes: global_offset0*4 + local_size0*4*group0 + 4*lid0 [4B]
// CHECK-NEXT:  split dim 0: yes, if the launch's per-group writes are disjoint
// CHECK-NEXT:  split dim 1: no: a write to 'y' does not depend on the group along dimension 1
__kernel void saxpy(__global const float* x, __global float* y, float a) {
  size_t i = get_global_id(0);
  y[i] = a * x[i] + y[i];
}

// CHECK-LABEL: kernel rowsum
// CHECK:       loop k0 in [0, (-1 + arg2)]
// CHECK:       arg0 'm'
// CHECK-NEXT:    reads:  local_size0*arg2*4*group0 + arg2*4*lid0 + 4*k0 [4B]
// CHECK:       split dim 0: yes, if the launch's per-group writes are disjoint
__kernel void rowsum(__global const float* m, __global float* out, int n) {
  int r = get_group_id(0) * get_local_size(0) + get_local_id(0);
  float s = 0.0f;
  for (int k = 0; k < n; ++k) s += m[r * n + k];
  out[r] = s;
}

// CHECK-LABEL: kernel scatter
// CHECK:       arg2 'out'
// CHECK-NEXT:    reads:  none
// CHECK-NEXT:    writes: whole buffer (an index with a value loaded from memory or computed by a call)
// CHECK-NEXT:  split dim 0: no: writes to 'out' cannot be bounded
__kernel void scatter(__global const int* idx, __global const float* v, __global float* out) {
  size_t i = get_global_id(0);
  out[idx[i]] = v[i];
}

// CHECK-LABEL: kernel histogram
// CHECK:       arg1 'bins' (atomics)
// CHECK:       split dim 0: no: global atomics on 'bins'
__kernel void histogram(__global const uchar* in, __global int* bins) {
  atomic_inc(&bins[in[get_global_id(0)]]);
}

// CHECK-LABEL: kernel two_outputs
// CHECK:       split dim 0: yes, if the launch's per-group writes are disjoint, arg0 != arg1
__kernel void two_outputs(__global float* p, __global float* q) {
  size_t i = get_global_id(0);
  p[i] = 1.0f;
  q[i] = 2.0f;
}
