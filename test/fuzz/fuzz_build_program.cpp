// libFuzzer target: the program-build path. The input is a flag byte, an
// option string (up to the first newline) and OpenCL C source; they go
// through clCreateProgramWithSource and clBuildProgram on a Parasol context
// of PoCL devices, then the build's results are queried and kernels made.
// Any crash, hang or sanitizer report in Parasol is a finding.
#include "fuzz_common.h"

using namespace parasol_fuzz;

namespace {

PoclContext g;

const char* kValidKernel =
    "__kernel void seed_kernel(__global int* x, int c) { x[get_global_id(0)] += c; }\n";

void query_build(cl_program p, cl_device_id d) {
  cl_build_status status = CL_BUILD_NONE;
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, nullptr);
  size_t size = 0;
  if (clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) == CL_SUCCESS && size) {
    std::string log(size, '\0');
    clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  }
  if (clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_OPTIONS, 0, nullptr, &size) == CL_SUCCESS) {
    std::string opts(size + 1, '\0');
    clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_OPTIONS, size, opts.data(), nullptr);
  }
}

void use_kernels(cl_program p) {
  cl_uint n = 0;
  if (clCreateKernelsInProgram(p, 0, nullptr, &n) != CL_SUCCESS || n == 0 || n > 64) return;
  std::vector<cl_kernel> ks(n);
  if (clCreateKernelsInProgram(p, n, ks.data(), nullptr) != CL_SUCCESS) return;
  for (cl_kernel k : ks) {
    cl_uint nargs = 0;
    clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr);
    for (cl_uint i = 0; i < nargs && i < 64; ++i) {
      char type[256];
      clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, nullptr);
    }
    size_t wg = 0;
    clGetKernelWorkGroupInfo(k, g.devices[0], CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr);
    clReleaseKernel(k);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g = make_pocl_context();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  Input in(data, size);
  const uint8_t flags = in.byte();
  std::string rest = in.rest();
  size_t nl = rest.find('\n');
  std::string options = nl == std::string::npos ? std::string() : rest.substr(0, nl);
  std::string source = nl == std::string::npos ? rest : rest.substr(nl + 1);
  if (options.size() > 256) return 0;
  // Keep the vendor compiler off the file system: no includes, no output or
  // dependency files, no plugins.
  if (source.find("include") != std::string::npos || source.find("import") != std::string::npos)
    return 0;
  for (size_t i = 0; i < options.size();) {
    size_t end = options.find_first_of(" \t", i);
    std::string token = options.substr(i, end == std::string::npos ? end : end - i);
    for (const char* banned : {"-I", "-o", "-M", "-save", "-fplugin", "-load", "-Xclang", "-B",
                               "@", "--", "-x", "-f", "-W"})
      if (token.rfind(banned, 0) == 0 && token != "-Werror" && token.rfind("-fno", 0) != 0)
        return 0;
    if (end == std::string::npos) break;
    i = end + 1;
  }

  // Source as one string or two, with or without explicit lengths.
  std::string first = (flags & 1) ? std::string(kValidKernel) : std::string();
  std::vector<const char*> strings;
  std::vector<size_t> lengths;
  if (!first.empty()) {
    strings.push_back(first.c_str());
    lengths.push_back(first.size());
  }
  strings.push_back(source.c_str());
  lengths.push_back((flags & 2) ? source.size() : 0);  // 0: NUL-terminated
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(g.ctx, static_cast<cl_uint>(strings.size()),
                                           strings.data(), (flags & 4) ? lengths.data() : nullptr,
                                           &err);
  if (err != CL_SUCCESS) return 0;
  // The whole context, or one device of it.
  cl_uint ndev = (flags & 8) ? 1 : 0;
  const cl_device_id* devs = (flags & 8) ? &g.devices[flags % g.devices.size()] : nullptr;
  const char* opts = (flags & 16) ? nullptr : options.c_str();
  err = clBuildProgram(p, ndev, devs, opts, nullptr, nullptr);
  for (cl_device_id d : g.devices) query_build(p, d);
  size_t n = 0;
  clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof n, &n, nullptr);
  if (err == CL_SUCCESS) {
    if (flags & 32) use_kernels(p);
    // A second build: refused while kernels exist, allowed otherwise.
    if (flags & 64) clBuildProgram(p, 0, nullptr, opts, nullptr, nullptr);
    size_t sizes[8] = {};
    clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof sizes, sizes, nullptr);
  }
  clReleaseProgram(p);
  return 0;
}
