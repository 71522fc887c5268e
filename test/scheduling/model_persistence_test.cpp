// Performance models persist: what heft and dmda place by is measured once
// and saved under STARPU_HOME when the process exits, so the next run starts
// calibrated (docs/architecture.md, "Performance models"). The run happens in
// a child process with its own STARPU_HOME: the save happens at its exit.
// What a saved model holds is the kernel's own time, not the time it spent
// queued behind other commands of its device.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

const char* kProbe =
    "__kernel void persist_probe(__global float* y) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = y[i] * 0.5f + 1.0f;\n"
    "}\n";

const Policy kHeft("heft");

// In the child: its first PoCL device, or null (said on stderr).
cl_device_id first_pocl() {
  auto devs = pocl_devices();
  if (devs.empty()) std::fprintf(stderr, "child: no PoCL device\n");
  return devs.empty() ? nullptr : devs[0];
}

// Runs `work` in a child process whose StarPU keeps its models (and PoCL
// its cache) in `dir`. This process has made no OpenCL call: the child
// starts Parasol, and StarPU, which saves the models when the child exits.
// The child's exit status, or -1 if it did not exit.
int exit_status_of_child(const char* dir, const std::function<int()>& work) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    setenv("STARPU_HOME", dir, 1);
    setenv("XDG_CACHE_HOME", dir, 1);
    std::exit(work());
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// What a child's run made (plain checks there, no Catch2), released however
// the run ends. Each maker returns null on failure with err set; failed()
// then names the call on stderr and gives the child's exit status, 1.
struct ChildRun {
  cl_int err = CL_SUCCESS;
  cl_context ctx = nullptr;
  cl_program prog = nullptr;
  std::vector<cl_command_queue> queues;
  std::vector<cl_kernel> kernels;
  std::vector<cl_mem> mems;

  ChildRun() = default;
  ChildRun(const ChildRun&) = delete;
  ChildRun& operator=(const ChildRun&) = delete;
  ~ChildRun() {
    for (cl_mem m : mems) clReleaseMemObject(m);
    for (cl_kernel k : kernels) clReleaseKernel(k);
    if (prog) clReleaseProgram(prog);
    for (cl_command_queue q : queues) clReleaseCommandQueue(q);
    if (ctx) clReleaseContext(ctx);
  }
  int failed(const char* what) const {
    std::fprintf(stderr, "child: %s failed (%d)\n", what, err);
    return 1;
  }
  // A context over `device` with `props`, and `source` built for it.
  bool open(cl_device_id device, const cl_context_properties* props, const char* source) {
    ctx = clCreateContext(props, 1, &device, nullptr, nullptr, &err);
    if (err) return false;
    prog = clCreateProgramWithSource(ctx, 1, &source, nullptr, &err);
    return !err && !(err = clBuildProgram(prog, 0, nullptr, nullptr, nullptr, nullptr));
  }
  // A queue on `device`, or the context queue for null.
  cl_command_queue queue(cl_device_id device) {
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
    return err ? nullptr : queues.emplace_back(q);
  }
  // A kernel of the program whose argument 0 is a new buffer of `bytes`.
  cl_kernel kernel_on_new_buffer(const char* name, std::size_t bytes) {
    cl_kernel k = clCreateKernel(prog, name, &err);
    if (err) return nullptr;
    kernels.push_back(k);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &err);
    if (err) return nullptr;
    mems.push_back(m);
    return (err = clSetKernelArg(k, 0, sizeof m, &m)) ? nullptr : k;
  }
};

// In the child: a context over `device` with the given properties whose
// context queue runs the probe `times` times, each waited for. 0, or 1 with
// the failing call on stderr.
int run_probe(cl_device_id device, const cl_context_properties* props, int times) {
  ChildRun r;
  const size_t n = 1 << 14;
  if (!r.open(device, props, kProbe)) return r.failed("building the probe");
  cl_command_queue q = r.queue(nullptr);
  if (!q) return r.failed("the context queue");
  cl_kernel k = r.kernel_on_new_buffer("persist_probe", n * sizeof(float));
  if (!k) return r.failed("the probe kernel");
  for (int i = 0; i < times; ++i) {
    if ((r.err = clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr)))
      return r.failed("clEnqueueNDRangeKernel");
    if ((r.err = clFinish(q))) return r.failed("clFinish");
  }
  return 0;
}

// The child's work: measurements in a heft context, then a second context
// whose context queue's first kernel creates its scheduling context. StarPU
// 1.3 reset its "save the models" flag whenever a scheduling context was
// created, and Parasol creates one per context queue's context: the
// measurements of the first context were lost at exit.
int measure_then_open_another_context() {
  cl_device_id pocl = first_pocl();
  if (!pocl) return 1;
  if (int rc = run_probe(pocl, kHeft, 12)) return rc;
  return run_probe(pocl, nullptr, 1);
}

std::vector<std::filesystem::path> files_named(const std::string& dir, const std::string& prefix) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename().string().rfind(prefix, 0) == 0)
      out.push_back(e.path());
  return out;
}

const char* kBehindSpin =
    "__kernel void slow_spin(__global float* out, int rounds) {\n"
    "  float v = out[0];\n"
    "  for (int i = 0; i < rounds; ++i) v = v * 0.999999f + 1.0f;\n"
    "  out[0] = v;\n"
    "}\n"
    "__kernel void timed_probe(__global float* y) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = y[i] * 0.5f + 1.0f;\n"
    "}\n";

// In the child: a slow kernel on a device queue (the direct path puts it on
// the vendor's queue at once), and behind it, on a heft context queue over
// the same device, a quick kernel whose model is cold (so StarPU runs it,
// and its worker meets the vendor queue still busy with the slow one).
// Three rounds calibrate the quick kernel's model. The slow kernel's own
// time (us) is written to `spin_file`. 0, or 1 with the failing call on stderr.
int quick_kernel_behind_slow_one(const std::string& spin_file) {
  cl_device_id pocl = first_pocl();
  if (!pocl) return 1;
  ChildRun r;
  if (!r.open(pocl, kHeft, kBehindSpin)) return r.failed("building");
  cl_command_queue qd = r.queue(pocl), qc = r.queue(nullptr);
  if (!qd || !qc) return r.failed("the queues");
  const size_t n = 1 << 14, one = 1;
  cl_kernel spin = r.kernel_on_new_buffer("slow_spin", sizeof(float));
  cl_kernel probe = r.kernel_on_new_buffer("timed_probe", n * sizeof(float));
  if (!spin || !probe) return r.failed("the kernels");
  // The slow kernel alone, made to take at least 500 ms: far longer than
  // StarPU may take to start the quick one on a loaded host.
  double spin_us = 0;
  for (cl_int rounds = 1 << 20; spin_us < 500e3 && rounds < (1 << 30); rounds *= 2) {
    if ((r.err = clSetKernelArg(spin, 1, sizeof rounds, &rounds))) return r.failed("rounds");
    auto t0 = std::chrono::steady_clock::now();
    if ((r.err = clEnqueueNDRangeKernel(qd, spin, 1, nullptr, &one, nullptr, 0, nullptr, nullptr)) ||
        (r.err = clFinish(qd)))
      return r.failed("the slow kernel alone");
    spin_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  }
  for (int round = 0; round < 3; ++round) {
    if ((r.err = clEnqueueNDRangeKernel(qd, spin, 1, nullptr, &one, nullptr, 0, nullptr, nullptr)) ||
        (r.err = clEnqueueNDRangeKernel(qc, probe, 1, nullptr, &n, nullptr, 0, nullptr, nullptr)) ||
        (r.err = clFinish(qc)) || (r.err = clFinish(qd)))
      return r.failed("a round");
  }
  std::ofstream(spin_file) << spin_us << "\n";
  return 0;
}

// The mean and sample count of the first history entry of a saved model.
std::pair<double, int> history_mean(const std::filesystem::path& model) {
  std::ifstream in(model);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# hash", 0) != 0) continue;
    std::string entry;
    std::getline(in, entry);
    std::istringstream fields(entry);
    std::string hash;
    double size = 0, flops = 0, mean = NAN, dev = 0, sum = 0, sum2 = 0;
    int n = 0;
    fields >> hash >> size >> flops >> mean >> dev >> sum >> sum2 >> n;
    return {mean, n};
  }
  return {NAN, 0};
}

}  // namespace

TEST_CASE("a model holds its kernel's own time, not the time it waited behind a slower command") {
  // StarPU times a task from its codelet's start to its end: on a vendor
  // queue shared with the direct path that was the slow kernel's time too
  // (a 40 us saxpy measured 1,108 us on an H100 behind other blocks' writes).
  char dir[] = "/tmp/parasol-models-XXXXXX";
  REQUIRE(mkdtemp(dir));
  const std::string spin_file = std::string(dir) + "/spin_us";
  REQUIRE(exit_status_of_child(dir, [&] { return quick_kernel_behind_slow_one(spin_file); }) == 0);
  double spin_us = 0;
  std::ifstream(spin_file) >> spin_us;
  auto models = files_named(dir, "parasol.timed_probe.");
  REQUIRE(models.size() == 1);
  const auto [mean_us, samples] = history_mean(models[0]);
  INFO("slow kernel alone: " << spin_us << " us; the quick kernel's model: " << mean_us
                             << " us over " << samples << " samples");
  CHECK(spin_us >= 500e3);
  CHECK(samples >= 1);
  CHECK(mean_us < spin_us / 4);
  std::filesystem::remove_all(dir);
}

TEST_CASE("models measured in a process are saved at its exit, also after a later context") {
  char dir[] = "/tmp/parasol-models-XXXXXX";
  REQUIRE(mkdtemp(dir));
  REQUIRE(exit_status_of_child(dir, measure_then_open_another_context) == 0);
  auto models = files_named(dir, "parasol.persist_probe.");
  INFO("models saved under " << dir << ": " << models.size());
  CHECK(models.size() == 1);
  if (!models.empty()) CHECK(std::filesystem::file_size(models[0]) > 0);
  std::filesystem::remove_all(dir);
}
