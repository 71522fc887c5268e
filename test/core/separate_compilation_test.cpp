// Separate compilation: clCompileProgram (with input headers) and
// clLinkProgram (executables and libraries) on every device, alone and all
// at once; binaries of each kind; the spec's errors for misuse. Results are
// checked against a CPU reference.
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

// helper() is declared in a header, defined in another program, used by a kernel.
const char* kHeader = "float helper(float x);\n";
const char* kUser =
    "#include \"lib/helper.h\"\n"
    "__kernel void apply(__global float* x) {\n"
    "  size_t i = get_global_id(0);\n"
    "  x[i] = helper(x[i]) + SHIFT;\n"
    "}\n";
const char* kHelper = "float helper(float x) { return 2.0f * x + 1.0f; }\n";
constexpr float kShift = 3.0f;
constexpr size_t kN = 256;

float reference(float x) { return 2.0f * x + 1.0f + kShift; }

cl_program source_program(cl_context ctx, const char* source) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &source, nullptr, &err);
  CL_REQUIRE(err);
  return p;
}

// The user and helper programs, compiled for every device of ctx.
struct Compiled {
  cl_program header, user, helper;
  explicit Compiled(cl_context ctx)
      : header(source_program(ctx, kHeader)), user(source_program(ctx, kUser)),
        helper(source_program(ctx, kHelper)) {
    const char* names[] = {"lib/helper.h"};
    CL_REQUIRE(clCompileProgram(user, 0, nullptr, "-DSHIFT=3.0f", 1, &header, names, nullptr,
                                nullptr));
    CL_REQUIRE(clCompileProgram(helper, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr));
  }
  ~Compiled() {
    clReleaseProgram(header);
    clReleaseProgram(user);
    clReleaseProgram(helper);
  }
};

cl_program_binary_type binary_type(cl_program p, cl_device_id d) {
  cl_program_binary_type t = 0;
  CL_REQUIRE(clGetProgramBuildInfo(p, d, CL_PROGRAM_BINARY_TYPE, sizeof t, &t, nullptr));
  return t;
}

cl_build_status build_status(cl_program p, cl_device_id d) {
  cl_build_status s = CL_BUILD_NONE;
  CL_REQUIRE(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_STATUS, sizeof s, &s, nullptr));
  return s;
}

// Runs `apply` of an executable program on device d: whether every value
// is the CPU's. No test macros: threads call it.
bool runs_correctly(cl_context ctx, cl_program exe, cl_device_id d) {
  cl_int err;
  cl_kernel k = clCreateKernel(exe, "apply", &err);
  if (err != CL_SUCCESS) return false;
  std::vector<float> x(kN), out(kN);
  for (size_t i = 0; i < kN; ++i) x[i] = float(i % 29) - 7.0f;
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, kN * sizeof(float), x.data(), &err);
  cl_command_queue q = clCreateCommandQueue(ctx, d, 0, &err);
  bool ok = err == CL_SUCCESS && clSetKernelArg(k, 0, sizeof buf, &buf) == CL_SUCCESS &&
            clEnqueueNDRangeKernel(q, k, 1, nullptr, &kN, nullptr, 0, nullptr, nullptr) ==
                CL_SUCCESS &&
            clEnqueueReadBuffer(q, buf, CL_TRUE, 0, kN * sizeof(float), out.data(), 0, nullptr,
                                nullptr) == CL_SUCCESS;
  for (size_t i = 0; ok && i < kN; ++i) ok = out[i] == reference(x[i]);
  clReleaseCommandQueue(q);
  clReleaseMemObject(buf);
  clReleaseKernel(k);
  return ok;
}

void check_runs(cl_context ctx, cl_program exe, cl_device_id d) {
  INFO("runs on " << device_name(d));
  CHECK(runs_correctly(ctx, exe, d));
}

std::vector<std::vector<cl_device_id>> contexts() {
  std::vector<std::vector<cl_device_id>> out;
  for (cl_device_id d : pocl_devices()) out.push_back({d});
  for (cl_device_id d : oclgrind_devices()) out.push_back({d});
  for (cl_device_id d : native_devices()) out.push_back({d});
  std::vector<cl_device_id> mixed = {pocl_devices().at(0), oclgrind_devices().at(0)};
  for (cl_device_id d : native_devices()) mixed.push_back(d);
  out.push_back(mixed);
  return out;
}

}  // namespace

TEST_CASE("compile with a header, link into an executable, run on every device") {
  for (const auto& devs : contexts()) {
    Context ctx{devs};
    Compiled c(ctx);
    for (cl_device_id d : devs) {
      CHECK(binary_type(c.user, d) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
      CHECK(build_status(c.user, d) == CL_BUILD_SUCCESS);
    }
    cl_program inputs[] = {c.user, c.helper};
    cl_int err;
    cl_program exe = clLinkProgram(ctx, 0, nullptr, "", 2, inputs, nullptr, nullptr, &err);
    CL_REQUIRE(err);
    for (cl_device_id d : devs) {
      CHECK(binary_type(exe, d) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
      check_runs(ctx, exe, d);
    }
    clReleaseProgram(exe);
  }
}

TEST_CASE("a library of compiled objects links with a program into an executable") {
  for (const auto& devs : contexts()) {
    Context ctx{devs};
    Compiled c(ctx);
    cl_int err;
    cl_program lib = clLinkProgram(ctx, 0, nullptr, "-create-library", 1, &c.helper, nullptr,
                                   nullptr, &err);
    CL_REQUIRE(err);
    for (cl_device_id d : devs) CHECK(binary_type(lib, d) == CL_PROGRAM_BINARY_TYPE_LIBRARY);
    cl_program inputs[] = {c.user, lib};
    cl_program exe = clLinkProgram(ctx, 0, nullptr, "", 2, inputs, nullptr, nullptr, &err);
    CL_REQUIRE(err);
    for (cl_device_id d : devs) check_runs(ctx, exe, d);
    clReleaseProgram(exe);
    clReleaseProgram(lib);
  }
}

TEST_CASE("the binaries of compiled objects and linked executables are programs again") {
  for (const auto& devs : contexts()) {
    if (devs.size() != 1) continue;
    cl_device_id d = devs[0];
    INFO(device_name(d));
    Context ctx{devs};
    Compiled c(ctx);
    auto binary_of = [](cl_program p) {
      size_t size = 0;
      CL_REQUIRE(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr));
      std::vector<unsigned char> bin(size);
      unsigned char* ptr = bin.data();
      CL_REQUIRE(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr));
      return bin;
    };
    auto from_binary = [&](const std::vector<unsigned char>& bin) {
      const unsigned char* ptr = bin.data();
      size_t size = bin.size();
      cl_int status, err;
      cl_program p = clCreateProgramWithBinary(ctx, 1, &d, &size, &ptr, &status, &err);
      CL_REQUIRE(err);
      CL_REQUIRE(status);
      return p;
    };
    // A compiled object's binary links like the object itself.
    cl_program user_again = from_binary(binary_of(c.user));
    CHECK(binary_type(user_again, d) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
    // A compiled object is no executable: clBuildProgram refuses it.
    CHECK(clBuildProgram(user_again, 0, nullptr, nullptr, nullptr, nullptr) == CL_INVALID_BINARY);
    cl_program inputs[] = {user_again, c.helper};
    cl_int err;
    cl_program exe = clLinkProgram(ctx, 0, nullptr, "", 2, inputs, nullptr, nullptr, &err);
    CL_REQUIRE(err);
    // The executable's binary, built, runs (the conformance suite's round trip).
    cl_program exe_again = from_binary(binary_of(exe));
    CL_REQUIRE(clBuildProgram(exe_again, 0, nullptr, nullptr, nullptr, nullptr));
    check_runs(ctx, exe_again, d);
    clReleaseProgram(exe_again);
    clReleaseProgram(exe);
    clReleaseProgram(user_again);
  }
}

TEST_CASE("separate compilation refuses misuse with the spec's errors") {
  std::vector<cl_device_id> devs = {pocl_devices().at(0), oclgrind_devices().at(0)};
  for (cl_device_id d : native_devices()) devs.push_back(d);
  Context ctx{devs};
  cl_program user = source_program(ctx, kUser);
  cl_program header = source_program(ctx, kHeader);
  const char* names[] = {"lib/helper.h"};
  CHECK(clCompileProgram(user, 0, nullptr, "-cl-no-such-option", 1, &header, names, nullptr,
                         nullptr) == CL_INVALID_COMPILER_OPTIONS);
  CHECK(clCompileProgram(user, 0, nullptr, "", 1, nullptr, names, nullptr, nullptr) ==
        CL_INVALID_VALUE);
  CHECK(clCompileProgram(user, 0, nullptr, "", 0, &header, nullptr, nullptr, nullptr) ==
        CL_INVALID_VALUE);
  CHECK(clCompileProgram(nullptr, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr) ==
        CL_INVALID_PROGRAM);
  // Without its header the include fails on every device.
  CHECK(clCompileProgram(user, 0, nullptr, "-DSHIFT=1.0f", 0, nullptr, nullptr, nullptr,
                         nullptr) == CL_COMPILE_PROGRAM_FAILURE);
  for (cl_device_id d : devs) {
    CHECK(build_status(user, d) == CL_BUILD_ERROR);
    CHECK(!build_log(user, d).empty());
  }
  CL_REQUIRE(clCompileProgram(user, 0, nullptr, "-DSHIFT=1.0f", 1, &header, names, nullptr,
                              nullptr));
  cl_int err = CL_SUCCESS;
  CHECK(clLinkProgram(ctx, 0, nullptr, "-cl-no-such-option", 1, &user, nullptr, nullptr, &err) ==
        nullptr);
  CHECK(err == CL_INVALID_LINKER_OPTIONS);
  CHECK(clLinkProgram(ctx, 0, nullptr, "-enable-link-options", 1, &user, nullptr, nullptr, &err) ==
        nullptr);
  CHECK(err == CL_INVALID_LINKER_OPTIONS);
  CHECK(clLinkProgram(ctx, 0, nullptr, "", 0, nullptr, nullptr, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_VALUE);
  // helper() is defined nowhere: the link fails, the program tells why.
  cl_program unresolved = clLinkProgram(ctx, 0, nullptr, "", 1, &user, nullptr, nullptr, &err);
  CHECK(err == CL_LINK_PROGRAM_FAILURE);
  REQUIRE(unresolved != nullptr);
  // PoCL and the native device resolve calls when they link (Oclgrind,
  // when a kernel runs: its link succeeds, as it does on Oclgrind directly).
  for (cl_device_id d : devs) {
    if (vendor_of(d).rfind("Oclgrind", 0) == 0) continue;
    INFO(device_name(d));
    CHECK(build_status(unresolved, d) == CL_BUILD_ERROR);
    CHECK(!build_log(unresolved, d).empty());
  }
  // A linked program is built already: clBuildProgram refuses it.
  CHECK(clBuildProgram(unresolved, 0, nullptr, nullptr, nullptr, nullptr) == CL_INVALID_OPERATION);
  clReleaseProgram(unresolved);
  // A program compiled for some devices only, linked for all of them.
  cl_program partial = source_program(ctx, kHelper);
  CL_REQUIRE(clCompileProgram(partial, 1, &devs[0], "", 0, nullptr, nullptr, nullptr, nullptr));
  cl_program inputs[] = {user, partial};
  CHECK(clLinkProgram(ctx, 0, nullptr, "", 2, inputs, nullptr, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_OPERATION);
  clReleaseProgram(partial);
  clReleaseProgram(user);
  clReleaseProgram(header);
}

TEST_CASE("compiles, links and binary builds on several threads while the compiler is unloaded") {
  // As the conformance suite's unload_build_threaded: every thread's
  // programs run correctly, nothing aborts.
  std::vector<cl_device_id> devs = {pocl_devices().at(0)};
  for (cl_device_id d : native_devices()) devs.push_back(d);
  for (cl_device_id d : devs) {
    INFO(device_name(d));
    Context ctx{{d}};
    std::atomic<bool> stop{false};
    std::atomic<int> failures{0}, rounds{0};
    std::thread unloader([&] {
      while (!stop) clUnloadPlatformCompiler(parasol_platform());
    });
    auto builder = [&] {
      for (int i = 0; i < 4; ++i) {
        cl_int err;
        cl_program header = clCreateProgramWithSource(ctx, 1, &kHeader, nullptr, &err);
        cl_program user = clCreateProgramWithSource(ctx, 1, &kUser, nullptr, &err);
        cl_program helper = clCreateProgramWithSource(ctx, 1, &kHelper, nullptr, &err);
        const char* names[] = {"lib/helper.h"};
        cl_program inputs[] = {user, helper};
        cl_program exe = nullptr;
        if (clCompileProgram(user, 0, nullptr, "-DSHIFT=3.0f", 1, &header, names, nullptr,
                             nullptr) == CL_SUCCESS &&
            clCompileProgram(helper, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr) ==
                CL_SUCCESS)
          exe = clLinkProgram(ctx, 0, nullptr, "", 2, inputs, nullptr, nullptr, &err);
        if (exe && err == CL_SUCCESS && runs_correctly(ctx, exe, d)) ++rounds;
        else ++failures;
        if (exe) clReleaseProgram(exe);
        clReleaseProgram(header);
        clReleaseProgram(user);
        clReleaseProgram(helper);
      }
    };
    std::thread a(builder), b(builder);
    a.join();
    b.join();
    stop = true;
    unloader.join();
    CHECK(failures == 0);
    CHECK(rounds == 8);
  }
}
