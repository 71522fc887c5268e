/* All-pairs n-body: the OpenCL C kernels (forces on a range of bodies, and
 * the position/velocity update), the same update on the host, and a CPU
 * (double) reference, shared by examples/nbody and bench/throughput. */
#ifndef PARASOL_NBODY_KERNELS_H
#define PARASOL_NBODY_KERNELS_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* Bodies are float4: xyz the position, w the mass. nbody_forces writes the
 * accelerations of bodies [first, first + count) into its own buffer acc
 * (index 0 is body `first`), so the sub-kernels of one step share no output. */
static const char* kNbodySource =
    "__kernel void nbody_forces(__global const float4* pos, __global float4* acc, uint n,\n"
    "                           uint first, uint count, float eps2) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i >= count) return;\n"
    "  float3 p = pos[first + i].xyz;\n"
    "  float3 a = (float3)(0.0f, 0.0f, 0.0f);\n"
    "  for (uint j = 0; j < n; ++j) {\n"
    "    float4 q = pos[j];\n"
    "    float3 d = q.xyz - p;\n"
    "    float inv = rsqrt(dot(d, d) + eps2);\n"
    "    a += (q.w * inv * inv * inv) * d;\n"
    "  }\n"
    "  acc[i] = (float4)(a, 0.0f);\n"
    "}\n"
    "__kernel void nbody_update(__global float4* pos, __global float4* vel,\n"
    "                           __global const float4* acc, float dt, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i >= n) return;\n"
    "  float4 v = vel[i] + acc[i] * dt;\n"
    "  vel[i] = v;\n"
    "  pos[i] = (float4)(pos[i].xyz + v.xyz * dt, pos[i].w);\n"
    "}\n";

#define NBODY_EPS2 0.01f
#define NBODY_DT 0.01f

/* Body i: in the cube [-1, 1]^3, mass around 1/n. */
static inline void nbody_initial(size_t i, size_t n, float body[4]) {
  unsigned h = (unsigned)((i + 1) * 2654435761u);
  for (int c = 0; c < 3; ++c) {
    h = h * 1664525u + 1013904223u;
    body[c] = (float)(h >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
  }
  body[3] = (0.5f + (float)(i % 11) / 10.0f) / (float)n;
}

/* The update of nbody_update, on the host (float, xyzw arrays). */
static inline void nbody_update_host(float* pos, float* vel, const float* acc, size_t n, float dt) {
  for (size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) {
      vel[4 * i + c] += acc[4 * i + c] * dt;
      pos[4 * i + c] += vel[4 * i + c] * dt;
    }
}

/* `steps` steps of the same scheme in double: pos (xyzw) and vel (xyz), in place. */
static inline void nbody_reference(double* pos, double* vel, size_t n, unsigned steps, double dt,
                                   double eps2) {
  double* acc = (double*)malloc(3 * n * sizeof(double));
  for (unsigned s = 0; s < steps; ++s) {
    for (size_t i = 0; i < n; ++i) {
      double a[3] = {0, 0, 0};
      for (size_t j = 0; j < n; ++j) {
        double d[3] = {pos[4 * j] - pos[4 * i], pos[4 * j + 1] - pos[4 * i + 1], pos[4 * j + 2] - pos[4 * i + 2]};
        double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
        double f = pos[4 * j + 3] / (r2 * sqrt(r2));
        for (int c = 0; c < 3; ++c) a[c] += f * d[c];
      }
      for (int c = 0; c < 3; ++c) acc[3 * i + c] = a[c];
    }
    for (size_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) {
        vel[3 * i + c] += acc[3 * i + c] * dt;
        pos[4 * i + c] += vel[3 * i + c] * dt;
      }
  }
  free(acc);
}

static inline int nbody_close(float got, double want) { return fabs((double)got - want) <= 1e-4 + 1e-4 * fabs(want); }

/* Compares positions after `steps` steps from nbody_initial with the CPU
 * reference; prints the first mismatches and returns how many coordinates
 * differ. */
static inline size_t nbody_check(const float* pos, size_t n, unsigned steps, double dt, double eps2) {
  double* ref_pos = (double*)malloc(n * 4 * sizeof(double));
  double* ref_vel = (double*)calloc(n * 3, sizeof(double));
  for (size_t i = 0; i < n; ++i) {
    float body[4];
    nbody_initial(i, n, body);
    for (int c = 0; c < 4; ++c) ref_pos[4 * i + c] = body[c];
  }
  nbody_reference(ref_pos, ref_vel, n, steps, dt, eps2);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c)
      if (!nbody_close(pos[4 * i + c], ref_pos[4 * i + c]) && bad++ < 5)
        fprintf(stderr, "body %zu coordinate %d: %f, expected %f\n", i, c, pos[4 * i + c],
                ref_pos[4 * i + c]);
  free(ref_pos);
  free(ref_vel);
  return bad;
}

#endif /* PARASOL_NBODY_KERNELS_H */
