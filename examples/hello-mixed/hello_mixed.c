/* hello-mixed: one buffer, a chain of kernels hopping across every device of
 * the Parasol platform (vendors mixed), each step on the next device's queue.
 * Prints which device ran each step and checks the result on the CPU. */
#include <CL/cl.h>
#include <CL/cl_parasol.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096
#define STEPS_PER_DEVICE 2

static const char* kSource =
    "__kernel void scale_shift(__global float* x, float a, float b) {\n"
    "  size_t i = get_global_id(0);\n"
    "  x[i] = a * x[i] + b;\n"
    "}\n";

#define CHECK(call)                                                          \
  do {                                                                       \
    cl_int err_ = (call);                                                    \
    if (err_ != CL_SUCCESS) {                                                \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, err_); \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

static cl_platform_id find_parasol(void) {
  cl_uint n = 0;
  CHECK(clGetPlatformIDs(0, NULL, &n));
  cl_platform_id* ids = malloc(n * sizeof *ids);
  CHECK(clGetPlatformIDs(n, ids, NULL));
  cl_platform_id found = NULL;
  for (cl_uint i = 0; i < n && !found; ++i) {
    char name[128] = "";
    clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (!strcmp(name, "Parasol")) found = ids[i];
  }
  free(ids);
  return found;
}

int main(void) {
  cl_platform_id parasol = find_parasol();
  if (!parasol) {
    fprintf(stderr, "Parasol platform not found: is parasol.icd registered?\n");
    return 1;
  }
  cl_uint ndev = 0;
  CHECK(clGetDeviceIDs(parasol, CL_DEVICE_TYPE_ALL, 0, NULL, &ndev));
  cl_device_id* devices = malloc(ndev * sizeof *devices);
  CHECK(clGetDeviceIDs(parasol, CL_DEVICE_TYPE_ALL, ndev, devices, NULL));
  printf("Parasol platform: %u devices\n", ndev);
  for (cl_uint d = 0; d < ndev; ++d) {
    char name[256], vendor[256];
    clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(devices[d], CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL, sizeof vendor, vendor, NULL);
    printf("  device %u: %s [%s]\n", d, name, vendor);
  }

  cl_int err;
  cl_context ctx = clCreateContext(NULL, ndev, devices, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue* queues = malloc(ndev * sizeof *queues);
  for (cl_uint d = 0; d < ndev; ++d) {
    queues[d] = clCreateCommandQueue(ctx, devices[d], 0, &err);
    CHECK(err);
  }
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(prog, 0, NULL, NULL, NULL, NULL));
  cl_kernel k = clCreateKernel(prog, "scale_shift", &err);
  CHECK(err);

  float* host = malloc(N * sizeof(float));
  double* ref = malloc(N * sizeof(double));
  for (int i = 0; i < N; ++i) host[i] = (float)(ref[i] = (double)(i % 97) * 0.25);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * sizeof(float),
                              host, &err);
  CHECK(err);

  /* The chain: step s runs on device s % ndev and waits for step s-1. */
  cl_uint steps = ndev * STEPS_PER_DEVICE;
  cl_event prev = NULL;
  cl_event* events = malloc(steps * sizeof *events);
  size_t global = N;
  for (cl_uint s = 0; s < steps; ++s) {
    float a = 1.0f + 0.125f * (float)(s % 3), b = (float)s;
    CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
    CHECK(clSetKernelArg(k, 1, sizeof a, &a));
    CHECK(clSetKernelArg(k, 2, sizeof b, &b));
    CHECK(clEnqueueNDRangeKernel(queues[s % ndev], k, 1, NULL, &global, NULL, prev ? 1 : 0,
                                 prev ? &prev : NULL, &events[s]));
    prev = events[s];
    for (int i = 0; i < N; ++i) ref[i] = (double)a * ref[i] + (double)b;
  }
  CHECK(clEnqueueReadBuffer(queues[0], buf, CL_TRUE, 0, N * sizeof(float), host, 1, &prev, NULL));

  for (cl_uint s = 0; s < steps; ++s) {
    cl_device_id ran = NULL;
    char name[256] = "?", vendor[256] = "?";
    CHECK(clGetEventInfo(events[s], CL_EVENT_DEVICE_PARASOL, sizeof ran, &ran, NULL));
    if (ran) {
      clGetDeviceInfo(ran, CL_DEVICE_NAME, sizeof name, name, NULL);
      clGetDeviceInfo(ran, CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL, sizeof vendor, vendor, NULL);
    }
    printf("step %2u ran on %s [%s]\n", s, name, vendor);
    clReleaseEvent(events[s]);
  }

  int bad = 0;
  for (int i = 0; i < N; ++i)
    if (fabs(host[i] - ref[i]) > 1e-3 * fabs(ref[i]) + 1e-3) {
      if (bad++ < 5) fprintf(stderr, "x[%d] = %f, expected %f\n", i, host[i], ref[i]);
    }
  printf("%s: %d of %d values differ from the CPU reference\n", bad ? "FAILED" : "OK", bad, N);

  clReleaseMemObject(buf);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  for (cl_uint d = 0; d < ndev; ++d) clReleaseCommandQueue(queues[d]);
  clReleaseContext(ctx);
  free(events); free(queues); free(devices); free(host); free(ref);
  return bad ? 1 : 0;
}
