/* One kernel on a context queue over every Parasol device, then a read: the
 * smallest run that makes Parasol decide something (devices found, the
 * context's policy, the device the policy chose). The tracing tests run it
 * with PARASOL_LOG=info and PARASOL_TRACE and read what Parasol says.
 *
 * With --fail, the kernel asks for 1 GiB of local memory on the Oclgrind
 * device's queue instead: the vendor refuses the launch, and the command
 * fails on that device. Exits 77 (skipped) without an Oclgrind device. */
#include "common/example_util.h"  /* CHECK, example_find_parasol */

#define N 1024

static const char* kSource =
    "__kernel void add_one(__global int* x) { x[get_global_id(0)] += 1; }\n"
    "__kernel void add_local(__global int* x, __local int* t) {\n"
    "  t[get_local_id(0)] = 1;\n"
    "  x[get_global_id(0)] += t[get_local_id(0)];\n"
    "}\n";

int main(int argc, char** argv) {
  int fail = argc > 1 && !strcmp(argv[1], "--fail");
  cl_platform_id parasol = example_find_parasol();
  if (!parasol) {
    fprintf(stderr, "Parasol platform not found\n");
    return 1;
  }
  cl_uint ndev = 0;
  CHECK(clGetDeviceIDs(parasol, CL_DEVICE_TYPE_ALL, 0, NULL, &ndev));
  cl_device_id* devices = malloc(ndev * sizeof *devices);
  CHECK(clGetDeviceIDs(parasol, CL_DEVICE_TYPE_ALL, ndev, devices, NULL));

  cl_int err;
  cl_context ctx = clCreateContext(NULL, ndev, devices, NULL, NULL, &err);
  CHECK(err);
  cl_device_id target = NULL; /* NULL: a context queue */
  if (fail) {
    for (cl_uint d = 0; d < ndev && !target; ++d) {
      char vendor[256] = "";
      clGetDeviceInfo(devices[d], CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL, sizeof vendor, vendor,
                      NULL);
      if (!strncmp(vendor, "Oclgrind", 8)) target = devices[d];
    }
    if (!target) {
      printf("no Oclgrind device: skipped\n");
      free(devices);
      return 77;
    }
  }
  cl_command_queue q = clCreateCommandQueue(ctx, target, 0, &err);
  CHECK(err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(prog, 0, NULL, NULL, NULL, NULL));
  cl_kernel k = clCreateKernel(prog, fail ? "add_local" : "add_one", &err);
  CHECK(err);
  int host[N];
  for (int i = 0; i < N; ++i) host[i] = i;
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
  CHECK(err);
  CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
  if (fail) CHECK(clSetKernelArg(k, 1, (size_t)1 << 30, NULL));
  size_t global = N;
  cl_event ran;
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, &ran));
  cl_int read = clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL);
  if (fail) {
    cl_int status = 0;
    CHECK(clGetEventInfo(ran, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    printf("add_local ended with status %d\n", status);
    clReleaseEvent(ran);
    free(devices);
    return status < 0 ? 0 : 1;
  }
  CHECK(read);

  cl_device_id dev = NULL;
  char name[256] = "?", vendor[256] = "?";
  CHECK(clGetEventInfo(ran, CL_EVENT_DEVICE_PARASOL, sizeof dev, &dev, NULL));
  if (dev) {
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL, sizeof vendor, vendor, NULL);
  }
  printf("add_one ran on %s [%s]\n", name, vendor);
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += host[i] != i + 1;
  printf("%s\n", bad ? "FAILED" : "OK");

  clReleaseEvent(ran);
  clReleaseMemObject(buf);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  free(devices);
  return bad ? 1 : 0;
}
