// Regressions for what the libFuzzer targets (test/fuzz/) found, as plain
// tests so they run everywhere, with or without clang.
#include "support/parasol_test.h"

using namespace parasol_test;

TEST_CASE("a by-value struct argument of size 0 is refused, not handed to the vendor",
          "[reliability]") {
  // fuzz_kernel_args: PoCL asserts (pocl_aligned_malloc: alignment > 0) on
  // clSetKernelArg(struct arg, size 0) instead of answering CL_INVALID_ARG_SIZE.
  Context ctx(pocl_devices());
  Program prog(ctx,
               "typedef struct { int a; float b; char c; } S;\n"
               "__kernel void by_struct(S s, __global float* o) { o[0] = s.a + s.b + s.c; }\n");
  Kernel k(prog, "by_struct");
  char value[16] = {};
  CHECK(clSetKernelArg(k, 0, 0, value) == CL_INVALID_ARG_SIZE);
  CHECK(clSetKernelArg(k, 0, 0, nullptr) == CL_INVALID_ARG_VALUE);
  CHECK(clSetKernelArg(k, 0, 12, value) == CL_SUCCESS);
}
