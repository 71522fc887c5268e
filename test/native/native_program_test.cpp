// Programs on the native CPU device: binaries that round-trip through
// clCreateProgramWithBinary, the on-disk kernel cache, Clang's diagnostics in
// the build log, unsupported features that fail the build cleanly, and
// kernels taking images and samplers.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>

#include "native/native_fixture.h"

using namespace parasol_test;
namespace fs = std::filesystem;

namespace {

const char* kIota = R"CLC(
__kernel void iota_scaled(__global int* out, int scale) {
  out[get_global_id(0)] = (int)get_global_id(0) * scale;
}
)CLC";

// A fresh directory under the system's temp directory, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "parasol-native-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Sets (or, given null, unsets) an environment variable for the scope,
// restoring the old value.
struct ScopedEnv {
  std::string name;
  std::string old;
  bool had = false;
  ScopedEnv(const char* n, const char* value) : name(n) {
    if (const char* v = std::getenv(n)) had = true, old = v;
    if (value)
      setenv(n, value, 1);
    else
      unsetenv(n);
  }
  ~ScopedEnv() {
    if (had)
      setenv(name.c_str(), old.c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};

size_t files_under(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) ++n;
  return n;
}

std::vector<int> run_iota(cl_context ctx, cl_device_id dev, cl_program prog, int scale, size_t n) {
  Queue q(ctx, dev);
  Kernel k(prog, "iota_scaled");
  Mem out(ctx, CL_MEM_READ_WRITE, n * sizeof(int));
  set_args(k, out.m, scale);
  launch(q, k, 1, &n, nullptr);
  return read_back<int>(q, out, n);
}

}  // namespace

TEST_CASE("CL_PROGRAM_BINARIES of the native device round-trip through clCreateProgramWithBinary and run") {
  NativeAndPocl f;
  Program prog(f.ctx, kIota);
  cl_uint ndev = 0;
  CL_REQUIRE(clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev, nullptr));
  REQUIRE(ndev == 2);
  std::vector<cl_device_id> devs(ndev);
  CL_REQUIRE(clGetProgramInfo(prog, CL_PROGRAM_DEVICES, ndev * sizeof(cl_device_id), devs.data(), nullptr));
  std::vector<size_t> sizes(ndev);
  CL_REQUIRE(clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, ndev * sizeof(size_t), sizes.data(), nullptr));
  std::vector<std::vector<unsigned char>> bins;
  std::vector<unsigned char*> ptrs;
  for (size_t s : sizes) {
    REQUIRE(s > 0);
    bins.emplace_back(s);
    ptrs.push_back(bins.back().data());
  }
  CL_REQUIRE(clGetProgramInfo(prog, CL_PROGRAM_BINARIES, ptrs.size() * sizeof(unsigned char*),
                              ptrs.data(), nullptr));
  // Both devices' binaries in one program, then each device runs its own.
  std::vector<const unsigned char*> cptrs(ptrs.begin(), ptrs.end());
  std::vector<cl_int> status(ndev, -1);
  cl_int err = CL_SUCCESS;
  cl_program from_bin = clCreateProgramWithBinary(f.ctx, ndev, devs.data(), sizes.data(),
                                                  cptrs.data(), status.data(), &err);
  CL_REQUIRE(err);
  CHECK(status == std::vector<cl_int>(ndev, CL_SUCCESS));
  CL_REQUIRE(clBuildProgram(from_bin, 0, nullptr, nullptr, nullptr, nullptr));
  const size_t n = 1000;
  std::vector<int> expect(n);
  for (size_t i = 0; i < n; ++i) expect[i] = static_cast<int>(i) * -3;
  for (cl_device_id d : devs) {
    INFO(vendor_of(d));
    cl_program_binary_type bt = 0;
    CL_REQUIRE(clGetProgramBuildInfo(from_bin, d, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, nullptr));
    CHECK(bt == CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    CHECK(run_iota(f.ctx, d, from_bin, -3, n) == expect);
  }
  // The native binary alone, in a native-only context.
  size_t native_at = devs[0] == f.native ? 0 : 1;
  Context solo(std::vector<cl_device_id>{f.native});
  const unsigned char* one = bins[native_at].data();
  size_t one_size = sizes[native_at];
  cl_int st = -1;
  cl_program solo_prog = clCreateProgramWithBinary(solo, 1, &f.native, &one_size, &one, &st, &err);
  CL_REQUIRE(err);
  CHECK(st == CL_SUCCESS);
  CL_REQUIRE(clBuildProgram(solo_prog, 0, nullptr, nullptr, nullptr, nullptr));
  CHECK(run_iota(solo, f.native, solo_prog, 5, n)[999] == 4995);
  CL_REQUIRE(clReleaseProgram(solo_prog));
  CL_REQUIRE(clReleaseProgram(from_bin));
  // A damaged binary is refused with its per-binary status, never a crash.
  std::vector<unsigned char> junk(bins[native_at]);
  for (size_t i = 0; i < junk.size(); i += 7) junk[i] ^= 0x5a;
  const unsigned char* jp = junk.data();
  size_t jsize = junk.size();
  st = CL_SUCCESS;
  CHECK(clCreateProgramWithBinary(solo, 1, &f.native, &jsize, &jp, &st, &err) == nullptr);
  CHECK(err == CL_INVALID_BINARY);
  CHECK(st == CL_INVALID_BINARY);
}

TEST_CASE("the second build of the same source for the native device is served from PARASOL_CACHE_DIR") {
  TempDir dir;
  ScopedEnv cache("PARASOL_CACHE_DIR", dir.path.c_str());
  ScopedEnv on("PARASOL_NO_KERNEL_CACHE", nullptr);
  Context ctx(native_devices());
  // A source no other test builds, so the cache starts cold for it.
  std::string source = std::string(kIota) + "// cache test " + dir.path.filename().string() + "\n";
  REQUIRE(files_under(dir.path) == 0);
  auto t0 = std::chrono::steady_clock::now();
  { Program first(ctx, source); }
  double cold = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t after_first = files_under(dir.path);
  CHECK(after_first >= 1);
  t0 = std::chrono::steady_clock::now();
  Program second(ctx, source);
  double cached = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(files_under(dir.path) == after_first);  // nothing new compiled
  std::printf("native build: cold %.1f ms, from the cache %.2f ms\n", cold * 1e3, cached * 1e3);
  CHECK(run_iota(ctx, native_devices()[0], second, 2, 64)[63] == 126);
  // Different options are a different entry.
  { Program other(ctx, source, "-DUNUSED=1"); }
  CHECK(files_under(dir.path) == after_first + 1);
}

TEST_CASE("a build error on the native device is CL_BUILD_PROGRAM_FAILURE with Clang's file:line:col diagnostics") {
  NativeAndPocl f;
  cl_int err = CL_SUCCESS;
  cl_program prog = build_program(f.ctx,
                                  "__kernel void broken(__global int* out) {\n"
                                  "  out[0] = undeclared_thing;\n"
                                  "}\n",
                                  err);
  CHECK(err == CL_BUILD_PROGRAM_FAILURE);
  cl_build_status status = CL_BUILD_NONE;
  CL_REQUIRE(clGetProgramBuildInfo(prog, f.native, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, nullptr));
  CHECK(status == CL_BUILD_ERROR);
  std::string log = build_log(prog, f.native);
  INFO("native build log:\n" << log);
  CHECK(std::regex_search(log, std::regex(R"(:2:\d+: error: .*undeclared_thing)")));
  // No kernel of a program built nowhere.
  cl_kernel k = clCreateKernel(prog, "broken", &err);
  CHECK(k == nullptr);
  CHECK(err == CL_INVALID_PROGRAM_EXECUTABLE);
  CL_REQUIRE(clReleaseProgram(prog));
}

TEST_CASE("printf vector formats without an element size and pipes fail the native build with a log line, never a crash") {
  Context ctx(native_devices());
  cl_device_id native = native_devices()[0];
  for (const char* source : {
           "__kernel void pv(__global float* o) { printf(\"%v4f\\n\", (float4)(o[0])); }\n",
           "__kernel void pipe_k(__global int* out) { out[0] = 1; }\n"
           "__kernel void with_pipe(read_only pipe int p, __global int* out) { out[0] = 2; }\n"}) {
    INFO(source);
    cl_int err = CL_SUCCESS;
    cl_program prog = build_program(ctx, source, err);
    CHECK(err == CL_BUILD_PROGRAM_FAILURE);
    std::string log = build_log(prog, native);
    INFO("log: " << log);
    CHECK(!log.empty());
    cl_build_status status = CL_BUILD_NONE;
    CL_REQUIRE(clGetProgramBuildInfo(prog, native, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, nullptr));
    CHECK(status == CL_BUILD_ERROR);
    CL_REQUIRE(clReleaseProgram(prog));
  }
}

TEST_CASE("kernels taking images and samplers build for the native device, their arguments described") {
  Context ctx(native_devices());
  Program prog(ctx, "__kernel void img(__read_only image2d_t im, sampler_t s, write_only image3d_t o,\n"
                    "                  __global float4* out) {\n"
                    "  out[0] = read_imagef(im, s, (float2)(0.5f)); }\n");
  Kernel k(prog, "img");
  const struct {
    const char* type;
    cl_kernel_arg_access_qualifier access;
    cl_kernel_arg_address_qualifier address;
  } want[] = {{"image2d_t", CL_KERNEL_ARG_ACCESS_READ_ONLY, CL_KERNEL_ARG_ADDRESS_GLOBAL},
              {"sampler_t", CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_ADDRESS_PRIVATE},
              {"image3d_t", CL_KERNEL_ARG_ACCESS_WRITE_ONLY, CL_KERNEL_ARG_ADDRESS_GLOBAL}};
  for (cl_uint i = 0; i < 3; ++i) {
    INFO("argument " << i);
    char type[64] = {};
    CL_REQUIRE(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, nullptr));
    CHECK(std::string(type) == want[i].type);
    cl_kernel_arg_access_qualifier access = 0;
    CL_REQUIRE(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access, &access, nullptr));
    CHECK(access == want[i].access);
    cl_kernel_arg_address_qualifier address = 0;
    CL_REQUIRE(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, nullptr));
    CHECK(address == want[i].address);
  }
}

TEST_CASE("kernel and work-group info of a kernel built only for the native device come from its compiler") {
  Context ctx(native_devices());
  cl_device_id native = native_devices()[0];
  Program prog(ctx, "__kernel __attribute__((reqd_work_group_size(8, 1, 1)))\n"
                    "void fixed(__global const float* restrict in, __global float* out, float s,\n"
                    "           __local float* tmp, __constant int* table) {\n"
                    "  __local float mine[32];\n"
                    "  mine[get_local_id(0)] = in[get_global_id(0)];\n"
                    "  out[get_global_id(0)] = mine[get_local_id(0)] * s + table[0];\n}\n");
  Kernel k(prog, "fixed");
  size_t size = 0;
  CL_REQUIRE(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, 0, nullptr, &size));
  std::string attrs(size, '\0');
  CL_REQUIRE(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, size, attrs.data(), nullptr));
  INFO("attributes: " << attrs);
  CHECK(attrs.find("reqd_work_group_size(8,1,1)") != std::string::npos);
  cl_uint nargs = 0;
  CL_REQUIRE(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr));
  CHECK(nargs == 5);
  size_t reqd[3] = {};
  CL_REQUIRE(clGetKernelWorkGroupInfo(k, native, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof reqd, reqd, nullptr));
  CHECK((reqd[0] == 8 && reqd[1] == 1 && reqd[2] == 1));
  cl_ulong local = 0;
  CL_REQUIRE(clGetKernelWorkGroupInfo(k, native, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, nullptr));
  CHECK(local >= 32 * sizeof(float));
  cl_kernel_arg_address_qualifier aq = 0;
  CL_REQUIRE(clGetKernelArgInfo(k, 4, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, nullptr));
  CHECK(aq == CL_KERNEL_ARG_ADDRESS_CONSTANT);
  cl_kernel_arg_type_qualifier tq = 0;
  CL_REQUIRE(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, nullptr));
  CHECK(tq == (CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT));
}

TEST_CASE("build options the native compiler refuses give CL_INVALID_BUILD_OPTIONS, a compile error does not") {
  Context ctx(native_devices());
  cl_device_id native = native_devices()[0];
  for (const char* options : {"-not-an-option", "-cl-std=CL9.9"}) {
    INFO("options " << options);
    cl_int err = CL_SUCCESS;
    cl_program prog = build_program(ctx, kIota, err, options);
    CHECK(err == CL_INVALID_BUILD_OPTIONS);
    CHECK(!build_log(prog, native).empty());
    CL_REQUIRE(clReleaseProgram(prog));
  }
  // Valid options still build: every option of clBuildProgram in OpenCL 1.2 (5.6.4).
  for (const char* options :
       {"-DX=1 -cl-fast-relaxed-math -cl-std=CL1.2", "-D X -I .", "-cl-single-precision-constant",
        "-cl-denorms-are-zero", "-cl-fp32-correctly-rounded-divide-sqrt", "-cl-opt-disable",
        "-cl-mad-enable -cl-no-signed-zeros -cl-unsafe-math-optimizations -cl-finite-math-only",
        "-w", "-Werror", "-cl-std=CL1.1", "-cl-kernel-arg-info"}) {
    INFO("options " << options);
    cl_int err = CL_SUCCESS;
    cl_program prog = build_program(ctx, kIota, err, options);
    CHECK(err == CL_SUCCESS);
    CL_REQUIRE(clReleaseProgram(prog));
  }
}

namespace {

// Every predefined macro of OpenCL C 1.2 (6.10) a kernel can report: each
// int is the macro's value, or -1 where it is undefined.
const char* kMacroReport = R"CLC(#line 7 "macro_report.cl"
__kernel void report(__global int* r, __global char* file) {
#ifdef __OPENCL_VERSION__
  r[0] = __OPENCL_VERSION__;
#else
  r[0] = -1;
#endif
#ifdef __OPENCL_C_VERSION__
  r[1] = __OPENCL_C_VERSION__;
#else
  r[1] = -1;
#endif
#ifdef CL_VERSION_1_0
  r[2] = CL_VERSION_1_0;
#else
  r[2] = -1;
#endif
#ifdef CL_VERSION_1_1
  r[3] = CL_VERSION_1_1;
#else
  r[3] = -1;
#endif
#ifdef CL_VERSION_1_2
  r[4] = CL_VERSION_1_2;
#else
  r[4] = -1;
#endif
#ifdef __ENDIAN_LITTLE__
  r[5] = __ENDIAN_LITTLE__;
#else
  r[5] = -1;
#endif
#ifdef __IMAGE_SUPPORT__
  r[6] = __IMAGE_SUPPORT__;
#else
  r[6] = -1;
#endif
#ifdef __FAST_RELAXED_MATH__
  r[7] = __FAST_RELAXED_MATH__;
#else
  r[7] = -1;
#endif
#ifdef __kernel_exec
  r[8] = 1;
#else
  r[8] = -1;
#endif
  r[9] = __LINE__;
  __constant char* f = __FILE__;
  int i = 0;
  for (; f[i] && i < 63; ++i) file[i] = f[i];
  file[i] = 0;
}
)CLC";

// major * 100 + minor * 10 of "<prefix>major.minor ...".
int version_of(const std::string& text, const std::string& prefix) {
  std::smatch m;
  REQUIRE(std::regex_search(text, m, std::regex("^" + prefix + "(\\d+)\\.(\\d+)")));
  return std::stoi(m[1]) * 100 + std::stoi(m[2]) * 10;
}

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t size = 0;
  CL_REQUIRE(clGetDeviceInfo(d, what, 0, nullptr, &size));
  std::string s(size, '\0');
  CL_REQUIRE(clGetDeviceInfo(d, what, size, s.data(), nullptr));
  return s.c_str();
}

}  // namespace

TEST_CASE("the predefined macros of a native kernel agree with what the native device reports") {
  Context ctx(native_devices());
  cl_device_id native = native_devices()[0];
  Queue q(ctx, native);
  const int device_version = version_of(device_string(native, CL_DEVICE_VERSION), "OpenCL ");
  const int c_version = version_of(device_string(native, CL_DEVICE_OPENCL_C_VERSION), "OpenCL C ");
  cl_bool little = CL_FALSE, images = CL_TRUE;
  CL_REQUIRE(clGetDeviceInfo(native, CL_DEVICE_ENDIAN_LITTLE, sizeof little, &little, nullptr));
  CL_REQUIRE(clGetDeviceInfo(native, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr));
  // The line after "#line 7" is line 7.
  const std::string src = kMacroReport;
  const int line = 6 + static_cast<int>(std::count(src.begin(), src.begin() + src.find("r[9]"), '\n'));
  struct Build {
    const char* options;
    int c_version;     // __OPENCL_C_VERSION__: -cl-std's, else the device's
    int relaxed_math;  // __FAST_RELAXED_MATH__: 1 under -cl-fast-relaxed-math, else undefined
  };
  for (const Build& b : {Build{"", c_version, -1}, Build{"-cl-fast-relaxed-math", c_version, 1},
                         Build{"-cl-std=CL1.1", 110, -1}, Build{"-cl-std=CL1.2", 120, -1}}) {
    INFO("options '" << b.options << "'");
    Program prog(ctx, kMacroReport, b.options);
    Kernel k(prog, "report");
    Mem r(ctx, CL_MEM_READ_WRITE, 10 * sizeof(int)), file(ctx, CL_MEM_READ_WRITE, 64);
    set_args(k, r.m, file.m);
    size_t one = 1;
    launch(q, k, 1, &one, nullptr);
    const std::vector<int> got = read_back<int>(q, r, 10);
    const std::vector<int> want = {device_version, b.c_version, 100, 110, 120, little ? 1 : -1,
                                   images ? 1 : -1, b.relaxed_math, 1, line};
    CHECK(got == want);
    CHECK(std::string(read_back<char>(q, file, 64).data()) == "macro_report.cl");
  }
}

namespace {

// The attributes of a CL_KERNEL_ATTRIBUTES string, each with its spaces
// removed (the spec returns them as declared, space delimited; spacing
// inside the parentheses is the implementation's).
std::multiset<std::string> attribute_set(const std::string& s) {
  std::multiset<std::string> out;
  const std::regex one(R"(\w+\s*\([^)]*\))");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), one); it != std::sregex_iterator(); ++it) {
    std::string a = it->str();
    a.erase(std::remove_if(a.begin(), a.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
            a.end());
    out.insert(a);
  }
  return out;
}

std::string kernel_attributes(cl_kernel k) {
  size_t size = 0;
  CL_REQUIRE(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, 0, nullptr, &size));
  std::string s(size, '\0');
  CL_REQUIRE(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, size, s.data(), nullptr));
  return s.c_str();
}

}  // namespace

TEST_CASE("CL_KERNEL_ATTRIBUTES of a native kernel lists vec_type_hint, reqd_work_group_size and work_group_size_hint as declared, as PoCL does") {
  NativeAndPocl f;
  // Each kernel's attributes, in declaration order.
  const std::vector<std::vector<std::string>> kernels = {
      {"vec_type_hint(float4)"},
      {"vec_type_hint(uchar2)"},
      {"vec_type_hint(char16)"},
      {"vec_type_hint(ushort3)"},
      {"vec_type_hint(short8)"},
      {"vec_type_hint(uint)"},
      {"vec_type_hint(int8)"},
      {"vec_type_hint(ulong16)"},
      {"vec_type_hint(long2)"},
      {"vec_type_hint(double4)"},
      {"work_group_size_hint(8,4,1)"},
      {"reqd_work_group_size(16,2,1)"},
      {"vec_type_hint(float2)", "reqd_work_group_size(4,1,1)"},
      {"work_group_size_hint(2,2,2)", "vec_type_hint(uint8)"},
      {"reqd_work_group_size(1,1,1)", "work_group_size_hint(1,1,1)"},
      {"vec_type_hint(ulong4)", "work_group_size_hint(32,1,1)", "reqd_work_group_size(8,8,1)"},
      {"work_group_size_hint(1,2,3)", "reqd_work_group_size(3,2,1)", "vec_type_hint(double16)"},
  };
  std::string src = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  for (size_t i = 0; i < kernels.size(); ++i) {
    for (const auto& a : kernels[i]) src += "__attribute__((" + a + "))\n";
    src += "__kernel void k" + std::to_string(i) + "(__global int* out) { out[0] = 1; }\n";
  }
  // Each device's answer, from a context of that device alone.
  auto attributes_on = [&](cl_device_id d) {
    Context one(std::vector<cl_device_id>{d});
    Program single(one, src);
    std::vector<std::string> out;
    for (size_t i = 0; i < kernels.size(); ++i) {
      Kernel k(single, ("k" + std::to_string(i)).c_str());
      out.push_back(kernel_attributes(k));
    }
    return out;
  };
  const auto native = attributes_on(f.native), pocl = attributes_on(f.pocl);
  for (size_t i = 0; i < kernels.size(); ++i) {
    INFO("kernel k" << i << ": native \"" << native[i] << "\", PoCL \"" << pocl[i] << "\"");
    // The spec's form on the native device: exactly the declared attributes,
    // space delimited, nothing else.
    CHECK(attribute_set(native[i]) == std::multiset<std::string>(kernels[i].begin(), kernels[i].end()));
    const std::string rest = std::regex_replace(native[i], std::regex(R"(\w+\s*\([^)]*\))"), "");
    CHECK(rest.find_first_not_of(' ') == std::string::npos);
    // PoCL spells them its own way ("__attribute__ ((vec_type_hint (float4)))"),
    // and drops a scalar vec_type_hint: where it reports them, the same
    // attributes appear in both answers with spaces removed.
    std::string bare = pocl[i];
    bare.erase(std::remove(bare.begin(), bare.end(), ' '), bare.end());
    if (bare.empty()) continue;
    for (const auto& a : kernels[i]) CHECK(bare.find(a) != std::string::npos);
  }
}

namespace {

// Builds prog for the whole context with `options` (REQUIREd to succeed)
// and runs its one-work-item kernel "value" on each device: the int it
// writes, native first.
std::vector<int> build_and_run(NativeAndPocl& f, cl_program prog, const std::string& options) {
  cl_int err = clBuildProgram(prog, 0, nullptr, options.c_str(), nullptr, nullptr);
  INFO("options '" << options << "': native log " << build_log(prog, f.native) << ", PoCL log "
                   << build_log(prog, f.pocl));
  CL_REQUIRE(err);
  std::vector<int> out;
  for (auto [name, q] : f.queues()) {
    Kernel k(prog, "value");
    Mem m(f.ctx, CL_MEM_READ_WRITE, sizeof(int));
    set_args(k, m.m);
    size_t one = 1;
    launch(q, k, 1, &one, nullptr);
    out.push_back(read_back<int>(q, m, 1)[0]);
  }
  return out;
}

}  // namespace

TEST_CASE("rebuilding one program object with other -D or -I options rebuilds it on the native device, as on PoCL") {
  NativeAndPocl f;
  TempDir first, second;
  auto header = [](const fs::path& dir, int value) {
    std::FILE* h = std::fopen((dir / "included.h").c_str(), "w");
    REQUIRE(h);
    std::fprintf(h, "#define HEADER_VALUE %d\n", value);
    std::fclose(h);
  };
  header(first.path, 12);
  header(second.path, 42);
  const std::string tag = fresh_source_tag();  // a source no earlier run cached
  cl_int err = CL_SUCCESS;
  auto source = [&](const std::string& body) {
    std::string text = tag + body;
    const char* p = text.c_str();
    cl_program prog = clCreateProgramWithSource(f.ctx, 1, &p, nullptr, &err);
    CL_REQUIRE(err);
    return prog;
  };
  using Both = std::vector<int>;
  SECTION("-D with another value") {
    cl_program prog = source("__kernel void value(__global int* out) { out[0] = TEST_MACRO; }\n");
    CHECK(build_and_run(f, prog, "-DTEST_MACRO=1") == Both{1, 1});
    CHECK(build_and_run(f, prog, "-DTEST_MACRO=5") == Both{5, 5});
    CL_REQUIRE(clReleaseProgram(prog));
  }
  SECTION("-D added") {
    cl_program prog = source(
        "__kernel void value(__global int* out) {\n#ifdef TEST_MACRO\n out[0] = 42;\n#else\n out[0] = 24;\n#endif\n}\n");
    CHECK(build_and_run(f, prog, "") == Both{24, 24});
    CHECK(build_and_run(f, prog, "-DTEST_MACRO") == Both{42, 42});
    CL_REQUIRE(clReleaseProgram(prog));
  }
  SECTION("-I of another directory") {
    cl_program prog = source(
        "#include \"included.h\"\n__kernel void value(__global int* out) { out[0] = HEADER_VALUE; }\n");
    CHECK(build_and_run(f, prog, "-I " + first.path.string()) == Both{12, 12});
    CHECK(build_and_run(f, prog, "-I " + second.path.string()) == Both{42, 42});
    // The same directory, its header edited.
    header(second.path, 43);
    CHECK(build_and_run(f, prog, "-I " + second.path.string()) == Both{43, 43});
    CL_REQUIRE(clReleaseProgram(prog));
  }
  SECTION("-cl-denorms-are-zero, then none") {
    // The option is a hint: a subnormal sum may flush to zero under it, but
    // never once it is gone.
    cl_program prog = source(
        "__kernel void value(__global int* out) { volatile float x = 0x1p-149f; out[0] = as_int(x + x); }\n");
    for (int v : build_and_run(f, prog, "-cl-denorms-are-zero")) CHECK((v == 0 || v == 2));
    CHECK(build_and_run(f, prog, "") == Both{2, 2});
    CL_REQUIRE(clReleaseProgram(prog));
  }
}
