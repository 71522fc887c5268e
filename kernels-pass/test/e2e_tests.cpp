// End-to-end kernels, each checked against a CPU reference.
#include "executor.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <random>

using namespace test;

TEST_CASE("vector add", "[e2e]") {
  auto p = build_ok(R"(
    __kernel void vadd(__global const float* a, __global const float* b, __global float* c) {
      size_t i = get_global_id(0);
      c[i] = a[i] + b[i];
    })");
  const size_t n = 4096;
  std::vector<float> a(n), b(n), c(n, -1);
  for (size_t i = 0; i < n; ++i) a[i] = i * 0.5f, b[i] = 1000.0f - i;
  Args args;
  args.ptr(a.data()).ptr(b.data()).ptr(c.data());
  run(*p, "vadd", args, range(1, {n}, {64}), 4);
  for (size_t i = 0; i < n; ++i) REQUIRE(c[i] == a[i] + b[i]);
  REQUIRE(p->kernels().size() == 1);
  auto& k = p->kernels()[0];
  CHECK(k.args.size() == 3);
  CHECK(k.args[0].name == "a");
  CHECK(k.args[0].type_name == "float*");
  CHECK(k.args[0].kind == parasol::kernels::ArgKind::GlobalPointer);
  CHECK(k.args[0].type_qualifier == CL_KERNEL_ARG_TYPE_CONST);
}
