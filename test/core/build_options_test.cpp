// Vendors compile exactly the build options the application gave: what
// Parasol needs to know of a program's kernels (which arguments are buffers)
// comes from its own front end, and clGetKernelArgInfo answers from there as
// the vendor itself would. Invalid options are refused once, the same way for
// every device, before any vendor compiles.
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "fault_control.h"
#include "fault_device.h"
#include "support/parasol_test.h"

using namespace parasol_test;
using fault_test::FaultScope;
using fault_test::fault_device;

namespace {

// Every kind of kernel argument.
const char* kEveryArgument =
    "typedef struct { float x; int n; } pair_t;\n"
    "__kernel void every_kind(__global float* restrict out, __global const int* in,\n"
    "                         __constant float* table, __local float* scratch,\n"
    "                         const int count, float4 v, pair_t p,\n"
    "                         __global volatile uint* flags, sampler_t unused_sampler_free) {}\n";
// The same without a sampler, and using its arguments.
const char* kEveryArgumentNoSampler =
    "typedef struct { float x; int n; } pair_t;\n"
    "__kernel void every_kind(__global float* restrict out, __global const int* in,\n"
    "                         __constant float* table, __local float* scratch,\n"
    "                         const int count, float4 v, pair_t p,\n"
    "                         __global volatile uint* flags) {\n"
    "  out[0] = in[0] + table[0] + count + v.x + p.x;\n"
    "  scratch[0] = 0; flags[0] = 1u;\n"
    "}\n";

// The options file the fault vendor appends each clBuildProgram's options to.
struct OptionsLog {
  std::string path = "/tmp/parasol-build-options-" + std::to_string(getpid());
  OptionsLog() { std::remove(path.c_str()); }
  ~OptionsLog() { std::remove(path.c_str()); }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
};

struct ArgInfo {
  cl_kernel_arg_address_qualifier address = 0;
  cl_kernel_arg_access_qualifier access = 0;
  cl_kernel_arg_type_qualifier type_qualifier = 0;
  std::string type_name, name;
  bool operator==(const ArgInfo&) const = default;
};

std::string arg_string(cl_kernel k, cl_uint i, cl_kernel_arg_info what) {
  size_t size = 0;
  CL_REQUIRE(clGetKernelArgInfo(k, i, what, 0, nullptr, &size));
  std::string s(size, '\0');
  CL_REQUIRE(clGetKernelArgInfo(k, i, what, size, s.data(), nullptr));
  s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
  return s;
}

std::vector<ArgInfo> arg_info(cl_kernel k) {
  cl_uint n = 0;
  CL_REQUIRE(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof n, &n, nullptr));
  std::vector<ArgInfo> out(n);
  for (cl_uint i = 0; i < n; ++i) {
    CL_REQUIRE(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof out[i].address,
                                  &out[i].address, nullptr));
    CL_REQUIRE(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof out[i].access,
                                  &out[i].access, nullptr));
    CL_REQUIRE(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof out[i].type_qualifier,
                                  &out[i].type_qualifier, nullptr));
    out[i].type_name = arg_string(k, i, CL_KERNEL_ARG_TYPE_NAME);
    out[i].name = arg_string(k, i, CL_KERNEL_ARG_NAME);
  }
  return out;
}

// PoCL's own answer: the program built on PoCL directly with -cl-kernel-arg-info.
std::vector<ArgInfo> pocl_arg_info(const char* source, const char* kernel) {
  cl_platform_id p = vendor_platform("Portable Computing Language");
  cl_device_id d;
  CL_REQUIRE(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, nullptr));
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
  CL_REQUIRE(err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &source, nullptr, &err);
  CL_REQUIRE(err);
  CL_REQUIRE(clBuildProgram(prog, 1, &d, "-cl-kernel-arg-info", nullptr, nullptr));
  cl_kernel k = clCreateKernel(prog, kernel, &err);
  CL_REQUIRE(err);
  std::vector<ArgInfo> info = arg_info(k);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseContext(ctx);
  return info;
}

// A program of ctx from source, not built yet.
struct Unbuilt {
  cl_program prog = nullptr;
  Unbuilt(cl_context ctx, const char* source) {
    cl_int err;
    prog = clCreateProgramWithSource(ctx, 1, &source, nullptr, &err);
    CL_REQUIRE(err);
  }
  ~Unbuilt() { clReleaseProgram(prog); }
  operator cl_program() const { return prog; }
};

cl_build_status build_status(cl_program p, cl_device_id d) {
  cl_build_status s = CL_BUILD_NONE;
  CL_REQUIRE(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_STATUS, sizeof s, &s, nullptr));
  return s;
}

}  // namespace

// Parasol judges options and reads arguments with its own compiler; built
// without it (PARASOL_NATIVE_CPU=OFF), the vendors do both.
#if PARASOL_TEST_HAVE_NATIVE
TEST_CASE("vendors compile exactly the application's build options") {
  OptionsLog log;
  FaultScope f("build_options_to " + log.path);
  cl_device_id fd = fault_device();
  Context ctx{{fd}};
  for (const std::string options : {"-DSCALE=2 -cl-mad-enable", ""}) {
    Unbuilt prog{ctx, "__kernel void k(__global float* x) { x[0] = 1.0f; }\n"};
    CL_REQUIRE(clBuildProgram(prog, 0, nullptr, options.c_str(), nullptr, nullptr));
    CHECK(log.lines() == std::vector<std::string>{options});
    std::remove(log.path.c_str());
  }
}

#endif

TEST_CASE("an argument-less kernel builds and runs on every device") {
  const char* source = "__kernel void empty_kernel(void) { }\n";
  for (cl_device_id d : devices()) {
    INFO(device_name(d));
    Context ctx{{d}};
    Queue q{ctx, d};
    Program prog{ctx, source};
    Kernel k{prog, "empty_kernel"};
    cl_uint n = 99;
    CL_REQUIRE(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof n, &n, nullptr));
    CHECK(n == 0);
    const size_t global = 4;
    Event e;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, nullptr, 0, nullptr, &e));
    CHECK(clWaitForEvents(1, &e.e) == CL_SUCCESS);
  }
}

TEST_CASE("clGetKernelArgInfo answers as the vendor does, without -cl-kernel-arg-info") {
  const auto reference = pocl_arg_info(kEveryArgument, "every_kind");
  REQUIRE(reference.size() == 9);
  Context ctx{pocl_devices()};
  Program prog{ctx, kEveryArgument};
  Kernel k{prog, "every_kind"};
  CHECK(arg_info(k) == reference);

  // The native device reads them with the same front end.
  if (!native_devices().empty()) {
    const auto native_reference = pocl_arg_info(kEveryArgumentNoSampler, "every_kind");
    Context native_ctx{native_devices()};
    Program native_prog{native_ctx, kEveryArgumentNoSampler};
    Kernel native_k{native_prog, "every_kind"};
    CHECK(arg_info(native_k) == native_reference);
  }
}

#if PARASOL_TEST_HAVE_NATIVE
TEST_CASE("invalid build options: CL_INVALID_BUILD_OPTIONS on every device, before any vendor") {
  OptionsLog log;
  FaultScope f("build_options_to " + log.path);
  std::vector<std::vector<cl_device_id>> contexts = {{fault_device()}, pocl_devices(),
                                                      oclgrind_devices(), devices()};
  if (!native_devices().empty()) contexts.push_back(native_devices());
  for (const char* options : {"-cl-no-such-option", "-D", "-cl-std=CL9.9", "-I", "nonsense",
                              "-cl-nv-verbose"}) {
    for (const auto& devs : contexts) {
      INFO(options << " on " << devs.size() << " devices, the first " << device_name(devs[0]));
      Context ctx{devs};
      Unbuilt prog{ctx, "__kernel void k(__global float* x) { x[0] = 1.0f; }\n"};
      CHECK(clBuildProgram(prog, 0, nullptr, options, nullptr, nullptr) == CL_INVALID_BUILD_OPTIONS);
      for (cl_device_id d : devs) {
        CHECK(build_status(prog, d) == CL_BUILD_ERROR);
        CHECK(build_log(prog, d).find(options[0] == '-' ? options : "nonsense") !=
              std::string::npos);
      }
    }
  }
  CHECK(log.lines().empty());  // no vendor was asked to compile
}
#endif
