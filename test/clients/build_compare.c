/* Builds the same programs on a vendor's device directly and on Parasol's
 * re-export of it, and compares: an argument-less kernel (built and run),
 * a kernel with every kind of argument (clGetKernelArgInfo: the vendor
 * built with -cl-kernel-arg-info, Parasol without), and build options that
 * are invalid (Parasol must answer the spec's CL_INVALID_BUILD_OPTIONS; the
 * vendor's own answer is printed beside it) or valid only on some vendors.
 * Usage: build_compare VENDOR_PLATFORM_NAME_PREFIX (e.g. "NVIDIA CUDA",
 * "Portable Computing Language"). Exit 0 when Parasol answers as it must. */
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL 0xFF10

static const char* kEmpty = "__kernel void empty_kernel(void) { }\n";
static const char* kEveryKind =
    "typedef struct { float x; int n; } pair_t;\n"
    "__kernel void every_kind(__global float* restrict out, __global const int* in,\n"
    "                         __constant float* table, __local float* scratch,\n"
    "                         const int count, float4 v, pair_t p,\n"
    "                         __global volatile uint* flags) {\n"
    "  out[get_global_id(0)] = in[0] + table[0] + count + v.x + p.x;\n"
    "  scratch[0] = 0; flags[0] = 1u;\n"
    "}\n";
/* "-D" and "-I" without their value are asked of Parasol only: PoCL 3.1
 * crashes on a lone "-D" (a null dereference in its option parser). */
static const struct {
  const char* options;
  int ask_vendor;
} kInvalidOptions[] = {{"-cl-no-such-option", 1}, {"-cl-std=CL9.9", 1}, {"nonsense", 1},
                       {"-D", 0}, {"-I", 0}};

static int failures = 0;

static void expect(int ok, const char* what) {
  if (!ok) {
    printf("  MISMATCH: %s\n", what);
    ++failures;
  }
}

static cl_device_id first_device(cl_platform_id p) {
  cl_device_id d = NULL;
  clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
  return d;
}

struct built {
  cl_context ctx;
  cl_program prog;
  cl_int err;
};

static struct built build(cl_device_id d, const char* source, const char* options) {
  struct built b = {0};
  cl_int err;
  b.ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
  if (err != CL_SUCCESS) {
    b.err = err;
    return b;
  }
  b.prog = clCreateProgramWithSource(b.ctx, 1, &source, NULL, &err);
  b.err = err != CL_SUCCESS ? err : clBuildProgram(b.prog, 1, &d, options, NULL, NULL);
  return b;
}

static void release(struct built* b) {
  if (b->prog) clReleaseProgram(b->prog);
  if (b->ctx) clReleaseContext(b->ctx);
}

static cl_int run_empty(cl_device_id d, struct built* b) {
  cl_int err;
  cl_kernel k = clCreateKernel(b->prog, "empty_kernel", &err);
  if (err != CL_SUCCESS) return err;
  cl_command_queue q = clCreateCommandQueue(b->ctx, d, 0, &err);
  if (err == CL_SUCCESS) {
    size_t global = 4;
    err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clFinish(q);
    clReleaseCommandQueue(q);
  }
  clReleaseKernel(k);
  return err;
}

struct arg_info {
  cl_kernel_arg_address_qualifier address;
  cl_kernel_arg_access_qualifier access;
  cl_kernel_arg_type_qualifier type_qualifier;
  char type_name[64], name[64];
};

static cl_uint arg_info(struct built* b, struct arg_info* out, cl_uint max) {
  cl_int err;
  cl_kernel k = clCreateKernel(b->prog, "every_kind", &err);
  if (err != CL_SUCCESS) return 0;
  cl_uint n = 0;
  clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof n, &n, NULL);
  if (n > max) n = max;
  for (cl_uint i = 0; i < n; ++i) {
    memset(&out[i], 0, sizeof out[i]);
    clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof out[i].address, &out[i].address, NULL);
    clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof out[i].access, &out[i].access, NULL);
    clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof out[i].type_qualifier,
                       &out[i].type_qualifier, NULL);
    clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof out[i].type_name, out[i].type_name, NULL);
    clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof out[i].name, out[i].name, NULL);
  }
  clReleaseKernel(k);
  return n;
}

int main(int argc, char** argv) {
  if (argc < 2) return fprintf(stderr, "usage: %s VENDOR_PLATFORM_NAME_PREFIX\n", argv[0]), 2;
  const char* vendor = argv[1];
  cl_platform_id ps[16];
  cl_uint np = 0;
  clGetPlatformIDs(16, ps, &np);
  cl_platform_id vendor_platform = NULL, parasol = NULL;
  for (cl_uint i = 0; i < np; ++i) {
    char name[128] = "";
    clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (!strncmp(name, vendor, strlen(vendor))) vendor_platform = ps[i];
    if (!strcmp(name, "Parasol")) parasol = ps[i];
  }
  if (!vendor_platform || !parasol) return fprintf(stderr, "no %s or no Parasol platform\n", vendor), 2;
  cl_device_id direct = first_device(vendor_platform), through = NULL;
  cl_device_id all[64];
  cl_uint nd = 0;
  clGetDeviceIDs(parasol, CL_DEVICE_TYPE_ALL, 64, all, &nd);
  for (cl_uint i = 0; i < nd && !through; ++i) {
    char name[128] = "";
    clGetDeviceInfo(all[i], CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL, sizeof name, name, NULL);
    if (!strncmp(name, vendor, strlen(vendor))) through = all[i];
  }
  if (!direct || !through) return fprintf(stderr, "no %s device\n", vendor), 2;
  char dev_name[128] = "";
  clGetDeviceInfo(direct, CL_DEVICE_NAME, sizeof dev_name, dev_name, NULL);
  printf("%s: %s, directly and through Parasol\n", vendor, dev_name);

  struct built v = build(direct, kEmpty, ""), p = build(through, kEmpty, "");
  cl_int vr = v.err == CL_SUCCESS ? run_empty(direct, &v) : v.err;
  cl_int pr = p.err == CL_SUCCESS ? run_empty(through, &p) : p.err;
  printf("argument-less kernel: build %d / %d, run %d / %d (vendor / Parasol)\n", v.err, p.err, vr, pr);
  expect(p.err == v.err && pr == vr, "argument-less kernel");
  release(&v);
  release(&p);

  v = build(direct, kEveryKind, "-cl-kernel-arg-info");
  p = build(through, kEveryKind, "");
  struct arg_info va[16], pa[16];
  cl_uint vn = v.err == CL_SUCCESS ? arg_info(&v, va, 16) : 0;
  cl_uint pn = p.err == CL_SUCCESS ? arg_info(&p, pa, 16) : 0;
  printf("every argument kind: build %d / %d, %u / %u arguments\n", v.err, p.err, vn, pn);
  expect(v.err == CL_SUCCESS && p.err == CL_SUCCESS && vn == pn && vn == 8, "argument count");
  for (cl_uint i = 0; i < vn && i < pn; ++i) {
    int same = va[i].address == pa[i].address && va[i].access == pa[i].access &&
               va[i].type_qualifier == pa[i].type_qualifier &&
               !strcmp(va[i].type_name, pa[i].type_name) && !strcmp(va[i].name, pa[i].name);
    printf("  arg %u: %-8s %-8s address %#x/%#x access %#x/%#x qualifier %#lx/%#lx%s\n", i,
           pa[i].name, pa[i].type_name, va[i].address, pa[i].address, va[i].access, pa[i].access,
           (unsigned long)va[i].type_qualifier, (unsigned long)pa[i].type_qualifier,
           same ? "" : "  <- differs");
    expect(same, "argument info");
  }
  release(&v);
  release(&p);

  for (size_t i = 0; i < sizeof kInvalidOptions / sizeof *kInvalidOptions; ++i) {
    const char* options = kInvalidOptions[i].options;
    struct built none = {0};
    v = kInvalidOptions[i].ask_vendor ? build(direct, kEmpty, options) : none;
    p = build(through, kEmpty, options);
    if (kInvalidOptions[i].ask_vendor)
      printf("options \"%s\": vendor %d, Parasol %d (CL_INVALID_BUILD_OPTIONS is %d)\n", options,
             v.err, p.err, CL_INVALID_BUILD_OPTIONS);
    else
      printf("options \"%s\": vendor not asked, Parasol %d\n", options, p.err);
    expect(p.err == CL_INVALID_BUILD_OPTIONS, "invalid options");
    release(&v);
    release(&p);
  }
  /* A vendor's own option: valid on that vendor's devices only. */
  const char* nv = "-cl-nv-verbose";
  v = build(direct, kEmpty, nv);
  p = build(through, kEmpty, nv);
  printf("options \"%s\": vendor %d, Parasol %d\n", nv, v.err, p.err);
  if (!strncmp(vendor, "NVIDIA", 6))
    expect(v.err == CL_SUCCESS && p.err == CL_SUCCESS, "NVIDIA's own option");
  else
    expect(p.err == CL_INVALID_BUILD_OPTIONS, "another vendor's option");
  release(&v);
  release(&p);
  printf("%s\n", failures ? "FAILED" : "OK");
  return failures != 0;
}
