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

// In the child (plain checks, no Catch2 there): a context over `device` with
// the given properties whose context queue runs the probe `times` times,
// each waited for. 0, or 1 with the failing call on stderr.
int run_probe(cl_device_id device, const cl_context_properties* props, int times) {
  struct Handles {  // released however the run ends
    cl_context ctx = nullptr;
    cl_command_queue q = nullptr;
    cl_program prog = nullptr;
    cl_kernel k = nullptr;
    cl_mem y = nullptr;
    ~Handles() {
      if (y) clReleaseMemObject(y);
      if (k) clReleaseKernel(k);
      if (prog) clReleaseProgram(prog);
      if (q) clReleaseCommandQueue(q);
      if (ctx) clReleaseContext(ctx);
    }
  } h;
  cl_int err = CL_SUCCESS;
  auto failed = [&](const char* what) {
    std::fprintf(stderr, "child: %s failed (%d)\n", what, err);
    return 1;
  };
  const size_t n = 1 << 14;
  h.ctx = clCreateContext(props, 1, &device, nullptr, nullptr, &err);
  if (err) return failed("clCreateContext");
  h.q = clCreateCommandQueueWithProperties(h.ctx, nullptr, nullptr, &err);
  if (err) return failed("the context queue");
  h.prog = clCreateProgramWithSource(h.ctx, 1, &kProbe, nullptr, &err);
  if (err || (err = clBuildProgram(h.prog, 0, nullptr, nullptr, nullptr, nullptr)))
    return failed("building the probe");
  h.k = clCreateKernel(h.prog, "persist_probe", &err);
  if (err) return failed("clCreateKernel");
  h.y = clCreateBuffer(h.ctx, CL_MEM_READ_WRITE, n * sizeof(float), nullptr, &err);
  if (err || (err = clSetKernelArg(h.k, 0, sizeof h.y, &h.y))) return failed("the buffer");
  for (int i = 0; i < times; ++i) {
    if ((err = clEnqueueNDRangeKernel(h.q, h.k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr)))
      return failed("clEnqueueNDRangeKernel");
    if ((err = clFinish(h.q))) return failed("clFinish");
  }
  return 0;
}

// The child's work: measurements in a heft context, then a second context
// whose context queue's first kernel creates its scheduling context. StarPU
// 1.3 reset its "save the models" flag whenever a scheduling context was
// created, and Parasol creates one per context queue's context: the
// measurements of the first context were lost at exit.
int measure_then_open_another_context() {
  auto devs = pocl_devices();
  if (devs.empty()) {
    std::fprintf(stderr, "child: no PoCL device\n");
    return 1;
  }
  cl_context_properties heft[] = {CL_CONTEXT_SCHEDULER_PARASOL,
                                  reinterpret_cast<cl_context_properties>("heft"), 0};
  if (int rc = run_probe(devs[0], heft, 12)) return rc;
  return run_probe(devs[0], nullptr, 1);
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
