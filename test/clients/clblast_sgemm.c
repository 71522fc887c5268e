/* CLBlast, a real OpenCL BLAS library (Debian's libclblast), runs its SGEMM
 * through Parasol on a PoCL device queue; the product is checked against a
 * CPU reference. CLBlast compiles and tunes its own kernels: a demanding
 * client of program building, kernel arguments and device queries. */
#include <CL/cl.h>
#include <clblast_c.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cl_int e_ = (call);                                                               \
    if (e_ != CL_SUCCESS) {                                                           \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)e_); \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

int main(void) {
  cl_platform_id ps[16];
  cl_uint np = 0;
  CHECK(clGetPlatformIDs(16, ps, &np));
  cl_platform_id parasol = NULL;
  for (cl_uint i = 0; i < np; ++i) {
    char name[64] = "";
    clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (!strcmp(name, "Parasol")) parasol = ps[i];
  }
  if (!parasol) {
    fprintf(stderr, "no Parasol platform\n");
    return 1;
  }
  cl_device_id devs[16];
  cl_uint nd = 0;
  CHECK(clGetDeviceIDs(parasol, CL_DEVICE_TYPE_ALL, 16, devs, &nd));
  cl_device_id dev = NULL;
  for (cl_uint i = 0; i < nd && !dev; ++i) {
    char vendor[128] = "";
    clGetDeviceInfo(devs[i], 0xFF10 /* CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL */, sizeof vendor,
                    vendor, NULL);
    if (!strncmp(vendor, "Portable", 8)) dev = devs[i];
  }
  if (!dev) {
    fprintf(stderr, "no PoCL device behind Parasol\n");
    return 1;
  }
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
  CHECK(err);

  const size_t m = 67, n = 45, k = 33; /* odd sizes: CLBlast's padding paths too */
  float* a = malloc(m * k * sizeof(float));
  float* b = malloc(k * n * sizeof(float));
  float* c = malloc(m * n * sizeof(float));
  for (size_t i = 0; i < m * k; ++i) a[i] = (float)((i * 7) % 13) * 0.25f - 1.0f;
  for (size_t i = 0; i < k * n; ++i) b[i] = (float)((i * 5) % 11) * 0.5f - 2.0f;
  for (size_t i = 0; i < m * n; ++i) c[i] = (float)(i % 3);
  cl_mem da = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, m * k * sizeof(float), a, &err);
  CHECK(err);
  cl_mem db = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, k * n * sizeof(float), b, &err);
  CHECK(err);
  cl_mem dc = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, m * n * sizeof(float), c, &err);
  CHECK(err);

  const float alpha = 1.5f, beta = 0.5f;
  cl_event done = NULL;
  CLBlastStatusCode status =
      CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k, alpha,
                   da, 0, k, db, 0, n, beta, dc, 0, n, &q, &done);
  if (status != CLBlastSuccess) {
    fprintf(stderr, "CLBlastSgemm failed: %d\n", (int)status);
    return 1;
  }
  CHECK(clWaitForEvents(1, &done));
  float* out = malloc(m * n * sizeof(float));
  CHECK(clEnqueueReadBuffer(q, dc, CL_TRUE, 0, m * n * sizeof(float), out, 0, NULL, NULL));

  size_t bad = 0;
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      double ref = beta * c[i * n + j];
      for (size_t p = 0; p < k; ++p) ref += alpha * (double)a[i * k + p] * b[p * n + j];
      if (fabs(out[i * n + j] - ref) > 1e-3 * (fabs(ref) + 1.0) && bad++ < 5)
        fprintf(stderr, "C[%zu][%zu] = %f, expected %f\n", i, j, out[i * n + j], ref);
    }
  printf("%s: CLBlast SGEMM %zux%zux%zu through Parasol, %zu of %zu values differ\n",
         bad ? "FAILED" : "OK", m, n, k, bad, m * n);
  clReleaseEvent(done);
  clReleaseMemObject(da); clReleaseMemObject(db); clReleaseMemObject(dc);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  free(a); free(b); free(c); free(out);
  return bad ? 1 : 0;
}
