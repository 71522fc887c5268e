/* A program written for StarPU's SOCL, compiled unchanged against the
 * standard OpenCL headers only. It selects the scheduler with SOCL's
 * context property 0xFF01, submits to a context queue (a queue with no
 * device) and attaches a divide function exactly as SOCL 1.3's sources
 * read it (socl/src/cl_setkernelarg.c): index -1's value is the function,
 * -2's points to one cl_uint (the partition space), -3's value is the user
 * data; arg_size is whatever the program passes (here sizeof(void*), as
 * SOCL's own example does). Checks: the result against a CPU reference,
 * and the factors against SOCL's rule (socl/src/cl_enqueuendrangekernel.c):
 * 1 .. space-1 in turn, then the factor whose last run (the enqueue's
 * event, start to end) was the shortest, the lowest of equals. */
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cl_int e_ = (call);                                                               \
    if (e_ != CL_SUCCESS) {                                                           \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)e_); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

#define N 4096
#define SPACE 5 /* factors 1 .. 4 */
#define ITERATIONS 16

static const char* kSource =
    "__kernel void axpy_inplace(__global float* y, __global const float* x, float a) {\n"
    "  size_t i = get_global_id(0); y[i] = a * x[i] + y[i];\n"
    "}\n";

struct split_state {
  cl_kernel kernel; /* the divide function launches pieces of it */
  cl_uint factors[ITERATIONS];
  int calls;
};

/* SOCL's divide-function prototype. */
static cl_int divide(cl_command_queue q, cl_uint factor, void* data, const cl_event before,
                     cl_event* after) {
  struct split_state* s = data;
  if (s->calls < ITERATIONS) s->factors[s->calls] = factor;
  ++s->calls;
  size_t chunk = (N + factor - 1) / factor;
  cl_event pieces[64];
  cl_uint count = 0;
  for (size_t off = 0; off < N && count < 64; off += chunk) {
    size_t size = off + chunk > N ? N - off : chunk;
    cl_int err = clEnqueueNDRangeKernel(q, s->kernel, 1, &off, &size, NULL, 1, &before, &pieces[count]);
    if (err != CL_SUCCESS) return err;
    ++count;
  }
  cl_int err = clEnqueueMarkerWithWaitList(q, count, pieces, after);
  for (cl_uint i = 0; i < count; ++i) clReleaseEvent(pieces[i]);
  return err;
}

int main(void) {
  cl_platform_id ps[16];
  cl_uint np = 0;
  CHECK(clGetPlatformIDs(16, ps, &np));
  cl_platform_id platform = NULL;
  for (cl_uint i = 0; i < np; ++i) {
    char name[64] = "";
    clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (!strcmp(name, "Parasol")) platform = ps[i];
  }
  if (!platform) return fprintf(stderr, "no Parasol platform\n"), 1;

  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform,
                                   0xFF01 /* SOCL's CL_CONTEXT_SCHEDULER_SOCL */,
                                   (cl_context_properties)"eager", 0};
  cl_int err;
  cl_context ctx = clCreateContextFromType(props, CL_DEVICE_TYPE_CPU, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue q = clCreateCommandQueue(
      ctx, NULL, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE, &err);
  CHECK(err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(prog, 0, NULL, NULL, NULL, NULL));
  struct split_state state = {0};
  state.kernel = clCreateKernel(prog, "axpy_inplace", &err);
  CHECK(err);

  float* x = malloc(N * sizeof(float));
  float* y = malloc(N * sizeof(float));
  double* ref = malloc(N * sizeof(double));
  for (int i = 0; i < N; ++i) {
    x[i] = (float)(i % 17);
    y[i] = (float)(i % 5);
    ref[i] = y[i];
  }
  cl_mem bx = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof(float), x, &err);
  CHECK(err);
  cl_mem by = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * sizeof(float), y, &err);
  CHECK(err);
  float a = 0.5f;
  CHECK(clSetKernelArg(state.kernel, 0, sizeof(cl_mem), &by));
  CHECK(clSetKernelArg(state.kernel, 1, sizeof(cl_mem), &bx));
  CHECK(clSetKernelArg(state.kernel, 2, sizeof a, &a));
  cl_uint space = SPACE;
  CHECK(clSetKernelArg(state.kernel, (cl_uint)-1, sizeof(void*), (const void*)divide));
  CHECK(clSetKernelArg(state.kernel, (cl_uint)-2, sizeof(void*), &space));
  CHECK(clSetKernelArg(state.kernel, (cl_uint)-3, sizeof(void*), &state));

  cl_ulong last_ns[SPACE] = {0}; /* per factor, its last run */
  int factors_ok = 1;
  for (int it = 0; it < ITERATIONS; ++it) {
    /* SOCL's choice for this run, from the runs before it. */
    cl_uint expected = (cl_uint)it + 1;
    if (it >= SPACE - 1) {
      expected = 1;
      for (cl_uint f = 2; f < SPACE; ++f)
        if (last_ns[f] < last_ns[expected]) expected = f;
    }
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(q, state.kernel, 1, NULL, (const size_t[]){N}, NULL, 0, NULL, &done));
    /* SOCL measures each run before choosing the next factor. */
    CHECK(clWaitForEvents(1, &done));
    cl_ulong start, end;
    CHECK(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));
    CHECK(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
    CHECK(clReleaseEvent(done));
    cl_uint factor = state.factors[it];
    if (factor != expected || state.calls != it + 1) factors_ok = 0;
    if (factor >= 1 && factor < SPACE) last_ns[factor] = end - start > 0 ? end - start : 1;
    for (int i = 0; i < N; ++i) ref[i] = 0.5 * x[i] + ref[i];
  }
  CHECK(clEnqueueReadBuffer(q, by, CL_TRUE, 0, N * sizeof(float), y, 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < N; ++i)
    if (y[i] != (float)ref[i] && bad++ < 5) fprintf(stderr, "y[%d] = %f, expected %f\n", i, y[i], ref[i]);

  printf("factors:");
  for (int i = 0; i < state.calls && i < ITERATIONS; ++i) printf(" %u", state.factors[i]);
  printf("\n%s: %d of %d values differ; the divide function ran %d times%s\n",
         bad || !factors_ok ? "FAILED" : "OK", bad, N, state.calls,
         factors_ok ? "" : "; factors not as SOCL chooses them");
  clReleaseMemObject(bx);
  clReleaseMemObject(by);
  clReleaseKernel(state.kernel);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  free(x);
  free(y);
  free(ref);
  return bad || !factors_ok;
}
