// Performance models persist: what heft and dmda place by is measured once
// and saved under STARPU_HOME when the process exits, so the next run starts
// calibrated (docs/architecture.md, "Performance models"). The run happens in
// a child process with its own STARPU_HOME: the save happens at its exit.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

const char* kProbe =
    "__kernel void persist_probe(__global float* y) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = y[i] * 0.5f + 1.0f;\n"
    "}\n";

// The child's work, with plain checks (no Catch2 there): measurements in a
// heft context, then a second context with a context queue of its own.
// StarPU 1.3 reset its "save the models" flag whenever a scheduling context
// was created, and Parasol creates one per context queue's context: the
// measurements of the first context were lost at exit.
int measure_then_open_another_context() {
  auto fail = [](const char* what, cl_int err) {
    std::fprintf(stderr, "child: %s failed (%d)\n", what, err);
    return 1;
  };
  auto devs = pocl_devices();
  if (devs.empty()) return fail("finding a PoCL device", 0);
  cl_context_properties heft[] = {CL_CONTEXT_SCHEDULER_PARASOL,
                                  reinterpret_cast<cl_context_properties>("heft"), 0};
  cl_int err = CL_SUCCESS;
  cl_context a = clCreateContext(heft, 1, devs.data(), nullptr, nullptr, &err);
  if (err) return fail("clCreateContext", err);
  cl_command_queue qa = clCreateCommandQueueWithProperties(a, nullptr, nullptr, &err);
  if (err) return fail("context queue", err);
  cl_program prog = clCreateProgramWithSource(a, 1, &kProbe, nullptr, &err);
  if (err || (err = clBuildProgram(prog, 0, nullptr, nullptr, nullptr, nullptr)))
    return fail("building the probe", err);
  cl_kernel k = clCreateKernel(prog, "persist_probe", &err);
  if (err) return fail("clCreateKernel", err);
  const size_t n = 1 << 14;
  cl_mem y = clCreateBuffer(a, CL_MEM_READ_WRITE, n * sizeof(float), nullptr, &err);
  if (err || (err = clSetKernelArg(k, 0, sizeof y, &y))) return fail("the buffer", err);
  for (int i = 0; i < 12; ++i) {
    if ((err = clEnqueueNDRangeKernel(qa, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr)))
      return fail("clEnqueueNDRangeKernel", err);
    if ((err = clFinish(qa))) return fail("clFinish", err);
  }
  // A second context; its context queue's first kernel creates its
  // scheduling context.
  cl_context b = clCreateContext(nullptr, 1, devs.data(), nullptr, nullptr, &err);
  if (err) return fail("the second context", err);
  cl_command_queue qb = clCreateCommandQueueWithProperties(b, nullptr, nullptr, &err);
  if (err) return fail("the second context queue", err);
  cl_program prog_b = clCreateProgramWithSource(b, 1, &kProbe, nullptr, &err);
  if (err || (err = clBuildProgram(prog_b, 0, nullptr, nullptr, nullptr, nullptr)))
    return fail("building the probe again", err);
  cl_kernel kb = clCreateKernel(prog_b, "persist_probe", &err);
  if (err) return fail("clCreateKernel again", err);
  cl_mem yb = clCreateBuffer(b, CL_MEM_READ_WRITE, n * sizeof(float), nullptr, &err);
  if (err || (err = clSetKernelArg(kb, 0, sizeof yb, &yb))) return fail("the second buffer", err);
  if ((err = clEnqueueNDRangeKernel(qb, kb, 1, nullptr, &n, nullptr, 0, nullptr, nullptr)))
    return fail("clEnqueueNDRangeKernel on the second queue", err);
  if ((err = clFinish(qb))) return fail("clFinish on the second queue", err);
  clReleaseMemObject(yb);
  clReleaseKernel(kb);
  clReleaseProgram(prog_b);
  clReleaseCommandQueue(qb);
  clReleaseContext(b);
  clReleaseMemObject(y);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(qa);
  clReleaseContext(a);
  return 0;
}

std::vector<std::filesystem::path> files_named(const std::string& dir, const std::string& prefix) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename().string().rfind(prefix, 0) == 0)
      out.push_back(e.path());
  return out;
}

}  // namespace

TEST_CASE("models measured in a process are saved at its exit, also after a later context") {
  char dir[] = "/tmp/parasol-models-XXXXXX";
  REQUIRE(mkdtemp(dir));
  std::fflush(nullptr);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // This process has made no OpenCL call yet: the child starts Parasol,
    // and StarPU, with its own folder for models (and PoCL's cache).
    setenv("STARPU_HOME", dir, 1);
    setenv("XDG_CACHE_HOME", dir, 1);
    std::exit(measure_then_open_another_context());  // at exit StarPU saves the models
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  auto models = files_named(dir, "parasol.persist_probe.");
  INFO("models saved under " << dir << ": " << models.size());
  CHECK(models.size() == 1);
  if (!models.empty()) CHECK(std::filesystem::file_size(models[0]) > 0);
  std::filesystem::remove_all(dir);
}
