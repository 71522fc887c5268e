/* A program written for StarPU's SOCL, compiled unchanged against the
 * standard OpenCL headers only: it selects the scheduler with SOCL's
 * context property value 0xFF01, submits to a context queue (a queue with
 * no device), and attaches a divide function with SOCL's clSetKernelArg
 * convention (index -1: function, -2: factor range, -3: user data). The
 * result is checked against a CPU reference. */
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
static const char* kSource =
    "__kernel void axpy_inplace(__global float* y, __global const float* x, float a) {\n"
    "  size_t i = get_global_id(0); y[i] = a * x[i] + y[i];\n"
    "}\n";

static cl_kernel g_kernel; /* the divide function launches pieces of it */
static int g_divisions;

/* SOCL's divide-function prototype: no user-data parameter. */
static cl_int divide(cl_command_queue q, cl_uint factor, const cl_event before, cl_event* after) {
  ++g_divisions;
  size_t chunk = (N + factor - 1) / factor;
  cl_event pieces[64];
  cl_uint count = 0;
  for (size_t off = 0; off < N && count < 64; off += chunk) {
    size_t size = off + chunk > N ? N - off : chunk;
    cl_int err = clEnqueueNDRangeKernel(q, g_kernel, 1, &off, &size, NULL, 1, &before, &pieces[count]);
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
  cl_command_queue q = clCreateCommandQueue(ctx, NULL, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  CHECK(err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(prog, 0, NULL, NULL, NULL, NULL));
  g_kernel = clCreateKernel(prog, "axpy_inplace", &err);
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
  CHECK(clSetKernelArg(g_kernel, 0, sizeof(cl_mem), &by));
  CHECK(clSetKernelArg(g_kernel, 1, sizeof(cl_mem), &bx));
  CHECK(clSetKernelArg(g_kernel, 2, sizeof a, &a));
  cl_int (*fn)(cl_command_queue, cl_uint, const cl_event, cl_event*) = divide;
  cl_uint range[2] = {1, 4};
  void* user_data = NULL;
  CHECK(clSetKernelArg(g_kernel, (cl_uint)-1, sizeof fn, &fn));
  CHECK(clSetKernelArg(g_kernel, (cl_uint)-2, sizeof range, range));
  CHECK(clSetKernelArg(g_kernel, (cl_uint)-3, sizeof user_data, &user_data));

  const int iterations = 16;
  size_t global = N;
  for (int it = 0; it < iterations; ++it) {
    CHECK(clEnqueueNDRangeKernel(q, g_kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
    CHECK(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL));
    for (int i = 0; i < N; ++i) ref[i] = 0.5 * x[i] + ref[i];
  }
  CHECK(clEnqueueReadBuffer(q, by, CL_TRUE, 0, N * sizeof(float), y, 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < N; ++i)
    if (y[i] != (float)ref[i] && bad++ < 5) fprintf(stderr, "y[%d] = %f, expected %f\n", i, y[i], ref[i]);
  printf("%s: %d of %d values differ; the divide function ran %d times\n", bad ? "FAILED" : "OK",
         bad, N, g_divisions);
  clReleaseMemObject(bx); clReleaseMemObject(by);
  clReleaseKernel(g_kernel); clReleaseProgram(prog);
  clReleaseCommandQueue(q); clReleaseContext(ctx);
  free(x); free(y); free(ref);
  return bad || g_divisions == 0;
}
