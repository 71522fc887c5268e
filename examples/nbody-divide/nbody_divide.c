/* nbody-divide: all-pairs n-body where each step enqueues ONE force kernel
 * over all bodies on a context queue, and a divide function lets Parasol
 * choose how many sub-kernels to run it as (granularity adaptation, as in
 * SOCL's N-body experiment). The divide function runs K sub-kernels, each
 * computing the accelerations of a range of bodies into its own buffer, then
 * gathers them; an update kernel advances the bodies. With --static K the
 * program splits every step into K itself (no adaptation): the baseline the
 * adaptive run is compared with. Prints the factor of each step, the time
 * per step over the second half, and checks the positions against a CPU
 * (double) reference: exit status 1 on a mismatch.
 *
 *   nbody-divide [--n 2048] [--steps 40] [--range 1 8] [--static K]
 *                [--policy eager] [--vendor PREFIX] */
#include <time.h>

#include "common/example_util.h"
#include "nbody/nbody_kernels.h"

#define MAX_FACTOR 64

/* Everything the divide function needs, passed as its user data. */
struct division {
  cl_context ctx;
  cl_kernel forces;  /* a kernel of its own: the user's kernel keeps its arguments */
  cl_mem pos, acc;
  cl_uint n;
  float eps2;
  cl_mem parts[MAX_FACTOR + 1][MAX_FACTOR]; /* per factor K: K output buffers */
};

static cl_int CL_CALLBACK divide_forces(cl_command_queue q, cl_uint factor, const cl_event before,
                                        cl_event* after, void* user_data) {
  struct division* d = user_data;
  if (factor == 0 || factor > MAX_FACTOR) return CL_INVALID_VALUE;
  cl_event copies[MAX_FACTOR];
  cl_int err = CL_SUCCESS;
  for (cl_uint k = 0; k < factor; ++k) {
    cl_uint first = (cl_uint)((size_t)d->n * k / factor);
    cl_uint count = (cl_uint)((size_t)d->n * (k + 1) / factor) - first;
    size_t part_bytes = (size_t)count * 4 * sizeof(float);
    if (!d->parts[factor][k]) {
      d->parts[factor][k] = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, part_bytes, NULL, &err);
      if (err != CL_SUCCESS) return err;
    }
    cl_mem part = d->parts[factor][k];
    size_t global = count;
    cl_event computed;
    clSetKernelArg(d->forces, 0, sizeof(cl_mem), &d->pos);
    clSetKernelArg(d->forces, 1, sizeof(cl_mem), &part);
    clSetKernelArg(d->forces, 2, sizeof d->n, &d->n);
    clSetKernelArg(d->forces, 3, sizeof first, &first);
    clSetKernelArg(d->forces, 4, sizeof count, &count);
    clSetKernelArg(d->forces, 5, sizeof d->eps2, &d->eps2);
    err = clEnqueueNDRangeKernel(q, d->forces, 1, NULL, &global, NULL, before ? 1 : 0,
                                 before ? &before : NULL, &computed);
    if (err != CL_SUCCESS) return err;
    err = clEnqueueCopyBuffer(q, part, d->acc, 0, (size_t)first * 4 * sizeof(float), part_bytes, 1,
                              &computed, &copies[k]);
    clReleaseEvent(computed);
    if (err != CL_SUCCESS) return err;
  }
  err = clEnqueueMarkerWithWaitList(q, factor, copies, after);
  for (cl_uint k = 0; k < factor; ++k) clReleaseEvent(copies[k]);
  return err;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  struct example_options o = {MODE_CONTEXT_QUEUE, "eager", NULL, 2048, 1, 40};
  cl_uint lo = 1, hi = 8, fixed = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--range") && i + 2 < argc) {
      lo = (cl_uint)atoi(argv[++i]);
      hi = (cl_uint)atoi(argv[++i]);
      continue;
    }
    if (!strcmp(argv[i], "--static") && i + 1 < argc) {
      fixed = (cl_uint)atoi(argv[++i]);
      continue;
    }
    if (!strcmp(argv[i], "--steps") && i + 1 < argc) {
      o.iterations = (unsigned)atoi(argv[++i]);
      continue;
    }
    if (example_parse_option(&o, argc, argv, &i) && o.mode == MODE_CONTEXT_QUEUE) continue;
    example_usage(argv[0], " [--steps S] [--range LO HI] [--static K]");
    return 2;
  }
  if (lo == 0 || lo > hi || hi > MAX_FACTOR || fixed > MAX_FACTOR || o.iterations < 2) {
    example_usage(argv[0], " [--steps S] [--range LO HI] [--static K]");
    return 2;
  }
  struct example_setup s;
  example_setup_open(&s, &o);
  size_t n = o.n;
  cl_command_queue q = s.context_queue;

  cl_program prog = example_build(&s, kNbodySource);
  cl_int err;
  cl_kernel forces = clCreateKernel(prog, "nbody_forces", &err);
  CHECK(err);
  cl_kernel update = clCreateKernel(prog, "nbody_update", &err);
  CHECK(err);
  struct division div = {0};
  div.ctx = s.ctx;
  div.forces = clCreateKernel(prog, "nbody_forces", &err);
  CHECK(err);

  size_t bytes = n * 4 * sizeof(float);
  float* pos = malloc(bytes);
  float* vel = calloc(n * 4, sizeof(float));
  for (size_t i = 0; i < n; ++i) nbody_initial(i, n, &pos[4 * i]);
  cl_mem buf_pos = clCreateBuffer(s.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, pos, &err);
  CHECK(err);
  cl_mem buf_vel = clCreateBuffer(s.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, vel, &err);
  CHECK(err);
  cl_mem buf_acc = clCreateBuffer(s.ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  CHECK(err);
  div.pos = buf_pos;
  div.acc = buf_acc;
  div.n = (cl_uint)n;
  div.eps2 = NBODY_EPS2;

  /* The whole-range kernel, with its divide function attached. */
  cl_uint nn = (cl_uint)n, zero = 0;
  float eps2 = NBODY_EPS2, dt = NBODY_DT;
  CHECK(clSetKernelArg(forces, 0, sizeof(cl_mem), &buf_pos));
  CHECK(clSetKernelArg(forces, 1, sizeof(cl_mem), &buf_acc));
  CHECK(clSetKernelArg(forces, 2, sizeof nn, &nn));
  CHECK(clSetKernelArg(forces, 3, sizeof zero, &zero));
  CHECK(clSetKernelArg(forces, 4, sizeof nn, &nn));
  CHECK(clSetKernelArg(forces, 5, sizeof eps2, &eps2));
  if (!fixed) {
    clSetKernelDivideFunctionPARASOL_fn set_divide =
        (clSetKernelDivideFunctionPARASOL_fn)clGetExtensionFunctionAddressForPlatform(
            s.platform, "clSetKernelDivideFunctionPARASOL");
    if (!set_divide) {
      fprintf(stderr, "clSetKernelDivideFunctionPARASOL is not available\n");
      return 2;
    }
    CHECK(set_divide(forces, divide_forces, lo, hi, &div));
  }
  CHECK(clSetKernelArg(update, 0, sizeof(cl_mem), &buf_pos));
  CHECK(clSetKernelArg(update, 1, sizeof(cl_mem), &buf_vel));
  CHECK(clSetKernelArg(update, 2, sizeof(cl_mem), &buf_acc));
  CHECK(clSetKernelArg(update, 3, sizeof dt, &dt));
  CHECK(clSetKernelArg(update, 4, sizeof nn, &nn));

  printf("%zu bodies, %u steps, %s\n", n, o.iterations,
         fixed ? "static factor" : "adaptive factor (divide function)");
  cl_event ready = NULL;
  cl_uint* factors = calloc(o.iterations, sizeof *factors);
  double half_start = 0.0;
  for (unsigned step = 0; step < o.iterations; ++step) {
    if (step == o.iterations / 2) {
      if (ready) CHECK(clWaitForEvents(1, &ready));
      half_start = now_seconds();
    }
    cl_event computed, updated;
    if (fixed) {
      /* The static baseline: the same division, done by the program itself. */
      CHECK(divide_forces(q, fixed, ready, &computed, &div));
      factors[step] = fixed;
    } else {
      size_t global = n;
      CHECK(clEnqueueNDRangeKernel(q, forces, 1, NULL, &global, NULL, ready ? 1 : 0,
                                   ready ? &ready : NULL, &computed));
      CHECK(clGetEventInfo(computed, CL_EVENT_PARTITIONING_FACTOR_PARASOL, sizeof factors[step],
                           &factors[step], NULL));
    }
    size_t global = n;
    CHECK(clEnqueueNDRangeKernel(q, update, 1, NULL, &global, NULL, 1, &computed, &updated));
    clReleaseEvent(computed);
    example_chain(&ready, updated);
  }
  CHECK(clEnqueueReadBuffer(q, buf_pos, CL_TRUE, 0, bytes, pos, 1, &ready, NULL));
  double per_step = (now_seconds() - half_start) / (o.iterations - o.iterations / 2);

  printf("factor per step (0 = the kernel undivided):");
  for (unsigned step = 0; step < o.iterations; ++step) printf(" %u", factors[step]);
  printf("\nseconds per step over the second half: %.6f\n", per_step);
  example_print_stats(&s);

  size_t bad = nbody_check(pos, n, o.iterations, dt, eps2);
  printf("%s: %zu of %zu coordinates differ from the CPU reference\n", bad ? "FAILED" : "OK", bad, 3 * n);

  if (ready) clReleaseEvent(ready);
  for (int f = 0; f <= MAX_FACTOR; ++f)
    for (int k = 0; k < MAX_FACTOR; ++k)
      if (div.parts[f][k]) clReleaseMemObject(div.parts[f][k]);
  clReleaseMemObject(buf_pos); clReleaseMemObject(buf_vel); clReleaseMemObject(buf_acc);
  clReleaseKernel(forces); clReleaseKernel(update); clReleaseKernel(div.forces);
  clReleaseProgram(prog);
  example_setup_close(&s);
  free(factors); free(pos); free(vel);
  return bad ? 1 : 0;
}
