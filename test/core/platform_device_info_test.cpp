// The platform's own answers, device enumeration by type, and every device
// query compared with the vendor's own answer (queried through the loader on
// the vendor's platform) except the overrides Parasol documents.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <cstdlib>

#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t size = 0;
  CL_REQUIRE(clGetPlatformInfo(p, what, 0, nullptr, &size));
  std::string s(size, '\0');
  CL_REQUIRE(clGetPlatformInfo(p, what, size, s.data(), nullptr));
  REQUIRE(!s.empty());
  CHECK(s.back() == '\0');
  return s.c_str();
}

std::vector<unsigned char> device_bytes(cl_device_id d, cl_device_info what, cl_int& err) {
  size_t size = 0;
  err = clGetDeviceInfo(d, what, 0, nullptr, &size);
  if (err != CL_SUCCESS) return {};
  std::vector<unsigned char> v(size);
  if (size) err = clGetDeviceInfo(d, what, size, v.data(), nullptr);
  return v;
}

std::string device_string(cl_device_id d, cl_device_info what) {
  cl_int err = CL_SUCCESS;
  auto v = device_bytes(d, what, err);
  REQUIRE(err == CL_SUCCESS);
  return std::string(reinterpret_cast<const char*>(v.data()));
}

std::set<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::set<std::string> out;
  for (std::string w; in >> w;) out.insert(w);
  return out;
}

// The type the vendor itself reports; Parasol's own native device is a CPU.
cl_device_type vendor_type(cl_device_id d) {
  if (vendor_of(d) == "Parasol") return CL_DEVICE_TYPE_CPU;
  cl_device_type t = 0;
  CL_REQUIRE(clGetDeviceInfo(vendor_device(d), CL_DEVICE_TYPE, sizeof t, &t, nullptr));
  return t;
}

// Every device the other platforms offer directly, plus Parasol's native one.
size_t expected_device_count() {
  cl_uint np = 0;
  clGetPlatformIDs(0, nullptr, &np);
  std::vector<cl_platform_id> ps(np);
  clGetPlatformIDs(np, ps.data(), nullptr);
  size_t total = 0;
  for (auto p : ps) {
    if (p == parasol_platform()) continue;
    cl_uint n = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) == CL_SUCCESS) total += n;
  }
  auto all = devices(CL_DEVICE_TYPE_ALL);
  return total + std::count_if(all.begin(), all.end(),
                               [](cl_device_id d) { return vendor_of(d) == "Parasol"; });
}

}  // namespace

TEST_CASE("the platform answers Parasol's name, an OpenCL 3.0 version and cl_khr_icd") {
  cl_platform_id p = parasol_platform();
  CHECK(platform_string(p, CL_PLATFORM_NAME) == "Parasol");
  CHECK(platform_string(p, CL_PLATFORM_VERSION).rfind("OpenCL 3.0 Parasol ", 0) == 0);
  cl_version numeric = 0;
  CL_REQUIRE(clGetPlatformInfo(p, CL_PLATFORM_NUMERIC_VERSION, sizeof numeric, &numeric, nullptr));
  CHECK(numeric == CL_MAKE_VERSION(3, 0, 0));
  cl_ulong timer = 1;
  CL_REQUIRE(clGetPlatformInfo(p, CL_PLATFORM_HOST_TIMER_RESOLUTION, sizeof timer, &timer, nullptr));
  CHECK(timer == 0);
  // OpenCL 1.2, 4.1: "OpenCL<space><major_version.minor_version><space><platform-specific information>".
  CHECK(std::regex_match(platform_string(p, CL_PLATFORM_VERSION), std::regex(R"(OpenCL \d+\.\d+ .*)")));
  CHECK(platform_string(p, CL_PLATFORM_PROFILE) == "FULL_PROFILE");
  CHECK(!platform_string(p, CL_PLATFORM_VENDOR).empty());
  auto ext = words(platform_string(p, CL_PLATFORM_EXTENSIONS));
  CHECK(ext.count("cl_khr_icd") == 1);
  CHECK(ext.count(CL_PARASOL_EXTENSION_NAME) == 1);
  // Size rules: exact size works, one byte less is CL_INVALID_VALUE.
  size_t size = 0;
  CL_REQUIRE(clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, nullptr, &size));
  CHECK(size == std::strlen("Parasol") + 1);
  char small[7];
  CHECK(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof small, small, nullptr) == CL_INVALID_VALUE);
  CHECK(clGetPlatformInfo(p, 0x7777, 0, nullptr, &size) == CL_INVALID_VALUE);
  // The extension entry point by platform.
  CHECK(clGetExtensionFunctionAddressForPlatform(p, "clNoSuchFunctionPARASOL") == nullptr);
}

TEST_CASE("clGetDeviceIDs filters by type exactly as the vendors' own device types say") {
  cl_platform_id p = parasol_platform();
  auto all = devices(CL_DEVICE_TYPE_ALL);
  REQUIRE(all.size() == expected_device_count());
  CHECK(pocl_devices().size() == 2);
  CHECK(oclgrind_devices().size() == 1);
  for (cl_device_type t : {cl_device_type{CL_DEVICE_TYPE_CPU}, cl_device_type{CL_DEVICE_TYPE_GPU},
                           cl_device_type{CL_DEVICE_TYPE_ACCELERATOR},
                           cl_device_type{CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU},
                           cl_device_type{CL_DEVICE_TYPE_CUSTOM}}) {
    INFO("type 0x" << std::hex << t);
    std::vector<cl_device_id> expect;
    for (auto d : all)
      if (vendor_type(d) & t) expect.push_back(d);
    cl_uint n = 99;
    cl_int err = clGetDeviceIDs(p, t, 0, nullptr, &n);
    if (expect.empty()) {
      CHECK(err == CL_DEVICE_NOT_FOUND);
      continue;
    }
    CL_REQUIRE(err);
    REQUIRE(n == expect.size());
    std::vector<cl_device_id> got(n);
    CL_REQUIRE(clGetDeviceIDs(p, t, n, got.data(), nullptr));
    std::sort(got.begin(), got.end());
    std::sort(expect.begin(), expect.end());
    CHECK(got == expect);
  }
  // DEFAULT: exactly one device, one of the platform's.
  cl_uint n = 0;
  CL_REQUIRE(clGetDeviceIDs(p, CL_DEVICE_TYPE_DEFAULT, 0, nullptr, &n));
  CHECK(n == 1);
  cl_device_id def = nullptr;
  CL_REQUIRE(clGetDeviceIDs(p, CL_DEVICE_TYPE_DEFAULT, 1, &def, nullptr));
  CHECK(std::find(all.begin(), all.end(), def) != all.end());
  // Fewer entries than devices: the first ones, count still total.
  cl_device_id one = nullptr;
  CL_REQUIRE(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &one, &n));
  CHECK(n == all.size());
  CHECK(one == all[0]);
  // Errors.
  CHECK(clGetDeviceIDs(p, cl_device_type{1} << 20, 0, nullptr, &n) == CL_INVALID_DEVICE_TYPE);
  CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, &one, nullptr) == CL_INVALID_VALUE);
  CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, nullptr) == CL_INVALID_VALUE);
}

TEST_CASE("every device query of OpenCL 1.0 to 3.0 answers the vendor's own value except the documented overrides") {
  for (cl_device_id d : devices()) {
    if (vendor_of(d) == "Parasol") continue;  // no vendor behind it: see the next test
    cl_device_id v = vendor_device(d);
    INFO("device " << device_name(d) << " of " << vendor_of(d));
    // The vendor platform behind it is the one the loader lists under that name.
    cl_platform_id vp = nullptr, vp_direct = nullptr;
    CL_REQUIRE(clGetDeviceInfo(d, CL_DEVICE_VENDOR_PLATFORM_PARASOL, sizeof vp, &vp, nullptr));
    CL_REQUIRE(clGetDeviceInfo(v, CL_DEVICE_PLATFORM, sizeof vp_direct, &vp_direct, nullptr));
    CHECK(vp == vp_direct);
    CHECK(vp == vendor_platform(vendor_of(d)));

    // Every core query of OpenCL 1.0 to 3.0 (CL_DEVICE_TYPE to
    // CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED).
    for (cl_device_info q = CL_DEVICE_TYPE; q <= 0x1072; ++q) {
      INFO("param_name 0x" << std::hex << q);
      cl_int perr = CL_SUCCESS, verr = CL_SUCCESS;
      auto mine = device_bytes(d, q, perr);
      auto theirs = device_bytes(v, q, verr);
      switch (q) {
        case CL_DEVICE_PLATFORM: {
          cl_platform_id got = nullptr;
          REQUIRE(mine.size() == sizeof got);
          std::memcpy(&got, mine.data(), sizeof got);
          CHECK(got == parasol_platform());
          break;
        }

        case CL_DEVICE_EXTENSIONS: {
          auto e = words(device_string(d, q)), ve = words(device_string(v, q));
          CHECK(e.count("cl_khr_icd") == 0);
          for (const auto& x : e) CHECK(ve.count(x) == 1);  // filtered, never invented
          for (const char* kept : {"cl_khr_fp64", "cl_khr_global_int32_base_atomics",
                                   "cl_khr_byte_addressable_store"})
            CHECK(e.count(kept) == ve.count(kept));
          break;
        }

        case CL_DEVICE_QUEUE_PROPERTIES: {
          cl_command_queue_properties p = 0;
          CL_REQUIRE(clGetDeviceInfo(d, q, sizeof p, &p, nullptr));
          CHECK(p == (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE));
          break;
        }
        case CL_DEVICE_EXECUTION_CAPABILITIES: {
          // Host functions run on the native device only.
          cl_device_exec_capabilities c = 0;
          CL_REQUIRE(clGetDeviceInfo(d, q, sizeof c, &c, nullptr));
          CHECK(c == CL_EXEC_KERNEL);
          break;
        }
        case CL_DEVICE_BUILT_IN_KERNELS:
        case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION:
          CHECK(perr == verr);
          CHECK(mine == theirs);
          break;
        // Features Parasol does not carry, on a 2.x/3.0 vendor device: none
        // (a 1.2 vendor refuses the query, and so does Parasol).
        case CL_DEVICE_SVM_CAPABILITIES:
        case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
        case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
        case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
        case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
        case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
        case CL_DEVICE_MAX_PIPE_ARGS:
        case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
        case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
        case CL_DEVICE_MAX_NUM_SUB_GROUPS:
        case CL_DEVICE_IMAGE_PITCH_ALIGNMENT:
        case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT:
        case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
        case CL_DEVICE_PIPE_SUPPORT:
        case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT:
        case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
        case CL_DEVICE_IL_VERSION:
        case CL_DEVICE_ILS_WITH_VERSION:
          CHECK(perr == verr);
          CHECK(std::all_of(mine.begin(), mine.end(), [](unsigned char c) { return c == 0; }));
          break;
        case CL_DEVICE_EXTENSIONS_WITH_VERSION:
        case CL_DEVICE_OPENCL_C_FEATURES: {
          // The vendor's list, filtered, never invented.
          CHECK(perr == verr);
          const auto* m = reinterpret_cast<const cl_name_version*>(mine.data());
          const auto* t = reinterpret_cast<const cl_name_version*>(theirs.data());
          const size_t nm = mine.size() / sizeof *m, nt = theirs.size() / sizeof *t;
          for (size_t i = 0; i < nm; ++i)
            CHECK(std::any_of(t, t + nt, [&](const cl_name_version& x) {
              return x.version == m[i].version && std::strcmp(x.name, m[i].name) == 0;
            }));
          break;
        }
        case CL_DEVICE_GLOBAL_MEM_SIZE:
        case CL_DEVICE_MAX_MEM_ALLOC_SIZE: {
          // What StarPU may use there: the vendor's value or less
          // (StarPU's margin, STARPU_LIMIT_OPENCL*_MEM); docs/reliability.md.
          cl_ulong got = 0, vendor = 0;
          CL_REQUIRE(clGetDeviceInfo(d, q, sizeof got, &got, nullptr));
          CL_REQUIRE(clGetDeviceInfo(v, q, sizeof vendor, &vendor, nullptr));
          CHECK(got > 0);
          CHECK(got <= vendor);
          break;
        }
        case CL_DEVICE_REFERENCE_COUNT: {
          cl_uint r = 0;
          CL_REQUIRE(clGetDeviceInfo(d, q, sizeof r, &r, nullptr));
          CHECK(r == 1);
          break;
        }
        default:
          CHECK(perr == verr);
          CHECK(mine == theirs);
      }
    }
    cl_uint x = 0;
    CHECK(clGetDeviceInfo(d, CL_DEVICE_NAME, 1, &x, nullptr) == CL_INVALID_VALUE);
  }
}

// Parasol's native CPU device has no vendor to compare with: its answers are
// checked against what it really is and does.
#if PARASOL_TEST_HAVE_NATIVE  // built with the native device's compiler
TEST_CASE("the native device's queries describe what it really does") {
  auto natives = native_devices();
  REQUIRE(natives.size() == 1);
  cl_device_id d = natives[0];
  auto scalar = [&](cl_device_info q, auto zero) {
    decltype(zero) v = zero;
    size_t size = 0;
    CL_REQUIRE(clGetDeviceInfo(d, q, sizeof v, &v, &size));
    CHECK(size == sizeof v);
    return v;
  };
  // Every core query of OpenCL 1.0 to 3.0 answers (CL_DEVICE_TYPE to
  // CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED), but for extensions' own
  // in that range: cl_khr_image2d_from_buffer's (0x104A-B),
  // cl_khr_extended_versioning's (0x105F) and cl_khr_device_uuid's
  // (0x106A-E), which the device does not report.
  for (cl_device_info q = CL_DEVICE_TYPE; q <= 0x1072; ++q) {
    if (q == 0x104A || q == 0x104B || q == 0x105F || (q >= 0x106A && q <= 0x106E)) continue;
    INFO("param_name 0x" << std::hex << q);
    cl_int err = CL_SUCCESS;
    auto bytes = device_bytes(d, q, err);
    CHECK(err == CL_SUCCESS);
    if (q != CL_DEVICE_PARTITION_TYPE && q != CL_DEVICE_BUILT_IN_KERNELS &&
        q != CL_DEVICE_ILS_WITH_VERSION && q != CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION)
      CHECK(!bytes.empty());
  }
  CHECK(scalar(CL_DEVICE_TYPE, cl_device_type{0}) == CL_DEVICE_TYPE_CPU);
  // One compute unit per hardware thread: the thread pool's size.
  cl_uint threads = std::thread::hardware_concurrency();
  if (const char* env = std::getenv("PARASOL_NATIVE_THREADS")) threads = std::atoi(env);
  CHECK(scalar(CL_DEVICE_MAX_COMPUTE_UNITS, cl_uint{0}) == std::max(1u, threads));
  CHECK(scalar(CL_DEVICE_ADDRESS_BITS, cl_uint{0}) == 8 * sizeof(void*));
  CHECK(scalar(CL_DEVICE_ENDIAN_LITTLE, cl_bool{0}) == CL_TRUE);
  CHECK(scalar(CL_DEVICE_HOST_UNIFIED_MEMORY, cl_bool{0}) == CL_TRUE);
  CHECK(scalar(CL_DEVICE_COMPILER_AVAILABLE, cl_bool{0}) == CL_TRUE);
  CHECK(scalar(CL_DEVICE_LINKER_AVAILABLE, cl_bool{0}) == CL_TRUE);  // clLinkProgram links for it
  CHECK(scalar(CL_DEVICE_MAX_CLOCK_FREQUENCY, cl_uint{0}) > 0);
  // Images, with at least OpenCL 1.2's minimum limits for a device that has them.
  CHECK(scalar(CL_DEVICE_IMAGE_SUPPORT, cl_bool{0}) == CL_TRUE);
  CHECK(scalar(CL_DEVICE_MAX_READ_IMAGE_ARGS, cl_uint{0}) >= 128);
  CHECK(scalar(CL_DEVICE_MAX_WRITE_IMAGE_ARGS, cl_uint{0}) >= 8);
  CHECK(scalar(CL_DEVICE_MAX_SAMPLERS, cl_uint{0}) >= 16);
  CHECK(scalar(CL_DEVICE_IMAGE2D_MAX_WIDTH, size_t{0}) >= 8192);
  CHECK(scalar(CL_DEVICE_IMAGE2D_MAX_HEIGHT, size_t{0}) >= 8192);
  CHECK(scalar(CL_DEVICE_IMAGE3D_MAX_WIDTH, size_t{0}) >= 2048);
  CHECK(scalar(CL_DEVICE_IMAGE3D_MAX_DEPTH, size_t{0}) >= 2048);
  CHECK(scalar(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, size_t{0}) >= 2048);
  CHECK(scalar(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, size_t{0}) >= 65536);
  CHECK(scalar(CL_DEVICE_EXECUTION_CAPABILITIES, cl_device_exec_capabilities{0}) ==
        (CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL));
  CHECK(scalar(CL_DEVICE_QUEUE_PROPERTIES, cl_command_queue_properties{0}) ==
        (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE));
  CHECK(scalar(CL_DEVICE_PLATFORM, cl_platform_id{}) == parasol_platform());
  CHECK(scalar(CL_DEVICE_VENDOR_PLATFORM_PARASOL, cl_platform_id{}) == parasol_platform());
  CHECK(scalar(CL_DEVICE_VENDOR_DEVICE_PARASOL, cl_device_id{}) == nullptr);
  CHECK(scalar(CL_DEVICE_REFERENCE_COUNT, cl_uint{0}) == 1);
  CHECK(scalar(CL_DEVICE_PARTITION_MAX_SUB_DEVICES, cl_uint{0}) ==
        scalar(CL_DEVICE_MAX_COMPUTE_UNITS, cl_uint{0}));
  CHECK(scalar(CL_DEVICE_GLOBAL_MEM_SIZE, cl_ulong{0}) >= scalar(CL_DEVICE_MAX_MEM_ALLOC_SIZE, cl_ulong{0}));
  CHECK(scalar(CL_DEVICE_LOCAL_MEM_SIZE, cl_ulong{0}) >= 32 * 1024);
  // The forms of OpenCL 1.2, 4.2: "OpenCL<space><major_version.minor_version><space><vendor-specific
  // information>", "OpenCL C<space><major_version.minor_version><space><vendor-specific
  // information>" (the space after the version is required) and "major_number.minor_number".
  CHECK(std::regex_match(device_string(d, CL_DEVICE_VERSION), std::regex(R"(OpenCL 3\.0 .*)")));
  CHECK(scalar(CL_DEVICE_NUMERIC_VERSION, cl_version{0}) == CL_MAKE_VERSION(3, 0, 0));
  CHECK(std::regex_match(device_string(d, CL_DEVICE_OPENCL_C_VERSION), std::regex(R"(OpenCL C 1\.2 .*)")));
  CHECK(std::regex_match(device_string(d, CL_DRIVER_VERSION), std::regex(R"(\d+\.\d+)")));
  CHECK(device_string(d, CL_DEVICE_PROFILE) == "FULL_PROFILE");
  CHECK(device_string(d, CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL) == "Parasol");
  CHECK(device_string(d, CL_DEVICE_BUILT_IN_KERNELS).empty());
  // Every extension it claims is one its compiler defines and compiles.
  auto ext = words(device_string(d, CL_DEVICE_EXTENSIONS));
  CHECK(ext.count("cl_khr_icd") == 0);
  for (const char* needed : {"cl_khr_fp64", "cl_khr_global_int32_base_atomics",
                             "cl_khr_local_int32_base_atomics", "cl_khr_byte_addressable_store"})
    CHECK(ext.count(needed) == 1);
  std::string source;
  for (const auto& e : ext) source += "#ifndef " + e + "\n#error " + e + " claimed but not defined\n#endif\n";
  source +=
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
      "__kernel void uses(__global double* d, volatile __global long* l, __global char* c) {\n"
      "  d[0] = sqrt(d[1]); atom_add(l, 1L); c[get_global_id(0)] = 1; }\n";
  Context ctx(natives);
  Program prog(ctx, source);  // REQUIREs a successful build
  // Under -cl-std=CL3.0 the __opencl_c_* macros are exactly the features it
  // reports, and each one works: a generic pointer to private and __local
  // memory, a program-scope global kept between launches, seq_cst atomics
  // at device scope.
  {
    size_t bytes = 0;
    CL_REQUIRE(clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_FEATURES, 0, nullptr, &bytes));
    std::vector<cl_name_version> features(bytes / sizeof(cl_name_version));
    CL_REQUIRE(clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_FEATURES, bytes, features.data(), nullptr));
    std::set<std::string> reported;
    for (const auto& f : features) reported.insert(f.name);
    CHECK(reported.count("__opencl_c_generic_address_space") == 1);
    CHECK(reported.count("__opencl_c_program_scope_global_variables") == 1);
    CHECK(reported.count("__opencl_c_atomic_order_seq_cst") == 1);
    CHECK(reported.count("__opencl_c_pipes") == 0);
    CHECK(reported.count("__opencl_c_device_enqueue") == 0);
    CHECK(scalar(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, cl_bool{0}) == CL_TRUE);
    CHECK(scalar(CL_DEVICE_PIPE_SUPPORT, cl_bool{1}) == CL_FALSE);
    CHECK(scalar(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, size_t{0}) >= 64 * 1024);
    std::string checks;
    for (const char* f :
         {"__opencl_c_images", "__opencl_c_3d_image_writes", "__opencl_c_read_write_images",
          "__opencl_c_fp64", "__opencl_c_int64", "__opencl_c_generic_address_space",
          "__opencl_c_program_scope_global_variables", "__opencl_c_atomic_order_acq_rel",
          "__opencl_c_atomic_order_seq_cst", "__opencl_c_atomic_scope_device",
          "__opencl_c_atomic_scope_all_devices", "__opencl_c_pipes", "__opencl_c_device_enqueue",
          "__opencl_c_subgroups", "__opencl_c_work_group_collective_functions",
          "__opencl_c_fp16", "__opencl_c_int8"}) {
      const std::string name = f;
      checks += reported.count(name) ? "#ifndef " + name + "\n#error " + name + " reported, not defined\n#endif\n"
                                     : "#ifdef " + name + "\n#error " + name + " defined, not reported\n#endif\n";
    }
    checks +=
        "#if __OPENCL_VERSION__ != 300\n#error __OPENCL_VERSION__ is not the device's 3.0\n#endif\n"
        "global int counter = 5;\n"
        "global float table[10];\n"
        "constant int limits[4] = {1, 2, 3, 4};\n"
        "int twice(int* p) { return *p * 2; }\n"
        "kernel void gen(global int* out, local int* scratch, global atomic_int* hits) {\n"
        "  int gid = get_global_id(0), mine = gid;\n"
        "  scratch[get_local_id(0)] = gid + 1;\n"
        "  barrier(CLK_LOCAL_MEM_FENCE);\n"
        "  out[gid] = twice(&mine) + twice(&scratch[get_local_id(0)]);\n"
        "  atomic_fetch_add_explicit(hits, 1, memory_order_seq_cst, memory_scope_device);\n"
        "  if (gid == 0) out[64] = ++counter;\n"
        "}\n";
    cl_int err = CL_SUCCESS;
    const char* text = checks.c_str();
    cl_program p3 = clCreateProgramWithSource(ctx, 1, &text, nullptr, &err);
    CL_REQUIRE(err);
    const cl_int built = clBuildProgram(p3, 1, &d, "-cl-std=CL3.0", nullptr, nullptr);
    if (built != CL_SUCCESS) {
      size_t n = 0;
      clGetProgramBuildInfo(p3, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
      std::string log(n, '\0');
      clGetProgramBuildInfo(p3, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
      FAIL("-cl-std=CL3.0 build failed:\n" << log);
    }
    // Its program-scope __global variables: counter and table (the
    // __constant array is not in the global address space).
    size_t global_bytes = 0;
    CL_REQUIRE(clGetProgramBuildInfo(p3, d, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                                     sizeof global_bytes, &global_bytes, nullptr));
    CHECK(global_bytes == sizeof(cl_int) + 10 * sizeof(cl_float));
    cl_kernel k3 = clCreateKernel(p3, "gen", &err);
    CL_REQUIRE(err);
    Queue q3(ctx, d);
    Mem out3(ctx, CL_MEM_READ_WRITE, 65 * sizeof(cl_int));
    const cl_int zero = 0;
    Mem hits(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, const_cast<cl_int*>(&zero));
    CL_REQUIRE(clSetKernelArg(k3, 0, sizeof(cl_mem), &out3.m));
    CL_REQUIRE(clSetKernelArg(k3, 1, 16 * sizeof(cl_int), nullptr));
    CL_REQUIRE(clSetKernelArg(k3, 2, sizeof(cl_mem), &hits.m));
    const size_t global = 64, local = 16;
    for (int i = 0; i < 3; ++i)
      CL_REQUIRE(clEnqueueNDRangeKernel(q3, k3, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    std::vector<cl_int> got(65);
    cl_int hit_count = 0;
    CL_REQUIRE(clEnqueueReadBuffer(q3, out3, CL_TRUE, 0, 65 * sizeof(cl_int), got.data(), 0, nullptr, nullptr));
    CL_REQUIRE(clEnqueueReadBuffer(q3, hits, CL_TRUE, 0, sizeof hit_count, &hit_count, 0, nullptr, nullptr));
    for (int i = 0; i < 64; ++i) CHECK(got[i] == 2 * i + 2 * (i + 1));
    CHECK(got[64] == 8);  // the global kept its value between the three launches
    CHECK(hit_count == 3 * 64);
    clReleaseKernel(k3);
    clReleaseProgram(p3);
  }
  // The largest work-group it announces runs.
  size_t max_wg = scalar(CL_DEVICE_MAX_WORK_GROUP_SIZE, size_t{0});
  REQUIRE(max_wg >= 1);
  Program wg_prog(ctx, "__kernel void ids(__global uint* o) { o[get_global_id(0)] = get_local_id(0); }");
  Kernel k(wg_prog, "ids");
  Queue q(ctx, d);
  Mem out(ctx, CL_MEM_READ_WRITE, 2 * max_wg * sizeof(cl_uint));
  set_args(k, out.m);
  size_t global = 2 * max_wg;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &max_wg, 0, nullptr, nullptr));
  std::vector<cl_uint> ids(global);
  CL_REQUIRE(clEnqueueReadBuffer(q, out, CL_TRUE, 0, global * sizeof(cl_uint), ids.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < global; ++i) CHECK(ids[i] == i % max_wg);
  size_t too_big = max_wg + 1, too_big_global = too_big;
  CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &too_big_global, &too_big, 0, nullptr, nullptr) ==
        CL_INVALID_WORK_GROUP_SIZE);
}
#endif

// A vendor's built-in kernels (PoCL lists some) through Parasol: the program
// is the vendor's, so every answer is the vendor's own for the same calls.
TEST_CASE("built-in kernels: a vendor's, answered as the vendor answers") {
  int tried = 0;
  for (cl_device_id d : devices()) {
    const std::string listed = device_string(d, CL_DEVICE_BUILT_IN_KERNELS);
    if (listed.empty()) continue;
    cl_device_id v = vendor_device(d);
    INFO("device " << device_name(d) << " of " << vendor_of(d));
    const std::string first = listed.substr(0, listed.find(';'));
    cl_int err = CL_SUCCESS, verr = CL_SUCCESS;
    cl_context ctx = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
    CL_REQUIRE(err);
    cl_context vctx = clCreateContext(nullptr, 1, &v, nullptr, nullptr, &verr);
    CL_REQUIRE(verr);
    cl_program p = clCreateProgramWithBuiltInKernels(ctx, 1, &d, first.c_str(), &err);
    cl_program vp = clCreateProgramWithBuiltInKernels(vctx, 1, &v, first.c_str(), &verr);
    CHECK(err == verr);
    if (p && vp) {
      ++tried;
      auto names = [](cl_program prog) {
        size_t n = 0;
        clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &n);
        std::string s(n, '\0');
        clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, n, s.data(), nullptr);
        return s;
      };
      // Before a build: the vendor's status; then the vendor's build result
      // and, if it built, its kernel names and the kernel itself.
      cl_build_status s = 0, vs = 0;
      clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_STATUS, sizeof s, &s, nullptr);
      clGetProgramBuildInfo(vp, v, CL_PROGRAM_BUILD_STATUS, sizeof vs, &vs, nullptr);
      CHECK(s == vs);
      const cl_int built = clBuildProgram(p, 1, &d, "", nullptr, nullptr);
      const cl_int vbuilt = clBuildProgram(vp, 1, &v, "", nullptr, nullptr);
      CHECK(built == vbuilt);
      if (built == CL_SUCCESS) {
        CHECK(names(p) == names(vp));
        cl_kernel k = clCreateKernel(p, first.c_str(), &err);
        CHECK(err == CL_SUCCESS);
        if (k) clReleaseKernel(k);
      }
    }
    if (p) clReleaseProgram(p);
    if (vp) clReleaseProgram(vp);
    // Misuse: the spec's codes.
    CHECK(clCreateProgramWithBuiltInKernels(ctx, 1, &d, "no.such.kernel", &err) == nullptr);
    CHECK(err == CL_INVALID_VALUE);
    CHECK(clCreateProgramWithBuiltInKernels(ctx, 1, &d, nullptr, &err) == nullptr);
    CHECK(err == CL_INVALID_VALUE);
    CHECK(clCreateProgramWithBuiltInKernels(ctx, 0, &d, first.c_str(), &err) == nullptr);
    CHECK(err == CL_INVALID_VALUE);
    clReleaseContext(ctx);
    clReleaseContext(vctx);
  }
  // The native device has none: asking it for one is CL_INVALID_VALUE.
  for (cl_device_id d : devices())
    if (vendor_of(d) == "Parasol") {
      cl_int err = CL_SUCCESS;
      cl_context ctx = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
      CL_REQUIRE(err);
      CHECK(clCreateProgramWithBuiltInKernels(ctx, 1, &d, "pocl.add.i8", &err) == nullptr);
      CHECK(err == CL_INVALID_VALUE);
      clReleaseContext(ctx);
    }
  INFO(tried << " devices with built-in kernels tried");
  SUCCEED();
}
