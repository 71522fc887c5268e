// Idle StarPU workers park (src/backend/worker_parking.h): a Parasol process
// with nothing to do must not burn a core per device, and work that comes
// after the workers parked must wake them and run right: StarPU tasks, data
// moving between vendors, host commands. ctest also runs this binary with
// PARASOL_PARK_WORKERS=0 and expects it to fail (the spinning workers burn
// the cores the first case measures).
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/core_fixture.h"
#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

void pause_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// CPU seconds of this process's threads named "OpenCL N": StarPU's workers
// for the vendors' devices (the native device's case below; unused without it).
[[maybe_unused]] double vendor_worker_cpu_seconds() {
  double total = 0;
  const double tick = 1.0 / double(sysconf(_SC_CLK_TCK));
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::string name, stat;
    std::getline(std::ifstream(task.path() / "comm"), name);
    if (name.rfind("OpenCL", 0) != 0) continue;
    std::getline(std::ifstream(task.path() / "stat"), stat);
    // utime and stime: the 14th and 15th fields, counted after "(comm)".
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string skip;
    for (int i = 3; i < 14; ++i) fields >> skip;
    unsigned long utime = 0, stime = 0;
    fields >> utime >> stime;
    total += double(utime + stime) * tick;
  }
  return total;
}

// Every device runs a kernel through StarPU (a context queue under eager
// places them), so every worker has been busy, and the results are checked.
void run_everywhere(cl_context ctx, const std::vector<cl_device_id>& devs, int c) {
  Queue q(ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  Program prog(ctx, kIntKernels);
  Kernel add(prog, "add_const_int");
  const size_t n = 1024;
  std::vector<std::vector<int>> host(devs.size(), iota_vector(n));
  std::vector<cl_mem> bufs;
  for (auto& h : host) {
    bufs.push_back(clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                  n * sizeof(int), h.data(), nullptr));
    REQUIRE(bufs.back());
  }
  for (cl_mem b : bufs) {
    set_args(add, b, c);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  }
  for (size_t i = 0; i < bufs.size(); ++i)
    CL_REQUIRE(clEnqueueReadBuffer(q, bufs[i], CL_TRUE, 0, n * sizeof(int), host[i].data(), 0,
                                   nullptr, nullptr));
  for (auto& h : host) CHECK(h == iota_vector(n, c));
  for (cl_mem b : bufs) clReleaseMemObject(b);
}

const Policy kEager("eager");

}  // namespace

TEST_CASE("an idle Parasol process leaves the cores alone") {
  auto devs = devices();
  REQUIRE(devs.size() >= 2);
  Context ctx(devs, kEager);
  run_everywhere(ctx, devs, 3);
  pause_ms(50);  // past the workers' grace period
  const double wall = 0.4;
  const double before = cpu_seconds();
  pause_ms(static_cast<int>(wall * 1000));
  const double used = cpu_seconds() - before;
  // Spinning, each of the devices' workers took a core (all the host has
  // when it has fewer): 100% of a core or more. Parked: a few wake-ups.
  INFO("CPU time over " << wall << " s idle with " << devs.size() << " devices: " << used << " s");
  CHECK(used < 0.25 * wall);
}

TEST_CASE("work coming after the workers parked wakes them and runs right") {
  auto devs = devices();
  Context ctx(devs, kEager);
  for (int round = 1; round <= 3; ++round) {
    pause_ms(30);
    run_everywhere(ctx, devs, round);
  }
}

TEST_CASE("data moves between vendors after the workers parked") {
  MixedPair p;
  Program prog(p.ctx, kIntKernels);
  Kernel add(prog, "add_const_int");
  const size_t n = 4096;
  std::vector<int> host = iota_vector(n);
  Mem buf(p.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(int), host.data());
  int expected_add = 0;
  for (int hop = 0; hop < 4; ++hop) {
    // PoCL (direct path, the buffer leased there), then Oclgrind (a StarPU
    // task: the lease goes back, PoCL's worker moves the data out), each
    // after the workers parked.
    cl_command_queue q = hop % 2 == 0 ? p.qp.q : p.qg.q;
    set_args(add, buf.m, hop + 1);
    expected_add += hop + 1;
    pause_ms(30);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(q));
  }
  pause_ms(30);
  CL_REQUIRE(clEnqueueReadBuffer(p.qp, buf, CL_TRUE, 0, n * sizeof(int), host.data(), 0, nullptr,
                                 nullptr));
  CHECK(host == iota_vector(n, expected_add));
}

#if PARASOL_TEST_HAVE_NATIVE  // built with the native device's compiler
TEST_CASE("a stream of StarPU tasks for one device leaves the other devices' workers parked") {
  auto native = native_devices();
  REQUIRE(native.size() == 1);
  auto all = devices();
  REQUIRE(all.size() >= 3);  // the native device and vendors' devices
  Context ctx(all, kEager);
  run_everywhere(ctx, all, 1);  // every worker has been busy
  // The native device runs its kernels through StarPU (never the direct
  // path): a stream of them on its queue, the buffer in main RAM.
  Queue q(ctx, native[0]);
  Program prog(ctx, kIntKernels);
  Kernel add(prog, "add_const_int");
  const size_t n = 256;
  std::vector<int> host = iota_vector(n);
  Mem buf(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(int), host.data());
  set_args(add, buf.m, 1);
  CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  CL_REQUIRE(clFinish(q));
  pause_ms(50);  // past the workers' grace period
  const double before = vendor_worker_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  int runs = 1;
  while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(400)) {
    for (int i = 0; i < 50; ++i, ++runs)
      CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(q));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double used = vendor_worker_cpu_seconds() - before;
  CL_REQUIRE(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n * sizeof(int), host.data(), 0, nullptr, nullptr));
  CHECK(host == iota_vector(n, runs));
  // Woken by every task, the vendors' workers (PoCL's two, Oclgrind's...)
  // spun beside the native worker, each taking its share of the cores.
  INFO(runs << " kernels on the native device in " << wall << " s; the vendors' workers used "
            << used << " s of CPU meanwhile");
  CHECK(used < 0.1 * wall);
}
#endif
