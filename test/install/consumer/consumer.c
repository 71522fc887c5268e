/* An application of Parasol as a user builds one against an installed tree:
 * the Parasol extension header from the installed include dir, the ICD loader
 * (-lOpenCL), Parasol reached through its installed .icd.
 *
 * Checks that the Parasol platform is there, that it re-exports every device
 * of the other platforms (same count, each with its vendor platform's name),
 * and that a kernel runs on a context queue whose policy is set with
 * CL_CONTEXT_SCHEDULER_PARASOL. Exits 0 only if all of that holds. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <CL/cl_parasol.h>

#include <stdio.h>
#include <string.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64
#define N 1024

#define CHECK(call)                                                     \
  do {                                                                  \
    cl_int err_ = (call);                                               \
    if (err_ != CL_SUCCESS) {                                           \
      fprintf(stderr, "consumer: %s failed: %d\n", #call, err_);        \
      return 1;                                                         \
    }                                                                   \
  } while (0)

static const char* kSource =
    "__kernel void twice(__global float* x) { x[get_global_id(0)] *= 2.0f; }\n";

int main(void) {
  cl_platform_id platforms[MAX_PLATFORMS], parasol = NULL;
  cl_uint nplat = 0, vendor_devices = 0;
  CHECK(clGetPlatformIDs(MAX_PLATFORMS, platforms, &nplat));
  for (cl_uint p = 0; p < nplat; ++p) {
    char name[256] = "";
    CHECK(clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name, name, NULL));
    if (!strcmp(name, "Parasol")) {
      parasol = platforms[p];
      continue;
    }
    cl_uint n = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &n) == CL_SUCCESS)
      vendor_devices += n;
    printf("vendor platform: %s (%u devices)\n", name, n);
  }
  if (!parasol) {
    fprintf(stderr, "consumer: no Parasol platform among %u platforms\n", nplat);
    return 1;
  }

  cl_device_id devices[MAX_DEVICES];
  cl_uint ndev = 0;
  CHECK(clGetDeviceIDs(parasol, CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &ndev));
  printf("Parasol platform: %u devices\n", ndev);
  for (cl_uint d = 0; d < ndev; ++d) {
    char name[256] = "", vendor[256] = "";
    CHECK(clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof name, name, NULL));
    CHECK(clGetDeviceInfo(devices[d], CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL, sizeof vendor,
                          vendor, NULL));
    printf("  device %u: %s [%s]\n", d, name, vendor);
  }
  /* Every vendor device, plus Parasol's own native CPU device when built. */
  cl_uint native = 0;
  for (cl_uint d = 0; d < ndev; ++d) {
    char vendor[256] = "";
    CHECK(clGetDeviceInfo(devices[d], CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL, sizeof vendor,
                          vendor, NULL));
    native += !strcmp(vendor, "Parasol");
  }
  if (ndev == 0 || ndev != vendor_devices + native) {
    fprintf(stderr, "consumer: Parasol has %u devices, the vendor platforms %u\n", ndev,
            vendor_devices);
    return 1;
  }

  cl_int err;
  cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, (cl_context_properties)parasol,
      CL_CONTEXT_SCHEDULER_PARASOL, (cl_context_properties)"eager", 0};
  cl_context ctx = clCreateContext(props, ndev, devices, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue q = clCreateCommandQueue(ctx, NULL /* context queue */, 0, &err);
  CHECK(err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(prog, 0, NULL, NULL, NULL, NULL));
  cl_kernel k = clCreateKernel(prog, "twice", &err);
  CHECK(err);
  float x[N];
  for (int i = 0; i < N; ++i) x[i] = (float)i;
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
  CHECK(err);
  CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
  size_t global = N;
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL));
  for (int i = 0; i < N; ++i) {
    if (x[i] != 2.0f * (float)i) {
      fprintf(stderr, "consumer: x[%d] = %f, expected %f\n", i, x[i], 2.0f * (float)i);
      return 1;
    }
  }
  clReleaseMemObject(buf);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  printf("consumer: OK\n");
  return 0;
}
