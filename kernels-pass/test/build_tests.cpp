// Build behaviour: diagnostics, binaries, the cache, and timings (printed,
// never asserted).
#include "executor.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <time.h>
#include <unistd.h>

using namespace test;
using parasol::kernels::build;
using parasol::kernels::load_binary;
using Clock = std::chrono::steady_clock;

namespace {
double cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

const char* kThreeKernels = R"(
  __kernel void scale(__global float* a, float s) { a[get_global_id(0)] *= s; }
  __kernel void saxpy(__global const float* x, __global float* y, float a) {
    size_t i = get_global_id(0);
    y[i] = mad(a, x[i], y[i]);
  }
  __kernel void sum(__global const float* in, __global float* out, __local float* tmp) {
    size_t l = get_local_id(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
      if (l < s) tmp[l] += tmp[l + s];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) out[get_group_id(0)] = tmp[0];
  })";
}  // namespace

TEST_CASE("syntax error: no program, Clang's diagnostic in the log", "[build]") {
  auto r = build("__kernel void k(__global int* a) { a[0] = 1 }", "");
  REQUIRE(r.program == nullptr);
  INFO(r.log);
  REQUIRE(r.log.find("error:") != std::string::npos);
  REQUIRE(r.log.find("input.cl:1:") != std::string::npos);
}

TEST_CASE("undeclared function", "[build]") {
  auto r = build("__kernel void k(__global int* a) { a[0] = no_such_function(3); }", "");
  REQUIRE(r.program == nullptr);
  INFO(r.log);
  REQUIRE(r.log.find("no_such_function") != std::string::npos);
  REQUIRE(r.log.find("error:") != std::string::npos);
}

TEST_CASE("declared but undefined function", "[build]") {
  auto r = build("int helper(int); __kernel void k(__global int* a) { a[0] = helper(3); }", "");
  REQUIRE(r.program == nullptr);
  INFO(r.log);
  REQUIRE(r.log.find("undefined function 'helper'") != std::string::npos);
}

namespace {
// A kernel per image type and access qualifier calling every image
// function OpenCL C offers it (read_write: OpenCL C 2.0 and later).
std::string every_image_function(bool read_write) {
  struct Type {
    const char *name, *fc, *ic;
    bool sampled, height, depth, array;  // height: get_image_height and get_image_dim
  };
  const Type types[] = {
      {"image1d_t", "float", "int", true, false, false, false},
      {"image1d_buffer_t", nullptr, "int", false, false, false, false},
      {"image1d_array_t", "float2", "int2", true, false, false, true},
      {"image2d_t", "float2", "int2", true, true, false, false},
      {"image2d_array_t", "float4", "int4", true, true, false, true},
      {"image3d_t", "float4", "int4", true, true, true, false},
  };
  std::string src = "#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable\n"
                    "#ifndef cl_khr_3d_image_writes\n"
                    "#error no 3D image writes\n"
                    "#endif\n";
  int n = 0;
  for (const Type& t : types)
    for (std::string access : {"read_only", "write_only", "read_write"}) {
      if (access == "read_write" && !read_write) continue;
      std::string ic = std::string("(") + t.ic + ")(0)";
      src += "__kernel void k" + std::to_string(n++) + "(" + access + " " + t.name +
             " im, sampler_t s, __global float4* f, __global int4* i, __global uint4* u, "
             "__global long* q) {\n  q[0] = get_image_width(im) + get_image_channel_order(im) + "
             "get_image_channel_data_type(im);\n";
      if (t.height) src += "  q[1] = get_image_height(im) + get_image_dim(im).x;\n";
      if (t.depth) src += "  q[2] = get_image_depth(im);\n";
      if (t.array) src += "  q[3] = get_image_array_size(im);\n";
      if (access == "read_only" && t.sampled) {
        std::string fc = std::string("(") + t.fc + ")(0.5f)";
        for (auto [suffix, out] : {std::pair{"f", "f"}, std::pair{"i", "i"}, std::pair{"ui", "u"}})
          src += std::string("  ") + out + "[0] = read_image" + suffix + "(im, s, " + fc + ") + read_image" +
                 suffix + "(im, s, " + ic + ");\n";
      }
      if (access != "write_only")
        src += "  f[1] = read_imagef(im, " + ic + "); i[1] = read_imagei(im, " + ic +
               "); u[1] = read_imageui(im, " + ic + ");\n";
      if (access != "read_only")
        src += "  write_imagef(im, " + ic + ", f[2]); write_imagei(im, " + ic + ", i[2]); write_imageui(im, " +
               ic + ", u[2]);\n";
      src += "}\n";
    }
  return src;
}
}  // namespace

TEST_CASE("every image function links, in OpenCL C 1.2, 2.0 (read_write images) and 3.0", "[build][image]") {
  for (auto [options, read_write] : {std::pair{"", false}, std::pair{"-cl-std=CL2.0", true},
                                     std::pair{"-cl-std=CL3.0", true}}) {
    INFO(options);
    auto r = build(every_image_function(read_write), options);
    INFO(r.log);
    CHECK(r.program != nullptr);
  }
}

TEST_CASE("printf vector conversions without their element size or with '*': no program, a log line",
          "[build]") {
  for (const char* format : {"%v4f", "%*v4hlf", "%v4hhf"}) {
    INFO(format);
    auto r = build(std::string("__kernel void k(__global float* x) {\n  printf(\"") + format +
                       "\\n\", (float4)(x[0])); }",
                   "");
    REQUIRE(r.program == nullptr);
    INFO(r.log);
    CHECK(r.log.find(format) != std::string::npos);
  }
  auto ok = build("__kernel void k(__global float* x) { printf(\"%d%%v %5.2f %s\\n\", 1, x[0], \"v\"); }", "");
  INFO(ok.log);
  CHECK(ok.program != nullptr);
}

TEST_CASE("refused build options are told apart from a failed compile", "[build]") {
  auto r = build("__kernel void k(__global int* a) { a[0] = 1; }", "-definitely-not-an-option");
  REQUIRE(r.program == nullptr);
  INFO(r.log);
  CHECK(r.invalid_options);
  CHECK(r.log.find("-definitely-not-an-option") != std::string::npos);
  auto bad_source = build("__kernel void k(__global int* a) { a[0] = 1 }", "-DX=2");
  REQUIRE(bad_source.program == nullptr);
  CHECK_FALSE(bad_source.invalid_options);
}

TEST_CASE("build options", "[build]") {
  auto bad = build("__kernel void k() {}", "-cl-no-such-option");
  REQUIRE(bad.program == nullptr);
  REQUIRE(bad.log.find("invalid build option") != std::string::npos);

  auto p = build_ok("__kernel void k(__global int* a) { a[0] = VALUE * 2; }", "-D VALUE=21 -cl-fast-relaxed-math -cl-mad-enable");
  int a = 0;
  Args args;
  args.ptr(&a);
  run(*p, "k", args, range(1, {1}, {1}));
  REQUIRE(a == 42);

  auto werror = build("__kernel void k(__global int* a) { int unused; a[0] = 1; }", "-Werror -Wunused-variable");
  INFO(werror.log);
  REQUIRE(werror.program == nullptr);
  auto cl2 = build_ok("__kernel void k(__global int* a) { __generic int* g = a; g[0] = __OPENCL_C_VERSION__; }", "-cl-std=CL2.0");
  run(*cl2, "k", args, range(1, {1}, {1}));
  REQUIRE(a == 200);
  auto noopt = build_ok("__kernel void k(__global int* a) { a[get_global_id(0)] += 1; }", "-cl-opt-disable");
  run(*noopt, "k", args, range(1, {1}, {1}));
  REQUIRE(a == 201);
}

TEST_CASE("every clBuildProgram option of OpenCL 1.2 builds; an unknown one is refused", "[build]") {
  // OpenCL 1.2, 5.6.4, each alone and all together (-cl-opt-disable apart:
  // it excludes the optimisation options only by meaning, not by syntax).
  const std::vector<std::string> options = {
      "-D NAME", "-DNAME=2", "-I .", "-I.", "-cl-single-precision-constant", "-cl-denorms-are-zero",
      "-cl-fp32-correctly-rounded-divide-sqrt", "-cl-opt-disable", "-cl-mad-enable", "-cl-no-signed-zeros",
      "-cl-unsafe-math-optimizations", "-cl-finite-math-only", "-cl-fast-relaxed-math", "-w", "-Werror",
      "-cl-std=CL1.1", "-cl-std=CL1.2", "-cl-kernel-arg-info"};
  const char* src = "__kernel void k(__global float* a) { a[0] = a[0] * 0.5f + 1.0f; }";
  std::string all;
  for (const auto& o : options) {
    INFO("option '" << o << "'");
    auto r = build(src, o);
    INFO(r.log);
    CHECK(r.program != nullptr);
    CHECK_FALSE(r.invalid_options);
    if (o != "-cl-opt-disable" && o.rfind("-cl-std", 0) != 0) all += o + " ";
  }
  INFO("options '" << all << "'");
  auto together = build(src, all + "-cl-std=CL1.2");
  INFO(together.log);
  CHECK(together.program != nullptr);
  for (const char* bad : {"-cl-denorms-are-one", "-D", "-I", "-cl-std=CL1.3", "--unknown"}) {
    INFO("option '" << bad << "'");
    auto r = build(src, bad);
    CHECK(r.program == nullptr);
    CHECK(r.invalid_options);
  }
}

TEST_CASE("an edited header gives a fresh binary, not the cached one", "[build]") {
  // The cache is keyed on the preprocessed source: a header's contents are
  // part of the key whether it is found through -I or relative to the
  // working directory.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("parasol-kp-include-" + std::to_string(getpid()));
  fs::create_directories(dir);
  auto write_header = [&](int value) {
    std::FILE* f = std::fopen((dir / "value.h").c_str(), "w");
    REQUIRE(f);
    std::fprintf(f, "#define HEADER_VALUE %d\n", value);
    std::fclose(f);
  };
  auto value_of = [](const std::string& source, const std::string& options) {
    auto p = build_ok(source, options);
    int v = 0;
    Args args;
    args.ptr(&v);
    run(*p, "k", args, range(1, {1}, {1}));
    return v;
  };
  const std::string src = "#include \"value.h\"\n__kernel void k(__global int* a) { a[0] = HEADER_VALUE; }";
  write_header(12);
  CHECK(value_of(src, "-I " + dir.string()) == 12);
  write_header(42);
  CHECK(value_of(src, "-I " + dir.string()) == 42);
  // Found next to the (in-memory) source, that is in the working directory.
  struct InDirectory {
    fs::path was = fs::current_path();
    explicit InDirectory(const fs::path& d) { fs::current_path(d); }
    ~InDirectory() { fs::current_path(was); }
  };
  {
    InDirectory here(dir);
    write_header(7);
    CHECK(value_of(src, "") == 7);
    write_header(8);
    CHECK(value_of(src, "") == 8);
  }
  fs::remove_all(dir);
}

TEST_CASE("a source that reads the clock is not served another second's binary", "[build]") {
  // A source that names no file is keyed on its own text; one that expands
  // __TIME__ still goes through the preprocessor, whose output holds the time.
  const std::string src =
      "__kernel void k(__global int* a) { a[0] = __TIME__[6] * 10 + __TIME__[7]; }";
  auto seconds = [&] {
    auto p = build_ok(src, "");
    int v = 0;
    Args args;
    args.ptr(&v);
    run(*p, "k", args, range(1, {1}, {1}));
    return v;
  };
  const int first = seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  CHECK(seconds() != first);
}

TEST_CASE("binary round trip and the cache", "[build]") {
  const char* src = R"(
    __kernel void sq(__global int* a) { int i = get_global_id(0); a[i] = a[i] * a[i] + get_local_id(0); })";
  auto p = build_ok(src);
  auto bin = p->binary();
  REQUIRE(bin.size() > 64);
  auto t0 = Clock::now();
  auto r = load_binary(bin.data(), bin.size());
  double load_ms = ms_since(t0);
  INFO(r.log);
  REQUIRE(r.program);
  REQUIRE(r.program->kernels().size() == 1);
  REQUIRE(r.program->kernels()[0].args[0].name == "a");
  Buf<int> a1(256), a2(256);
  for (int i = 0; i < 256; ++i) a1[i] = a2[i] = i - 50;
  Args x1, x2;
  x1.ptr(a1.data());
  x2.ptr(a2.data());
  run(*p, "sq", x1, range(1, {256}, {32}));
  run(*r.program, "sq", x2, range(1, {256}, {32}));
  REQUIRE(a1 == a2);
  std::printf("  load_binary: %.3f ms (%zu bytes)\n", load_ms, bin.size());

  // Corrupt and foreign binaries fail with a log line.
  auto bad = bin;
  bad[0] = 'X';
  auto rb = load_binary(bad.data(), bad.size());
  REQUIRE(rb.program == nullptr);
  REQUIRE(!rb.log.empty());
  auto truncated = load_binary(bin.data(), bin.size() / 2);
  REQUIRE(truncated.program == nullptr);

  // Second build of the same source comes from the cache.
  const char* cache_src = "__kernel void c(__global int* a) { a[0] = 7; }";
  std::string dir = parasol::kernels::cache_directory();
  std::filesystem::remove_all(dir + "/kernels");
  t0 = Clock::now();
  auto cold = build(cache_src, "");
  double cold_ms = ms_since(t0);
  REQUIRE(cold.program);
  double best = 1e9;
  for (int i = 0; i < 5; ++i) {
    t0 = Clock::now();
    auto warm = build(cache_src, "");
    best = std::min(best, ms_since(t0));
    REQUIRE(warm.program);
    int v = 0;
    Args av;
    av.ptr(&v);
    run(*warm.program, "c", av, range(1, {1}, {1}));
    REQUIRE(v == 7);
  }
  std::printf("  small program: cold build %.2f ms, cached build %.3f ms (cache %s)\n", cold_ms, best, dir.c_str());
}

TEST_CASE("cold build time of a 3-kernel program", "[build][timing]") {
  setenv("PARASOL_NO_KERNEL_CACHE", "1", 1);
  build_ok(kThreeKernels);  // warm up Clang/LLVM statics
  double best = 1e9, best_cpu = 1e9;
  for (int i = 0; i < 3; ++i) {
    auto t0 = Clock::now();
    double c0 = cpu_ms();
    auto p = build_ok(kThreeKernels);
    best = std::min(best, ms_since(t0));
    best_cpu = std::min(best_cpu, cpu_ms() - c0);
    REQUIRE(p->kernels().size() == 3);
  }
  unsetenv("PARASOL_NO_KERNEL_CACHE");
  std::printf("  3-kernel program: cold build %.1f ms wall, %.1f ms cpu (best of 3)\n", best, best_cpu);
}

TEST_CASE("tiled SGEMM", "[build][timing]") {
  auto p = build_ok(R"(
    #define TS 16
    __kernel void sgemm(int M, int N, int K, __global const float* A, __global const float* B, __global float* C) {
      __local float As[TS][TS], Bs[TS][TS];
      int lr = get_local_id(1), lc = get_local_id(0);
      int row = get_global_id(1), col = get_global_id(0);
      float acc = 0.0f;
      for (int t = 0; t < K / TS; ++t) {
        As[lr][lc] = A[row * K + t * TS + lc];
        Bs[lr][lc] = B[(t * TS + lr) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; ++k) acc += As[lr][k] * Bs[k][lc];
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      C[row * N + col] = acc;
    })");
  const int n = 512;
  Buf<float> A(n * n), B(n * n), C(n * n);
  for (int i = 0; i < n * n; ++i) A[i] = float(i % 7) - 3, B[i] = float(i % 5) - 2;
  Args args;
  args.value(n).value(n).value(n).ptr(A.data()).ptr(B.data()).ptr(C.data());
  auto r = range(2, {size_t(n), size_t(n)}, {16, 16});
  run(*p, "sgemm", args, r);  // warm-up
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  auto t0 = Clock::now();
  run(*p, "sgemm", args, r, threads);
  double ms = ms_since(t0);
  for (int i = 0; i < n; i += 37)
    for (int j = 0; j < n; j += 41) {
      float ref = 0;
      for (int k = 0; k < n; ++k) ref += A[i * n + k] * B[k * n + j];
      REQUIRE(C[i * n + j] == ref);
    }
  std::printf("  SGEMM %dx%d, 16x16 tiles, %u threads: %.1f ms, %.2f GFLOP/s\n", n, n, threads, ms,
              2.0 * n * n * n / (ms * 1e6));
}

TEST_CASE("concurrent builds", "[build]") {
  setenv("PARASOL_NO_KERNEL_CACHE", "1", 1);
  std::vector<std::thread> ts;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([t, &ok] {
      std::string src = "__kernel void k(__global int* a) { a[get_global_id(0)] = " + std::to_string(t) +
                        " + (int)sin((float)get_local_id(0)); }";
      auto r = build(src, "");
      if (!r.program) return;
      Buf<int> a(64);
      Args args;
      args.ptr(a.data());
      run(*r.program, "k", args, range(1, {64}, {16}));
      if (a[0] == t) ++ok;
    });
  for (auto& t : ts) t.join();
  unsetenv("PARASOL_NO_KERNEL_CACHE");
  REQUIRE(ok == 4);
}
