// The direct launch path (src/runtime/direct_launch.h) and its data leases:
// commands that skip StarPU must see, and leave, the same data as those that
// do not. Each scenario hands a leased buffer to another user (a host map,
// another device, StarPU's path, a release) and checks the values against a
// CPU reference. ctest also runs this binary with PARASOL_DIRECT=0 (every
// command through StarPU): the same values, and no direct launch counted.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

// Direct commands, by the way they went, summed over every device.
struct Placements {
  cl_ulong with_command = 0, without_command = 0, records = 0;
  cl_ulong direct() const { return with_command + without_command + records; }
};

Placements placements_so_far() {
  Placements sum;
  for (cl_device_id d : devices()) {
    const cl_parasol_device_paths p = device_paths(d);
    sum.with_command += p.direct_with_command;
    sum.without_command += p.direct_without_command;
    sum.records += p.records;
  }
  return sum;
}

// Parasol counts its placement decisions (clGetDevicePathsPARASOL): a test
// can tell that its commands did go direct (an assertion that could not fail
// otherwise). What went direct since the last call.
Placements placements() {
  static Placements seen = placements_so_far();
  const Placements now = placements_so_far();
  const Placements since{now.with_command - seen.with_command,
                         now.without_command - seen.without_command, now.records - seen.records};
  seen = now;
  return since;
}

// The cold-model case below counts launches until a model is calibrated. On
// a loaded 2-core host a kernel's measurements through StarPU vary up to 40x
// (preemption), and StarPU flushes a model of one or two samples at the
// first such outlier, however many it needs: that noise is not what the case
// tests, so this binary never flushes (before Parasol starts StarPU).
const bool kNoFlush = (setenv("STARPU_HISTORY_MAX_ERROR", "100000", 1), true);

bool direct_enabled() {
  const char* v = std::getenv("PARASOL_DIRECT");
  return !(v && std::string(v) == "0");
}

// Direct launches since the last placements(): none when the path is off.
void check_direct_launches(cl_ulong at_least) {
  const cl_ulong direct = placements().direct();
  INFO("direct launches: " << direct);
  if (direct_enabled())
    CHECK(direct >= at_least);
  else
    CHECK(direct == 0);
}

const char* kSource =
    "__kernel void halve_add(__global float* y, float a) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = y[i] * 0.5f + a;\n"
    "}\n";

// y <- y/2 + a, `times` times, on the CPU.
void step_on_cpu(std::vector<float>& y, float a, int times) {
  for (int t = 0; t < times; ++t)
    for (auto& v : y) v = v * 0.5f + a;
}

std::vector<float> initial(size_t n) {
  std::vector<float> y(n);
  for (size_t i = 0; i < n; ++i) y[i] = float(i % 97);
  return y;
}

void enqueue_steps(cl_command_queue q, cl_kernel k, cl_mem y, float a, int times, size_t n) {
  set_args(k, y, a);
  for (int t = 0; t < times; ++t)
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
}

std::vector<float> read_all(cl_command_queue q, cl_mem m, size_t n) {
  std::vector<float> out(n);
  CL_REQUIRE(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof(float), out.data(), 0, nullptr,
                                 nullptr));
  return out;
}

void check_equal(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  size_t wrong = 0, first = got.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != Approx(want[i]).epsilon(1e-6)) {
      if (!wrong) first = i;
      ++wrong;
    }
  INFO(wrong << " values differ, first at " << first);
  CHECK(wrong == 0);
}

// One PoCL device, a device queue on it and the kernel.
struct OneDevice {
  cl_device_id dev = first_pocl();
  Context ctx{{dev}};
  Queue q{ctx, dev};
  Program prog{ctx, kSource};
  Kernel k{prog, "halve_add"};

  static cl_device_id first_pocl() {
    auto devs = pocl_devices();
    REQUIRE(!devs.empty());
    return devs[0];
  }
};

// OneDevice and a buffer of initial(n) values that one step (a = 1) leased
// on its device, the queue finished; want: what the CPU says it holds.
struct LeasedBuffer {
  static constexpr size_t n = 4096;
  OneDevice d;
  std::vector<float> want = initial(n);
  Mem y{d.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), want.data()};
  LeasedBuffer() {
    enqueue_steps(d.q, d.k, y, 1.0f, 1, n);
    step_on_cpu(want, 1.0f, 1);
    CL_REQUIRE(clFinish(d.q));
  }
};

// Two PoCL devices in one context: a device queue on each, a context queue,
// and the kernel.
struct TwoDevices {
  std::vector<cl_device_id> devs = two_pocl();
  Context ctx{{devs[0], devs[1]}};
  Queue qa{ctx, devs[0]}, qb{ctx, devs[1]}, qc{ctx, nullptr};
  Program prog{ctx, kSource};
  Kernel k{prog, "halve_add"};

  static std::vector<cl_device_id> two_pocl() {
    auto devs = pocl_devices();
    REQUIRE(devs.size() >= 2);
    return devs;
  }
};

// A dependent chain of `steps` launches of y <- y/2 + 2 on q, each naming
// the one before in its wait list and returning its event (all kept to the
// end), checked against the CPU (want follows), as is every event: complete,
// its type and queue, run on `device`, a callback on the last. How many
// launches went without a command object.
cl_ulong evented_chain(cl_command_queue q, cl_kernel k, Mem& y, std::vector<float>& want,
                       size_t n, int steps, cl_device_id device) {
  placements();
  std::vector<Event> events(steps);
  set_args(k, y.m, 2.0f);
  for (int i = 0; i < steps; ++i)
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, i ? 1 : 0,
                                      i ? &events[i - 1].e : nullptr, &events[i]));
  step_on_cpu(want, 2.0f, steps);
  static std::atomic<int> completed{0};
  completed = 0;
  CL_REQUIRE(clSetEventCallback(events.back(), CL_COMPLETE,
                                [](cl_event, cl_int status, void*) {
                                  if (status == CL_COMPLETE) ++completed;
                                },
                                nullptr));
  CL_REQUIRE(clWaitForEvents(1, &events.back().e));
  // The kernels' own (the read below may go without a command object too).
  const cl_ulong slim = placements().without_command;
  check_equal(read_all(q, y, n), want);
  for (auto& e : events) {
    CHECK(event_status(e) == CL_COMPLETE);
    cl_command_type type = 0;
    CL_REQUIRE(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
    CHECK(type == CL_COMMAND_NDRANGE_KERNEL);
    cl_command_queue of = nullptr;
    CL_REQUIRE(clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof of, &of, nullptr));
    CHECK(of == q);
    CHECK(ran_on(e) == device);
  }
  CL_REQUIRE(clFinish(q));
  CHECK(completed.load() == 1);
  return slim;
}

}  // namespace

TEST_CASE("a chain on a device queue goes direct and computes what the CPU computes") {
  OneDevice d;
  auto& [dev, ctx, q, prog, k] = d;
  const size_t n = 4096;
  const auto init = initial(n);  // read by the non-blocking write until it completes
  auto want = init;
  Mem y(ctx, CL_MEM_READ_WRITE, n * sizeof(float));
  placements();
  CL_REQUIRE(clEnqueueWriteBuffer(q, y, CL_FALSE, 0, n * sizeof(float), init.data(), 0, nullptr,
                                  nullptr));
  enqueue_steps(q, k, y, 3.0f, 20, n);
  step_on_cpu(want, 3.0f, 20);
  check_equal(read_all(q, y, n), want);
  check_direct_launches(10);  // the first launch leases the buffer; the rest follow it
}

TEST_CASE("an evented chain on a device queue goes direct without command objects, and its "
          "events tell what ran where") {
  LeasedBuffer b;
  auto& [dev, ctx, q, prog, k] = b.d;
  const cl_ulong commands_before = device_stats(dev).commands;
  const cl_ulong tasks_before = device_paths(dev).tasks;
  constexpr int kSteps = 40;
  const cl_ulong slim = evented_chain(q, k, b.y, b.want, b.n, kSteps, dev);
  // Counted once each in the device's statistics, as every command is.
  CHECK(device_stats(dev).commands >= commands_before + kSteps);
  INFO("launches without a command object: " << slim);
  CHECK(slim == cl_ulong(direct_enabled() ? kSteps : 0));
  // Without the direct path each launch is a StarPU task on the device.
  if (!direct_enabled()) CHECK(device_paths(dev).tasks - tasks_before >= cl_ulong(kSteps));
}

// A kernel without data has nothing that ties it to a device: once the
// models know it on every device of the context, a context queue sends it
// straight to the one the models find fastest, as heft would once
// calibrated (an empty kernel through StarPU costs several times the
// vendor's launch).
TEST_CASE("on a context queue a kernel without data goes direct once the models know it") {
  const Policy heft("heft");
  const std::vector<cl_device_id> devs = TwoDevices::two_pocl();
  Context ctx({devs[0], devs[1]}, heft);
  Queue qc(ctx, nullptr);
  // A source no earlier run has seen: the launches below calibrate it.
  Program prog(ctx, fresh_source_tag() +
                        "__kernel void idle(int a, __local int* scratch) {\n"
                        "  if (a < 0) scratch[0] = a;\n"
                        "}\n");
  Kernel k(prog, "idle");
  const int a = 1;
  CL_REQUIRE(clSetKernelArg(k, 0, sizeof a, &a));
  CL_REQUIRE(clSetKernelArg(k, 1, sizeof(int), nullptr));
  const size_t global = 64;
  auto burst = [&](int launches) {
    for (int i = 0; i < launches; ++i)
      CL_REQUIRE(clEnqueueNDRangeKernel(qc, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(qc));
  };
  // Until a burst goes direct whole (StarPU's calibration first gives each
  // device its samples).
  bool direct = false;
  for (int t = 0; t < 60 && !direct; ++t) {
    placements();
    burst(10);
    direct = placements().direct() == 10;
  }
  if (!direct_enabled()) {
    CHECK_FALSE(direct);
    return;
  }
  REQUIRE(direct);
  cl_ulong tasks_before = 0;
  for (cl_device_id d : devs) tasks_before += device_paths(d).tasks;
  placements();
  burst(200);
  CHECK(placements().direct() == 200);
  cl_ulong tasks_after = 0;
  for (cl_device_id d : devs) tasks_after += device_paths(d).tasks;
  CHECK(tasks_after == tasks_before);
}

TEST_CASE("on a context queue an evented chain goes without command objects only where no other "
          "device could take its kernel") {
  const Policy heft("heft");
  constexpr int kSteps = 30;
  const size_t n = 4096;
  auto want = initial(n);
  SECTION("one device: once the models know the kernel, every launch") {
    const cl_device_id dev = OneDevice::first_pocl();
    Context ctx({dev}, heft);
    Queue qc(ctx, nullptr);
    // A source no earlier run has seen: the launches below calibrate it.
    Program prog(ctx, fresh_source_tag() + kSource);
    Kernel k(prog, "halve_add");
    Mem y(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), want.data());
    // Until it goes direct (heft's models calibrated on the device), as
    // "on cold models ... soon goes direct" below.
    std::string via;
    for (int t = 0; t < 40 && via.size() < 6; ++t) {
      placements();
      enqueue_steps(qc, k, y, 1.0f, 1, n);
      step_on_cpu(want, 1.0f, 1);
      CL_REQUIRE(clFinish(qc));
      if (placements().direct() > 0)
        via += 'D';
      else
        via.clear();
    }
    if (!direct_enabled()) {
      CHECK(evented_chain(qc, k, y, want, n, kSteps, dev) == 0);
      return;
    }
    REQUIRE(via.size() == 6);  // six direct launches in a row
    CHECK(evented_chain(qc, k, y, want, n, kSteps, dev) == kSteps);
  }
  SECTION("two devices: none (a device-level failure would place it again)") {
    TwoDevices d;
    Mem y(d.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), want.data());
    // Until the context queue's launches go direct (heft's models know the
    // kernel on both devices; its data then keeps it where it is), so that
    // the chain below could go without command objects if it were let.
    int direct = 0;
    for (int t = 0; t < 60 && direct < 3; ++t) {
      placements();
      enqueue_steps(d.qc, d.k, y, 1.0f, 1, n);
      step_on_cpu(want, 1.0f, 1);
      CL_REQUIRE(clFinish(d.qc));
      direct += placements().direct() > 0;
    }
    INFO("direct launches while warming up: " << direct);
    if (direct_enabled()) REQUIRE(direct == 3);
    std::vector<Event> events(kSteps);
    set_args(d.k, y.m, 2.0f);
    for (int i = 0; i < kSteps; ++i)
      CL_REQUIRE(clEnqueueNDRangeKernel(d.qc, d.k, 1, nullptr, &n, nullptr, i ? 1 : 0,
                                        i ? &events[i - 1].e : nullptr, &events[i]));
    step_on_cpu(want, 2.0f, kSteps);
    CL_REQUIRE(clFinish(d.qc));
    CHECK(placements().without_command == 0);
    check_equal(read_all(d.qc, y, n), want);
    for (auto& e : events) CHECK(event_status(e) == CL_COMPLETE);
  }
}

TEST_CASE("commands held back by a user event go to their device directly once it is set") {
  LeasedBuffer b;
  auto& [dev, ctx, q, prog, k] = b.d;
  const size_t n = b.n;
  auto& want = b.want;
  Mem& y = b.y;
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(ctx, &err);
  CL_REQUIRE(err);
  set_args(k, y.m, 2.0f);
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 1, &gate, nullptr));
  enqueue_steps(q, k, y, 2.0f, 7, n);  // in order behind it: nothing they wait for is queued yet
  step_on_cpu(want, 2.0f, 8);
  placements();
  CL_REQUIRE(clSetUserEventStatus(gate, CL_COMPLETE));
  check_equal(read_all(q, y, n), want);
  // Each launches when the one before completes (from the thread that saw
  // it complete, or off the vendor's callback): to the vendor, not through
  // StarPU.
  check_direct_launches(8);
  clReleaseEvent(gate);
}

TEST_CASE("a host map of a leased buffer sees the direct kernels' results, and they see its writes") {
  OneDevice d;
  auto& [dev, ctx, q, prog, k] = d;
  const size_t n = 2048;
  auto want = initial(n);
  Mem y(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), want.data());
  placements();
  enqueue_steps(q, k, y, 1.0f, 8, n);
  step_on_cpu(want, 1.0f, 8);
  cl_int err = CL_SUCCESS;
  auto* p = static_cast<float*>(clEnqueueMapBuffer(q, y, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                                   n * sizeof(float), 0, nullptr, nullptr, &err));
  CL_REQUIRE(err);
  check_equal(std::vector<float>(p, p + n), want);
  for (size_t i = 0; i < n; ++i) p[i] = float(i);
  CL_REQUIRE(clEnqueueUnmapMemObject(q, y, p, 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i) want[i] = float(i);
  enqueue_steps(q, k, y, 2.0f, 8, n);
  step_on_cpu(want, 2.0f, 8);
  check_equal(read_all(q, y, n), want);
  check_direct_launches(8);
}

TEST_CASE("a buffer leased on one device reaches another device with its latest values") {
  auto devs = pocl_devices();
  REQUIRE(devs.size() >= 2);
  Context ctx({devs[0], devs[1]});
  Queue qa(ctx, devs[0]), qb(ctx, devs[1]);
  Program prog(ctx, kSource);
  Kernel ka(prog, "halve_add"), kb(prog, "halve_add");
  const size_t n = 4096;
  auto want = initial(n);
  Mem y(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), want.data());
  placements();
  // Alternate devices: rounds ordered by clFinish go direct (the buffer's
  // lease moves), rounds ordered by an event from the other device's queue
  // take StarPU's path; both keep one history of the data.
  for (int round = 0; round < 12; ++round) {
    bool on_b = round % 2;
    cl_command_queue q = on_b ? qb.q : qa.q;
    float a = float(round + 1);
    enqueue_steps(q, on_b ? kb.k : ka.k, y, a, 4, n);
    step_on_cpu(want, a, 4);
    if (round < 6) {
      CL_REQUIRE(clFinish(q));
    } else {
      Event marker;
      CL_REQUIRE(clEnqueueMarkerWithWaitList(q, 0, nullptr, &marker));
      CL_REQUIRE(clEnqueueBarrierWithWaitList(on_b ? qa.q : qb.q, 1, &marker.e, nullptr));
    }
  }
  check_equal(read_all(qa, y, n), want);
  check_equal(read_all(qb, y, n), want);
  check_direct_launches(6 * 4);
}

TEST_CASE("host writes on a device queue go to its device, and every later user sees them") {
  TwoDevices d;
  auto& [devs, ctx, qa, qb, qc, prog, k] = d;
  const size_t n = 4096, bytes = n * sizeof(float);
  const auto init = initial(n);
  std::vector<float> patch(n / 4);
  for (size_t i = 0; i < patch.size(); ++i) patch[i] = float(1000 + i);
  const size_t patch_bytes = patch.size() * sizeof(float);
  Mem y(ctx, CL_MEM_READ_WRITE, bytes);
  placements();

  // A whole overwrite of a buffer no device holds: the vendor of qa's
  // device writes it there (the device counts the bytes in), not main RAM.
  const cl_ulong in_before = device_stats(devs[0]).bytes_in;
  Event w;
  CL_REQUIRE(clEnqueueWriteBuffer(qa, y, CL_FALSE, 0, bytes, init.data(), 0, nullptr, &w));
  CL_REQUIRE(clFinish(qa));
  if (direct_enabled()) {
    CHECK(ran_on(w) == devs[0]);
    CHECK(device_stats(devs[0]).bytes_in - in_before >= bytes);
  }
  auto want = init;
  enqueue_steps(qa, k, y, 2.0f, 3, n);
  step_on_cpu(want, 2.0f, 3);
  // A partial write patches the device's copy, after the kernels.
  CL_REQUIRE(clEnqueueWriteBuffer(qa, y, CL_FALSE, bytes / 2, patch_bytes, patch.data(), 0, nullptr,
                                  nullptr));
  std::copy(patch.begin(), patch.end(), want.begin() + n / 2);
  CL_REQUIRE(clFinish(qa));
  // The other device takes the buffer over with the patch in it...
  enqueue_steps(qb, k, y, 1.0f, 2, n);
  step_on_cpu(want, 1.0f, 2);
  CL_REQUIRE(clFinish(qb));
  // ...and a partial write on qa meets the copy qb's device holds now.
  CL_REQUIRE(clEnqueueWriteBuffer(qa, y, CL_TRUE, 0, patch_bytes, patch.data(), 0, nullptr,
                                  nullptr));
  std::copy(patch.begin(), patch.end(), want.begin());
  check_equal(read_all(qc, y, n), want);
  check_equal(read_all(qa, y, n), want);
  check_equal(read_all(qb, y, n), want);
  check_direct_launches(3 + 2 + 2);  // qa's kernels and writes, qb's kernels after the first
}

// Transfers nobody asks about (no event out, no wait list, not blocking) on
// an in-order queue go to the vendor as records, without a Parasol event
// (runtime::submit): the queue's later commands, clFinish and
// the buffer's other users must still find them done.
TEST_CASE("transfers without events go as records, and what follows them finds them done") {
  TwoDevices d;
  auto& [devs, ctx, qa, qb, qc, prog, k] = d;
  const size_t n = 4096, bytes = n * sizeof(float), part = 64;
  auto want = initial(n);
  Mem y(ctx, CL_MEM_COPY_HOST_PTR, bytes, want.data());
  enqueue_steps(qa, k, y, 2.0f, 1, n);  // y leased on devs[0]
  step_on_cpu(want, 2.0f, 1);
  CL_REQUIRE(clFinish(qa));
  placements();

  // Patches of part floats, each with its own values, kept alive until done.
  std::vector<std::vector<float>> patches;
  auto patch = [&](size_t at, float base) {
    patches.emplace_back(part);
    for (size_t i = 0; i < part; ++i) patches.back()[i] = base + float(i);
    CL_REQUIRE(clEnqueueWriteBuffer(qa, y, CL_FALSE, at * sizeof(float), part * sizeof(float),
                                    patches.back().data(), 0, nullptr, nullptr));
    std::copy(patches.back().begin(), patches.back().end(), want.begin() + at);
  };
  // A stream of writes (overlapping ones too: their order matters), then a
  // kernel behind them on the same device.
  for (int i = 0; i < 40; ++i) patch(size_t(i) * 48 % (n - part), 1000.0f * float(i + 1));
  enqueue_steps(qa, k, y, 1.0f, 1, n);
  step_on_cpu(want, 1.0f, 1);
  // Records, then a command that cannot go to the vendor (a map, on
  // StarPU's path): it waits for them.
  for (int i = 0; i < 8; ++i) patch(size_t(i) * 200, -500.0f * float(i + 1));
  cl_int err = CL_SUCCESS;
  auto* mapped = static_cast<float*>(clEnqueueMapBuffer(qa, y, CL_TRUE, CL_MAP_READ, 0, bytes, 0,
                                                        nullptr, nullptr, &err));
  CL_REQUIRE(err);
  check_equal(std::vector<float>(mapped, mapped + n), want);
  CL_REQUIRE(clEnqueueUnmapMemObject(qa, y, mapped, 0, nullptr, nullptr));

  // Records, then clFinish: a read without an event has landed when it returns.
  enqueue_steps(qa, k, y, 3.0f, 1, n);
  step_on_cpu(want, 3.0f, 1);
  for (int i = 0; i < 8; ++i) patch(size_t(i) * 300 + 7, 77.0f * float(i + 1));
  std::vector<float> got(n, -1.0f);
  for (size_t at = 0; at < n; at += n / 4)
    CL_REQUIRE(clEnqueueReadBuffer(qa, y, CL_FALSE, at * sizeof(float), n / 4 * sizeof(float),
                                   got.data() + at, 0, nullptr, nullptr));
  CL_REQUIRE(clFinish(qa));
  check_equal(got, want);

  // Records, then a marker with an event: once it completes, the writes
  // have read their host memory (scribbled over here: data the vendor
  // still had to read would show), and another device's queue (no order
  // with qa) finds every one of them in the data.
  // A long kernel on another buffer first keeps the vendor from reading
  // them at once.
  Program slow_prog(ctx,
                    "__kernel void spin(__global float* z, int n) {\n"
                    "  float v = z[get_global_id(0)];\n"
                    "  for (int i = 0; i < n; ++i) v = v * 0.999f + 0.001f;\n"
                    "  z[get_global_id(0)] = v;\n"
                    "}\n");
  Kernel spin(slow_prog, "spin");
  Mem z(ctx, CL_MEM_READ_WRITE, 64 * sizeof(float));
  const size_t spinners = 64;
  set_args(spin, z.m, 1 << 20);
  CL_REQUIRE(clEnqueueNDRangeKernel(qa, spin, 1, nullptr, &spinners, nullptr, 0, nullptr, nullptr));
  patches.clear();
  patches.reserve(200);
  for (int i = 0; i < 200; ++i) patch(size_t(i) * 17 % (n - part), 9.0f * float(i + 1));
  Event m;
  CL_REQUIRE(clEnqueueMarkerWithWaitList(qa, 0, nullptr, &m));
  CL_REQUIRE(clWaitForEvents(1, &m.e));
  for (auto& p : patches) std::fill(p.begin(), p.end(), -7.0f);
  enqueue_steps(qb, k, y, 0.5f, 1, n);
  step_on_cpu(want, 0.5f, 1);
  check_equal(read_all(qb, y, n), want);
  check_equal(read_all(qc, y, n), want);

  const cl_ulong records = placements().records;
  INFO("records: " << records);
  if (direct_enabled())
    CHECK(records >= 40 + 8 + 8 + 4 + 200);
  else
    CHECK(records == 0);
}

// Transfers with events, wait lists or blocking on a leased buffer go to
// their device without a command object too (DirectTransfer::
// record_with_event()): a write a kernel waits for, a read waiting for that
// kernel, a copy; their events say what ran where, a callback sees the end,
// and the data is the CPU's. A blocking read without an event after them is
// a record (the vendor's blocking call waits).
TEST_CASE("transfers with events go direct without command objects, ordered by their wait lists") {
  LeasedBuffer b;
  auto& [dev, ctx, q, prog, k] = b.d;
  const size_t n = b.n, part = 256;
  Mem z(ctx, CL_MEM_READ_WRITE, n * sizeof(float));
  enqueue_steps(q, k, z, 0.0f, 1, n);  // z leased on dev too (its values overwritten below)
  CL_REQUIRE(clFinish(q));
  placements();

  // Write a patch (event w), a kernel after w (event s), a copy y -> z after
  // s (event c), a read of z after c (event r): a chain of four kinds.
  std::vector<float> patch(part);
  for (size_t i = 0; i < part; ++i) patch[i] = 500.0f + float(i);
  const size_t at = 1000;
  Event w, s, c, r;
  CL_REQUIRE(clEnqueueWriteBuffer(q, b.y, CL_FALSE, at * sizeof(float), part * sizeof(float),
                                  patch.data(), 0, nullptr, &w));
  std::copy(patch.begin(), patch.end(), b.want.begin() + at);
  set_args(k, b.y.m, 4.0f);
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 1, &w.e, &s));
  step_on_cpu(b.want, 4.0f, 1);
  CL_REQUIRE(clEnqueueCopyBuffer(q, b.y, z, 0, 0, n * sizeof(float), 1, &s.e, &c));
  std::vector<float> got(n, -1.0f);
  CL_REQUIRE(clEnqueueReadBuffer(q, z, CL_FALSE, 0, n * sizeof(float), got.data(), 1, &c.e, &r));
  static std::atomic<int> ended{0};
  ended = 0;
  CL_REQUIRE(clSetEventCallback(r, CL_COMPLETE,
                                [](cl_event, cl_int status, void*) {
                                  if (status == CL_COMPLETE) ++ended;
                                },
                                nullptr));
  CL_REQUIRE(clWaitForEvents(1, &r.e));
  check_equal(got, b.want);
  const std::pair<cl_event, cl_command_type> kinds[] = {{w.e, CL_COMMAND_WRITE_BUFFER},
                                                        {s.e, CL_COMMAND_NDRANGE_KERNEL},
                                                        {c.e, CL_COMMAND_COPY_BUFFER},
                                                        {r.e, CL_COMMAND_READ_BUFFER}};
  for (const auto& [e, type] : kinds) {
    CHECK(event_status(e) == CL_COMPLETE);
    cl_command_type t = 0;
    CL_REQUIRE(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof t, &t, nullptr));
    CHECK(t == type);
    // Through StarPU the host does the transfers (no device ran them).
    const bool on_device = direct_enabled() || type == CL_COMMAND_NDRANGE_KERNEL;
    CHECK(ran_on(e) == (on_device ? dev : nullptr));
  }

  // A blocking read of part of y, without an event: the values on return
  // (a record: the vendor's own blocking call waits, no event needed).
  std::vector<float> head(part, -1.0f);
  CL_REQUIRE(clEnqueueReadBuffer(q, b.y, CL_TRUE, at * sizeof(float), part * sizeof(float),
                                 head.data(), 0, nullptr, nullptr));
  check_equal(head, std::vector<float>(b.want.begin() + at, b.want.begin() + at + part));
  CL_REQUIRE(clFinish(q));
  CHECK(ended.load() == 1);

  const Placements went = placements();
  INFO(went.with_command << " direct with a command object, " << went.records << " records");
  // w, s, c and r; the blocking read goes as a record.
  CHECK(went.without_command == (direct_enabled() ? 4u : 0u));
  CHECK(went.records == (direct_enabled() ? 1u : 0u));
}

// Writes with events that nobody waits for go without vendor events of
// their own, completed by a later proof of their lane (runtime/lane.h).
// Asked about, they must progress all the same, without the application
// flushing or finishing anything: a loop polling an event's status ends,
// a callback set on one fires, and statuses only move forward.
TEST_CASE("writes with events nobody waits for complete when polled, and fire their callbacks") {
  LeasedBuffer b;
  auto& q = b.d.q;
  const size_t part = 16;
  constexpr int kWrites = 300;
  std::vector<std::vector<float>> patches(kWrites, std::vector<float>(part));
  std::vector<Event> events(kWrites);
  for (int i = 0; i < kWrites; ++i) {
    const size_t at = (size_t(i) * part) % b.n;
    for (size_t j = 0; j < part; ++j) patches[i][j] = float(i) * 1000.0f + float(j);
    CL_REQUIRE(clEnqueueWriteBuffer(q, b.y, CL_FALSE, at * sizeof(float), part * sizeof(float),
                                    patches[i].data(), 0, nullptr, &events[i]));
    std::copy(patches[i].begin(), patches[i].end(), b.want.begin() + at);
  }
  // A callback on one in the middle: it fires with nothing else asked.
  static std::atomic<int> fired{0};
  fired = 0;
  CL_REQUIRE(clSetEventCallback(events[kWrites / 2], CL_COMPLETE,
                                [](cl_event, cl_int status, void*) {
                                  if (status == CL_COMPLETE) ++fired;
                                },
                                nullptr));
  // Polling the last one: its status moves only forward and reaches
  // CL_COMPLETE within the bound.
  cl_int last = CL_QUEUED;
  const auto start = std::chrono::steady_clock::now();
  bool monotonic = true;
  for (;;) {
    const cl_int now = event_status(events.back());
    REQUIRE((now == CL_QUEUED || now == CL_SUBMITTED || now == CL_RUNNING || now == CL_COMPLETE));
    monotonic = monotonic && now <= last;
    last = now;
    if (now == CL_COMPLETE) break;
    REQUIRE(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
  }
  CHECK(monotonic);
  const auto fire_start = std::chrono::steady_clock::now();
  while (fired.load() == 0 &&
         std::chrono::steady_clock::now() - fire_start < std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(fired.load() == 1);
  // The queue is in order: every write before the last is complete too.
  for (auto& e : events) CHECK(event_status(e) == CL_COMPLETE);
  check_equal(read_all(q, b.y, b.n), b.want);
  CL_REQUIRE(clFinish(q));
  CHECK(fired.load() == 1);
}

// A write with an event, named in the wait lists of commands on another
// queue of the same device (another lane, with PARASOL_LANES=4) and on
// another device: they run after it and see what it wrote, with nothing
// but the wait lists ordering them.
TEST_CASE("a write with an event orders commands of other queues and devices that name it") {
  TwoDevices t;
  const size_t n = 1024;
  std::vector<float> want = initial(n);
  Mem y(t.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), want.data());
  enqueue_steps(t.qa, t.k, y, 1.0f, 1, n);  // y leased on the first device
  step_on_cpu(want, 1.0f, 1);
  CL_REQUIRE(clFinish(t.qa));
  Queue qa2(t.ctx, t.devs[0]);
  for (int round = 0; round < 20; ++round) {
    std::vector<float> patch(n);
    for (size_t i = 0; i < n; ++i) patch[i] = float(round * 10) + float(i % 7);
    Event w, s;
    CL_REQUIRE(clEnqueueWriteBuffer(t.qa, y, CL_FALSE, 0, n * sizeof(float), patch.data(), 0,
                                    nullptr, &w));
    want = patch;
    // The step on another queue of the same device, after the write.
    set_args(t.k, y.m, 3.0f);
    CL_REQUIRE(clEnqueueNDRangeKernel(qa2, t.k, 1, nullptr, &n, nullptr, 1, &w.e, &s));
    step_on_cpu(want, 3.0f, 1);
    // A read on the other device, after the step (which names the write).
    std::vector<float> got(n, -1.0f);
    CL_REQUIRE(clEnqueueReadBuffer(t.qb, y, CL_TRUE, 0, n * sizeof(float), got.data(), 1, &s.e,
                                   nullptr));
    check_equal(got, want);
    CHECK(event_status(w) == CL_COMPLETE);
    CHECK(event_status(s) == CL_COMPLETE);
  }
  CL_REQUIRE(clFinish(t.qa));
  CL_REQUIRE(clFinish(qa2));
}

// A blocking read or write larger than what the vendor's own blocking call
// takes (DirectTransfer::kVendorBlockingBytes, 4 MiB) waits on its own
// vendor event instead: the data is there on return all the same.
TEST_CASE("a large blocking write and read of a leased buffer return with the data in place") {
  OneDevice d;
  auto& [dev, ctx, q, prog, k] = d;
  const size_t n = (5u << 20) / sizeof(float);
  auto want = initial(n);
  Mem y(ctx, CL_MEM_READ_WRITE, n * sizeof(float));
  CL_REQUIRE(clEnqueueWriteBuffer(q, y, CL_TRUE, 0, n * sizeof(float), want.data(), 0, nullptr,
                                  nullptr));
  enqueue_steps(q, k, y, 1.0f, 1, n);  // leased on dev
  step_on_cpu(want, 1.0f, 1);
  CL_REQUIRE(clFinish(q));
  placements();
  std::vector<float> patch(n, 0.0f);
  for (size_t i = 0; i < n; ++i) patch[i] = float(i % 89) + 0.25f;
  CL_REQUIRE(clEnqueueWriteBuffer(q, y, CL_TRUE, 0, n * sizeof(float), patch.data(), 0, nullptr,
                                  nullptr));
  std::fill(patch.begin(), patch.end(), -1.0f);  // the write had read it by its return
  want.assign(n, 0.0f);
  for (size_t i = 0; i < n; ++i) want[i] = float(i % 89) + 0.25f;
  enqueue_steps(q, k, y, 2.0f, 1, n);
  step_on_cpu(want, 2.0f, 1);
  check_equal(read_all(q, y, n), want);
  const Placements went = placements();
  INFO(went.with_command << " direct with a command object, " << went.records << " records");
  // The blocking write and read_all()'s blocking read.
  CHECK(went.without_command == (direct_enabled() ? 2u : 0u));
}

// Fills of a leased buffer go to its device's vendor (clEnqueueFillBuffer)
// instead of filling main RAM and moving the buffer back: a whole-buffer
// fill, then a kernel, partial fills with patterns of 1, 8 and 16 bytes
// (without an event, with one, behind a wait list), a kernel after them;
// the data is the CPU's, and the device moved no byte to or from the host.
TEST_CASE("fills of a leased buffer are done by its device's vendor") {
  LeasedBuffer b;
  auto& [dev, ctx, q, prog, k] = b.d;
  const size_t n = b.n;
  placements();
  const cl_parasol_device_stats before = device_stats(dev);

  const float seven = 7.0f;
  CL_REQUIRE(clEnqueueFillBuffer(q, b.y, &seven, sizeof seven, 0, n * sizeof(float), 0, nullptr,
                                 nullptr));
  std::fill(b.want.begin(), b.want.end(), seven);
  enqueue_steps(q, k, b.y, 1.0f, 1, n);
  step_on_cpu(b.want, 1.0f, 1);
  // Byte patterns, written over the floats' bytes as the CPU would.
  auto fill_bytes = [&](size_t at, const std::vector<unsigned char>& pattern, size_t bytes) {
    auto* raw = reinterpret_cast<unsigned char*>(b.want.data());
    for (size_t i = 0; i < bytes; ++i) raw[at + i] = pattern[i % pattern.size()];
  };
  const std::vector<unsigned char> one{0x40}, eight{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40},
      sixteen{0, 0, 0x40, 0x40, 0, 0, 0x80, 0x40, 0, 0, 0xa0, 0x40, 0, 0, 0xc0, 0x40};
  Event e8, e16;
  CL_REQUIRE(clEnqueueFillBuffer(q, b.y, one.data(), 1, 64, 256, 0, nullptr, nullptr));
  fill_bytes(64, one, 256);
  CL_REQUIRE(clEnqueueFillBuffer(q, b.y, eight.data(), 8, 1024, 4096, 0, nullptr, &e8));
  fill_bytes(1024, eight, 4096);
  CL_REQUIRE(clEnqueueFillBuffer(q, b.y, sixteen.data(), 16, 8192, 160, 1, &e8.e, &e16));
  fill_bytes(8192, sixteen, 160);
  enqueue_steps(q, k, b.y, 0.5f, 1, n);
  step_on_cpu(b.want, 0.5f, 1);
  CL_REQUIRE(clFinish(q));
  CHECK(event_status(e8) == CL_COMPLETE);
  CHECK(event_status(e16) == CL_COMPLETE);
  if (direct_enabled()) {
    CHECK(ran_on(e8) == dev);
    const cl_parasol_device_stats after = device_stats(dev);
    CHECK(after.bytes_in == before.bytes_in);
    CHECK(after.bytes_out == before.bytes_out);
  }
  const Placements went = placements();
  INFO(went.with_command << " with a command object, " << went.without_command << " without, "
                         << went.records << " records");
  // The four fills and the two kernels, each to the device's vendor.
  CHECK(went.direct() == (direct_enabled() ? 4u + 2u : 0u));
  check_equal(read_all(q, b.y, n), b.want);
}

// The CPU's *Rect copy: a box of `box` (bytes, rows, slices) from src at
// src_at to dst at dst_at, each side with its own pitches.
void copy_box(std::byte* dst, const size_t dst_at[3], size_t dst_row, size_t dst_slice,
              const std::byte* src, const size_t src_at[3], size_t src_row, size_t src_slice,
              const size_t box[3]) {
  for (size_t zz = 0; zz < box[2]; ++zz)
    for (size_t yy = 0; yy < box[1]; ++yy)
      for (size_t xx = 0; xx < box[0]; ++xx)
        dst[(dst_at[2] + zz) * dst_slice + (dst_at[1] + yy) * dst_row + dst_at[0] + xx] =
            src[(src_at[2] + zz) * src_slice + (src_at[1] + yy) * src_row + src_at[0] + xx];
}

// The *Rect reads, writes and copies of leased buffers go to their device's
// vendor too: a box written from a pitched host array, a box copied to
// another leased buffer, a box read back into another pitched array
// (blocking), and a kernel after them, against the CPU doing the same; the
// device moves only the boxes' bytes to and from the host, not the buffers.
TEST_CASE("rect reads, writes and copies of leased buffers are done by their device's vendor") {
  LeasedBuffer b;
  auto& [dev, ctx, q, prog, k] = b.d;
  const size_t n = b.n;  // 16,384 bytes: 8 slices of 8 rows of 256 bytes
  const size_t row = 256, slice = 8 * row;
  auto zwant = initial(n);
  Mem z(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), zwant.data());
  enqueue_steps(q, k, z, 0.0f, 1, n);  // z leased on dev too
  step_on_cpu(zwant, 0.0f, 1);
  CL_REQUIRE(clFinish(q));
  placements();
  const cl_parasol_device_stats before = device_stats(dev);
  auto* y_bytes = reinterpret_cast<std::byte*>(b.want.data());
  auto* z_bytes = reinterpret_cast<std::byte*>(zwant.data());

  // A host array of 3 slices of 5 rows of 100 bytes.
  const size_t hrow = 100, hslice = 5 * hrow;
  std::vector<std::byte> host(3 * hslice);
  for (size_t i = 0; i < host.size(); ++i) host[i] = std::byte(i * 7 % 251);
  const size_t box[3] = {48, 3, 2};
  const size_t y_at[3] = {16, 2, 1}, h_at[3] = {4, 1, 0};
  CL_REQUIRE(clEnqueueWriteBufferRect(q, b.y, CL_FALSE, y_at, h_at, box, row, slice, hrow, hslice,
                                      host.data(), 0, nullptr, nullptr));
  copy_box(y_bytes, y_at, row, slice, host.data(), h_at, hrow, hslice, box);
  // y's box (the written one among it) to z, with an event.
  const size_t copy_box_size[3] = {64, 4, 3}, from[3] = {8, 1, 0}, to[3] = {100, 3, 4};
  Event c;
  CL_REQUIRE(clEnqueueCopyBufferRect(q, b.y, z, from, to, copy_box_size, row, slice, row, slice,
                                     0, nullptr, &c));
  copy_box(z_bytes, to, row, slice, y_bytes, from, row, slice, copy_box_size);
  // Back from z into another pitched array, blocking.
  const size_t orow = 80, oslice = 6 * orow;
  std::vector<std::byte> out(4 * oslice, std::byte{0}), want_out = out;
  const size_t read_box[3] = {72, 5, 3}, z_at[3] = {96, 2, 3}, o_at[3] = {2, 0, 1};
  CL_REQUIRE(clEnqueueReadBufferRect(q, z, CL_TRUE, z_at, o_at, read_box, row, slice, orow, oslice,
                                     out.data(), 0, nullptr, nullptr));
  copy_box(want_out.data(), o_at, orow, oslice, z_bytes, z_at, row, slice, read_box);
  CHECK(out == want_out);
  CHECK(event_status(c) == CL_COMPLETE);
  // The kernel sees every box in place.
  enqueue_steps(q, k, b.y, 1.0f, 1, n);
  step_on_cpu(b.want, 1.0f, 1);
  enqueue_steps(q, k, z, 1.0f, 1, n);
  step_on_cpu(zwant, 1.0f, 1);
  CL_REQUIRE(clFinish(q));
  const cl_parasol_device_stats after = device_stats(dev);
  const Placements went = placements();
  INFO(went.with_command << " with a command object, " << went.without_command << " without, "
                         << went.records << " records");
  // The three boxes and the two kernels, each to the device's vendor.
  CHECK(went.direct() == (direct_enabled() ? 3u + 2u : 0u));
  if (direct_enabled()) {
    CHECK(after.bytes_in - before.bytes_in == box[0] * box[1] * box[2]);
    CHECK(after.bytes_out - before.bytes_out == read_box[0] * read_box[1] * read_box[2]);
  }
  check_equal(read_all(q, b.y, n), b.want);
  check_equal(read_all(q, z, n), zwant);
}

// A copy within one leased buffer, and between two sub-buffers of it, is
// its device's vendor's too (one lease for both sides), linear and rect;
// the data is the CPU's and nothing travels to or from the host.
// A map of part of a leased buffer: its device's vendor reads the mapped
// bytes into the staging and the unmap writes them back, so the buffer stays
// on the device and only those bytes cross the bus (StarPU's way brought
// the whole buffer to main RAM and sent it back to the next kernel). An
// invalidating map reads nothing at all.
TEST_CASE("a partial map of a leased buffer moves only its bytes, through its device's vendor") {
  LeasedBuffer b;
  auto& [dev, ctx, q, prog, k] = b.d;
  const size_t n = b.n, first = 1024, count_mapped = 512;
  const size_t bytes = count_mapped * sizeof(float);
  placements();
  const cl_parasol_device_stats before = device_stats(dev);

  cl_int err = CL_SUCCESS;
  auto* p = static_cast<float*>(clEnqueueMapBuffer(q, b.y, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                                   first * sizeof(float), bytes, 0, nullptr,
                                                   nullptr, &err));
  CL_REQUIRE(err);
  check_equal(std::vector<float>(p, p + count_mapped),
              std::vector<float>(b.want.begin() + first, b.want.begin() + first + count_mapped));
  for (size_t i = 0; i < count_mapped; ++i) p[i] = float(i % 17);
  Event unmapped;
  CL_REQUIRE(clEnqueueUnmapMemObject(q, b.y, p, 0, nullptr, &unmapped));
  for (size_t i = 0; i < count_mapped; ++i) b.want[first + i] = float(i % 17);
  // A second map, read-only and not blocking, waited for through its event.
  Event mapped;
  auto* r = static_cast<float*>(clEnqueueMapBuffer(q, b.y, CL_FALSE, CL_MAP_READ, 0,
                                                   16 * sizeof(float), 0, nullptr, &mapped, &err));
  CL_REQUIRE(err);
  CL_REQUIRE(clWaitForEvents(1, &mapped.e));
  check_equal(std::vector<float>(r, r + 16), std::vector<float>(b.want.begin(), b.want.begin() + 16));
  CL_REQUIRE(clEnqueueUnmapMemObject(q, b.y, r, 0, nullptr, nullptr));
  // An invalidating map reads nothing; its unmap writes the region.
  auto* w = static_cast<float*>(clEnqueueMapBuffer(q, b.y, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION,
                                                   64 * sizeof(float), 32 * sizeof(float), 0,
                                                   nullptr, nullptr, &err));
  CL_REQUIRE(err);
  for (size_t i = 0; i < 32; ++i) w[i] = -float(i);
  Event rewritten;
  CL_REQUIRE(clEnqueueUnmapMemObject(q, b.y, w, 0, nullptr, &rewritten));
  for (size_t i = 0; i < 32; ++i) b.want[64 + i] = -float(i);
  CL_REQUIRE(clFinish(q));
  CHECK(event_status(unmapped) == CL_COMPLETE);
  CHECK(event_status(rewritten) == CL_COMPLETE);
  if (direct_enabled()) {
    CHECK(ran_on(unmapped) == dev);
    CHECK(ran_on(mapped) == dev);
    CHECK(ran_on(rewritten) == dev);
    const cl_parasol_device_stats after = device_stats(dev);
    CHECK(after.bytes_out - before.bytes_out == bytes + 16 * sizeof(float));
    CHECK(after.bytes_in - before.bytes_in == bytes + 32 * sizeof(float));
  }
  const Placements went = placements();
  INFO(went.with_command << " with a command object, " << went.without_command << " without, "
                         << went.records << " records");
  CHECK(went.direct() == (direct_enabled() ? 4u : 0u));
  enqueue_steps(q, k, b.y, 0.5f, 1, n);
  step_on_cpu(b.want, 0.5f, 1);
  check_equal(read_all(q, b.y, n), b.want);
}

TEST_CASE("copies within one leased buffer and between its sub-buffers stay on its device") {
  LeasedBuffer b;
  auto& [dev, ctx, q, prog, k] = b.d;
  const size_t n = b.n, half = n / 2 * sizeof(float);
  placements();
  const cl_parasol_device_stats before = device_stats(dev);
  auto* bytes = reinterpret_cast<std::byte*>(b.want.data());

  CL_REQUIRE(clEnqueueCopyBuffer(q, b.y, b.y, 64, half + 128, 1024, 0, nullptr, nullptr));
  std::memmove(bytes + half + 128, bytes + 64, 1024);
  cl_buffer_region lo{0, half}, hi{half, half};
  cl_int err = CL_SUCCESS;
  Mem first(clCreateSubBuffer(b.y, 0, CL_BUFFER_CREATE_TYPE_REGION, &lo, &err));
  CL_REQUIRE(err);
  Mem second(clCreateSubBuffer(b.y, 0, CL_BUFFER_CREATE_TYPE_REGION, &hi, &err));
  CL_REQUIRE(err);
  Event c;
  CL_REQUIRE(clEnqueueCopyBuffer(q, second, first, 256, 512, 2048, 0, nullptr, &c));
  std::memmove(bytes + 512, bytes + half + 256, 2048);
  const size_t from[3] = {0, 0, 0}, to[3] = {32, 4, 0}, box[3] = {64, 3, 1};
  CL_REQUIRE(clEnqueueCopyBufferRect(q, first, second, from, to, box, 256, 0, 256, 0, 0, nullptr,
                                     nullptr));
  for (size_t row = 0; row < box[1]; ++row)
    std::memmove(bytes + half + (to[1] + row) * 256 + to[0], bytes + row * 256, box[0]);
  enqueue_steps(q, k, b.y, 1.0f, 1, n);
  step_on_cpu(b.want, 1.0f, 1);
  CL_REQUIRE(clFinish(q));
  CHECK(event_status(c) == CL_COMPLETE);
  const cl_parasol_device_stats after = device_stats(dev);
  const Placements went = placements();
  INFO(went.with_command << " with a command object, " << went.without_command << " without, "
                         << went.records << " records");
  // The three copies and the kernel, each to the device's vendor.
  CHECK(went.direct() == (direct_enabled() ? 3u + 1u : 0u));
  if (direct_enabled()) {
    CHECK(after.bytes_in == before.bytes_in);
    CHECK(after.bytes_out == before.bytes_out);
  }
  check_equal(read_all(q, b.y, n), b.want);
}

// A queue whose very first commands go as records (another queue's kernels
// left the buffer leased on the device): its clFinish still waits for them,
// their ends included (the device counts every one of them by then).
TEST_CASE("a new queue's first commands may be records, and its clFinish waits for them") {
  TwoDevices d;
  auto& [devs, ctx, qa, qb, qc, prog, k] = d;
  const size_t n = 1 << 16;
  auto want = initial(n);
  Mem y(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), want.data());
  enqueue_steps(qa, k, y, 2.0f, 1, n);  // y leased on devs[0]
  step_on_cpu(want, 2.0f, 1);
  CL_REQUIRE(clFinish(qa));
  placements();
  const cl_ulong before = device_stats(devs[0]).commands;
  constexpr int kSteps = 24;
  {
    Queue fresh(ctx, devs[0]);
    enqueue_steps(fresh, k, y, 1.0f, kSteps, n);
    step_on_cpu(want, 1.0f, kSteps);
    CL_REQUIRE(clFinish(fresh));
    CHECK(device_stats(devs[0]).commands - before == cl_ulong(kSteps));
  }
  const cl_ulong records = placements().records;
  if (direct_enabled()) CHECK(records == cl_ulong(kSteps));
  check_equal(read_all(qb, y, n), want);
}

// Two queues of one device share its lane (PoCL: one). A read without an
// event joins it without an entry (RecordEnd): the clFinish of its queue
// must wait for it even while the other queue's clFinish, begun first, is
// still finishing the same vendor queue, behind a long write. (A flag the
// first drain cleared as it began let the second return at once: the read's
// host memory still held its old bytes.)
TEST_CASE("a queue's clFinish waits for its records while another queue's clFinish of the lane "
          "is under way") {
  OneDevice d;
  auto& [dev, ctx, qa, prog, k] = d;
  Queue qb(ctx, dev);
  const size_t big = size_t{64} << 20, n = 1024;
  std::vector<float> slab(big / sizeof(float), 3.0f);
  Mem a(ctx, CL_MEM_READ_WRITE, big);
  auto want = initial(n);
  Mem y(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), want.data());
  // Both leased on the device: a kernel over each.
  CL_REQUIRE(clEnqueueWriteBuffer(qa, a, CL_TRUE, 0, big, slab.data(), 0, nullptr, nullptr));
  enqueue_steps(qa, k, a, 1.0f, 1, n);
  enqueue_steps(qa, k, y, 1.0f, 1, n);
  step_on_cpu(want, 1.0f, 1);
  CL_REQUIRE(clFinish(qa));
  placements();
  for (int round = 0; round < 3; ++round) {
    std::vector<float> got(n, -1.0f);
    // A long write on qa, then qb's read behind it in the lane.
    CL_REQUIRE(clEnqueueWriteBuffer(qa, a, CL_FALSE, 0, big, slab.data(), 0, nullptr, nullptr));
    CL_REQUIRE(clEnqueueReadBuffer(qb, y, CL_FALSE, 0, n * sizeof(float), got.data(), 0, nullptr,
                                   nullptr));
    std::thread first([&] { CHECK(clFinish(qa) == CL_SUCCESS); });
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    CL_REQUIRE(clFinish(qb));
    const std::vector<float> seen = got;  // before anything else may complete it
    first.join();
    check_equal(seen, want);
  }
  const cl_ulong records = placements().records;
  if (direct_enabled()) CHECK(records == 6u);
}

TEST_CASE("a context-queue write goes where the data is under heft, to main RAM under eager") {
  auto devs = pocl_devices();
  REQUIRE(devs.size() >= 2);
  for (const char* policy : {"heft", "eager"}) {
    const bool data_aware = std::string(policy) == "heft";
    INFO("policy " << policy);
    cl_context_properties props[] = {CL_CONTEXT_SCHEDULER_PARASOL,
                                      reinterpret_cast<cl_context_properties>(policy), 0};
    Context ctx({devs[0], devs[1]}, props);
    Queue qb(ctx, devs[1]), qc(ctx, nullptr);
    Program prog(ctx, kSource);
    Kernel k(prog, "halve_add");
    const size_t n = 2048, bytes = n * sizeof(float);
    const auto init = initial(n);
    auto want = init;
    Mem y(ctx, CL_MEM_COPY_HOST_PTR, bytes, want.data());
    enqueue_steps(qb, k, y, 1.0f, 2, n);  // the data ends up on devs[1]...
    step_on_cpu(want, 1.0f, 2);
    CL_REQUIRE(clFinish(qb));
    // ...and, migrated to the host, valid in main RAM too (a map reads a
    // leased buffer's bytes from its device, and leaves main RAM as it was).
    CL_REQUIRE(clEnqueueMigrateMemObjects(qc, 1, &y.m, CL_MIGRATE_MEM_OBJECT_HOST, 0, nullptr,
                                          nullptr));
    cl_int err = CL_SUCCESS;
    auto* p = static_cast<float*>(clEnqueueMapBuffer(qc, y, CL_TRUE, CL_MAP_READ, 0, bytes, 0,
                                                     nullptr, nullptr, &err));
    CL_REQUIRE(err);
    check_equal(std::vector<float>(p, p + n), want);
    CL_REQUIRE(clEnqueueUnmapMemObject(qc, y, p, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(qc));

    Event w;
    CL_REQUIRE(clEnqueueWriteBuffer(qc, y, CL_FALSE, 0, bytes, init.data(), 0, nullptr, &w));
    CL_REQUIRE(clFinish(qc));
    if (direct_enabled()) CHECK(ran_on(w) == (data_aware ? devs[1] : nullptr));
    want = init;
    check_equal(read_all(qc, y, n), want);
    Event after;
    set_args(k, y, 0.5f);
    CL_REQUIRE(clEnqueueNDRangeKernel(qc, k, 1, nullptr, &n, nullptr, 0, nullptr, &after));
    step_on_cpu(want, 0.5f, 1);
    check_equal(read_all(qc, y, n), want);
    check_equal(read_all(qb, y, n), want);
  }
}

TEST_CASE("a copy between buffers on a device is done by its vendor, and later users see it") {
  TwoDevices d;
  auto& [devs, ctx, qa, qb, qc, prog, k] = d;
  const size_t n = 4096, bytes = n * sizeof(float), quarter = n / 4;
  auto want_a = initial(n);
  std::vector<float> want_b(n);
  for (size_t i = 0; i < n; ++i) want_b[i] = float(3 * i);
  Mem a(ctx, CL_MEM_COPY_HOST_PTR, bytes, want_a.data());
  Mem b(ctx, CL_MEM_COPY_HOST_PTR, bytes, want_b.data());
  enqueue_steps(qa, k, a, 2.0f, 2, n);  // both leased on devs[0]
  step_on_cpu(want_a, 2.0f, 2);
  enqueue_steps(qa, k, b, 1.0f, 1, n);
  step_on_cpu(want_b, 1.0f, 1);

  // The second quarter of a into the third of b, behind the kernels.
  Event c;
  CL_REQUIRE(clEnqueueCopyBuffer(qa, a, b, quarter * sizeof(float), 2 * quarter * sizeof(float),
                                 quarter * sizeof(float), 0, nullptr, &c));
  std::copy_n(want_a.begin() + quarter, quarter, want_b.begin() + 2 * quarter);
  CL_REQUIRE(clFinish(qa));
  if (direct_enabled()) CHECK(ran_on(c) == devs[0]);
  // a stays on devs[0], b goes to devs[1]: a copy on qb brings a there.
  enqueue_steps(qa, k, a, 3.0f, 1, n);
  step_on_cpu(want_a, 3.0f, 1);
  enqueue_steps(qb, k, b, 0.5f, 1, n);
  step_on_cpu(want_b, 0.5f, 1);
  CL_REQUIRE(clFinish(qa));
  CL_REQUIRE(clFinish(qb));
  CL_REQUIRE(clEnqueueCopyBuffer(qb, a, b, 0, 0, quarter * sizeof(float), 0, nullptr, &c));
  std::copy_n(want_a.begin(), quarter, want_b.begin());
  enqueue_steps(qb, k, b, 0.25f, 1, n);
  step_on_cpu(want_b, 0.25f, 1);
  CL_REQUIRE(clFinish(qb));
  if (direct_enabled()) CHECK(ran_on(c) == devs[1]);
  check_equal(read_all(qc, a, n), want_a);
  check_equal(read_all(qc, b, n), want_b);
  check_equal(read_all(qa, b, n), want_b);
}

TEST_CASE("a leased buffer used by a context queue's StarPU task keeps one history") {
  auto devs = pocl_devices();
  REQUIRE(!devs.empty());
  const Policy eager("eager");
  Context ctx({devs[0]}, eager);
  Queue dq(ctx, devs[0]);
  Queue cq(ctx, nullptr);  // eager never goes direct: StarPU's path
  Program prog(ctx, kSource);
  Kernel k(prog, "halve_add");
  const size_t n = 1024;
  auto want = initial(n);
  Mem y(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), want.data());
  placements();
  for (int round = 0; round < 4; ++round) {
    enqueue_steps(dq, k, y, 1.5f, 3, n);
    step_on_cpu(want, 1.5f, 3);
    CL_REQUIRE(clFinish(dq));
    enqueue_steps(cq, k, y, 0.5f, 3, n);
    step_on_cpu(want, 0.5f, 3);
    CL_REQUIRE(clFinish(cq));
  }
  check_equal(read_all(dq, y, n), want);
  check_direct_launches(4);
}

TEST_CASE("releasing a leased buffer while its direct commands run is safe") {
  OneDevice d;
  auto& [dev, ctx, q, prog, k] = d;
  const size_t n = 1 << 16;
  auto want = initial(n);
  Mem kept(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), want.data());
  placements();
  for (int i = 0; i < 5; ++i) {
    cl_int err = CL_SUCCESS;
    cl_mem gone = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), want.data(), &err);
    CL_REQUIRE(err);
    enqueue_steps(q, k, gone, 1.0f, 10, n);
    CL_REQUIRE(clReleaseMemObject(gone));  // commands still in flight hold it
    enqueue_steps(q, k, kept, 1.0f, 2, n);
  }
  CL_REQUIRE(clFinish(q));
  step_on_cpu(want, 1.0f, 10);
  check_equal(read_all(q, kept, n), want);
  check_direct_launches(20);
}

namespace {

// The same step reading x, and (halve_add_xw) claiming it read-write.
const char* kSharedSource =
    "__kernel void halve_add_x(__global float* y, __global const float* x, float a) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = y[i] * 0.5f + x[i] * a;\n"
    "}\n"
    "__kernel void halve_add_xw(__global float* y, __global float* x, float a) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = y[i] * 0.5f + x[i] * a;\n"
    "}\n";

}  // namespace

// Threads sharing in-order device queues and one read-write buffer: direct
// commands lease buffers while StarPU tasks, cross-device dependencies and
// host reads from other threads claim the same ones (a command another
// thread's enqueue comes to depend on before it reaches its vendor queue; a
// lease taken between a StarPU task's recall and StarPU granting it its
// buffers): the run must finish, with each thread's values.
TEST_CASE("threads mixing direct and StarPU commands on shared queues and buffers finish right") {
  auto devs = pocl_devices();
  REQUIRE(devs.size() >= 2);
  Context ctx({devs[0], devs[1]});
  Queue q0(ctx, devs[0]), q1(ctx, devs[1]);
  cl_command_queue qs[2] = {q0.q, q1.q};
  Program prog(ctx, kSharedSource);
  // Fresh buffers every round: the threads' first commands race for leases
  // nobody holds yet (where one hang was).
  constexpr int kRounds = 6, kThreads = 4, kIterations = 16;
  const size_t n = 4096;
  std::vector<float> x0(n);
  for (size_t i = 0; i < n; ++i) x0[i] = float(i % 13);
  std::vector<std::unique_ptr<Kernel>> ks, kws;
  for (int t = 0; t < kThreads; ++t) {
    ks.push_back(std::make_unique<Kernel>(prog, "halve_add_x"));
    kws.push_back(std::make_unique<Kernel>(prog, "halve_add_xw"));
  }
  placements();
  for (int round = 0; round < kRounds; ++round) {
    INFO("round " << round);
    Mem x(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), x0.data());
    std::vector<std::unique_ptr<Mem>> ys;
    for (int t = 0; t < kThreads; ++t) {
      auto y = initial(n);
      ys.push_back(std::make_unique<Mem>(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), y.data()));
    }
    std::vector<std::vector<float>> peeks(kThreads, std::vector<float>(n));
    std::vector<cl_int> errors(kThreads, CL_SUCCESS);
    std::latch start(kThreads);

    auto work = [&](int t) {
      auto fail = [&](cl_int err) {
        if (err != CL_SUCCESS && errors[t] == CL_SUCCESS) errors[t] = err;
      };
      cl_mem y = *ys[t];
      cl_event last = nullptr;
      start.arrive_and_wait();
      for (int i = 0; i < kIterations; ++i) {
        // Every step but every 4th claims x for writing (its values stay):
        // the other threads' leases on it are recalled.
        cl_kernel k = i % 4 ? kws[t]->k : ks[t]->k;
        float a = float(t + 1) * 0.25f;
        fail(clSetKernelArg(k, 0, sizeof(cl_mem), &y));
        fail(clSetKernelArg(k, 1, sizeof(cl_mem), &x.m));
        fail(clSetKernelArg(k, 2, sizeof(float), &a));
        // Mostly the thread's own device (shared with another thread); every
        // 4th step on the other one, ordered by an event: StarPU's path.
        cl_command_queue q = qs[(t + (i % 4 == 3)) % 2];
        cl_event e = nullptr;
        fail(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, last ? 1 : 0,
                                    last ? &last : nullptr, &e));
        if (last) clReleaseEvent(last);
        last = e;
        if (i % 3 == 2)  // a host read of a leased buffer, waited for
          fail(clEnqueueReadBuffer(q, y, CL_TRUE, 0, n * sizeof(float), peeks[t].data(), 1,
                                   &last, nullptr));
      }
      if (last) {
        fail(clWaitForEvents(1, &last));
        clReleaseEvent(last);
      }
    };
    bool finished = returns_within([&] {
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
      for (auto& th : threads) th.join();
    }, 60.0);
    REQUIRE(finished);
    for (int t = 0; t < kThreads; ++t) {
      INFO("thread " << t);
      CHECK(errors[t] == CL_SUCCESS);
      std::vector<float> want = initial(n);
      for (int i = 0; i < kIterations; ++i)
        for (size_t j = 0; j < n; ++j) want[j] = want[j] * 0.5f + x0[j] * (float(t + 1) * 0.25f);
      check_equal(read_all(q0, *ys[t], n), want);
    }
    check_equal(read_all(q1, x, n), x0);
  }
  // Few: a shared queue waiting on StarPU sends its later commands there too.
  check_direct_launches(kRounds);
}

// A thread's transfers and kernels pin again the leases it found last,
// without the lease table (RememberedLeases, runtime/data_leases.cpp): a
// lease another thread recalled meanwhile must not take them, or a write
// lands in a copy already given back to StarPU and is lost. Here one
// thread streams writes without events into its buffer while another
// thread's kernels read that buffer on the other device (each read lease
// recalls the write lease, and the next write recalls the read leases).
// What the kernels read races with the writes on purpose and is not looked
// at; no write may be lost.
TEST_CASE("a write stream lands whole while another thread's kernels keep recalling its lease") {
  auto devs = pocl_devices();
  REQUIRE(devs.size() >= 2);
  Context ctx({devs[0], devs[1]});
  Queue qw(ctx, devs[0]), qr(ctx, devs[1]);
  Program prog(ctx, kSharedSource);
  Kernel reader(prog, "halve_add_x");
  const size_t n = 4096, part = 64, patches = 600, alone = 50;
  std::vector<float> want = initial(n);
  Mem y(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), want.data());
  Mem z(ctx, CL_MEM_READ_WRITE, n * sizeof(float));
  // Each patch its own values, alive until the writer's clFinish.
  std::vector<std::vector<float>> values(patches, std::vector<float>(part));
  for (size_t p = 0; p < patches; ++p)
    for (size_t i = 0; i < part; ++i) values[p][i] = float(p * 1000 + i);
  for (size_t p = 0; p < patches; ++p)
    std::copy(values[p].begin(), values[p].end(), want.begin() + (p * part) % n);
  cl_int writer_error = CL_SUCCESS, reader_error = CL_SUCCESS;
  auto write = [&](size_t p, cl_bool blocking) {
    cl_int e = clEnqueueWriteBuffer(qw, y, blocking, (p * part) % n * sizeof(float),
                                    part * sizeof(float), values[p].data(), 0, nullptr, nullptr);
    if (e == CL_SUCCESS && p % 50 == 49) e = clFinish(qw);  // the reader's leases come and go
    if (e != CL_SUCCESS && writer_error == CL_SUCCESS) writer_error = e;
  };
  // Alone first: the first write leases y on the writer's device, the
  // others find that lease through the thread's memory of it.
  placements();
  for (size_t p = 0; p < alone; ++p) write(p, p == 0);
  const cl_ulong alone_records = placements().records;
  INFO("writes alone as records: " << alone_records);
  if (direct_enabled()) CHECK(alone_records > 0);
  // Then against the reader.
  std::atomic<bool> writing{true};
  bool finished = returns_within([&] {
    std::thread readers([&] {
      const float a = 1.0f;
      auto fail = [&](cl_int e) { if (e != CL_SUCCESS && reader_error == CL_SUCCESS) reader_error = e; };
      fail(clSetKernelArg(reader, 0, sizeof(cl_mem), &z.m));
      fail(clSetKernelArg(reader, 1, sizeof(cl_mem), &y.m));
      fail(clSetKernelArg(reader, 2, sizeof a, &a));
      while (writing.load()) {
        fail(clEnqueueNDRangeKernel(qr, reader, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
        fail(clFinish(qr));
      }
    });
    for (size_t p = alone; p < patches; ++p) write(p, CL_FALSE);
    if (cl_int e = clFinish(qw); e != CL_SUCCESS) writer_error = e;
    writing = false;
    readers.join();
  }, 60.0);
  REQUIRE(finished);
  CHECK(writer_error == CL_SUCCESS);
  CHECK(reader_error == CL_SUCCESS);
  // How much of the rest went direct varies with the threads' timing.
  INFO(placements().direct() << " direct commands against the reader");
  check_equal(read_all(qw, y, n), want);
  check_equal(read_all(qr, y, n), want);
}

TEST_CASE("on cold models a kernel launched one at a time on a heft context queue soon goes direct") {
  // A kernel launched once per step (nbody's update) is measured only
  // through StarPU: every launch until its model counts as calibrated on
  // each device leaves the direct path (STARPU_CALIBRATE_MINIMUM; Parasol's
  // default is 3 measurements, StarPU's own 10).
  // One device: what is counted is the calibration itself, not a
  // comparison of two devices' models (two alike devices measured on a
  // loaded host may differ 2-3x, and the command then rightly asks StarPU).
  const Policy heft("heft");
  const cl_device_id dev = OneDevice::first_pocl();
  Context ctx({dev}, heft);
  Queue qc(ctx, nullptr);
  // A source no earlier run has seen: its model starts empty.
  const std::string source = fresh_source_tag() +
                             "__kernel void step_once(__global float* y, float a) {\n"
                             "  size_t i = get_global_id(0);\n"
                             "  y[i] = y[i] * 0.5f + a;\n"
                             "}\n";
  Program prog(ctx, source);
  Kernel k(prog, "step_once");
  const size_t n = 65536;
  const auto init = initial(n);
  auto want = init;
  Mem y(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float),
        const_cast<float*>(init.data()));
  placements();
  const int launches = 24;
  std::string via;  // per launch: S through StarPU, D direct
  cl_ulong records = 0;
  for (int t = 0; t < launches; ++t) {
    const cl_ulong ended_before = device_stats(dev).commands;
    enqueue_steps(qc, k, y, 1.0f, 1, n);
    CL_REQUIRE(clFinish(qc));
    // The device counts the command once it ended, either way (clFinish
    // waits for that); direct with an event, or without: a record, once it
    // may go direct (one device in the context: nothing could place it
    // again elsewhere).
    const bool ran = device_stats(dev).commands > ended_before;
    const Placements went = placements();
    records += went.records;
    via += !ran ? '?' : went.direct() > 0 ? 'D' : 'S';
  }
  step_on_cpu(want, 1.0f, launches);
  check_equal(read_all(qc, y, n), want);
  INFO("launches, S through StarPU, D direct: " << via);
  INFO("records among them: " << records);
  if (!direct_enabled()) return;
  // Three measured runs, then the launches go direct (with StarPU's own
  // minimum of 10 measurements: 10 launches through StarPU). A few more
  // on a loaded host: a measurement (the kernel's own time, a few hundred
  // microseconds) more than 5x off the mean does not count
  // (STARPU_HISTORY_MAX_ERROR), and under ThreadSanitizer one or two are.
  CHECK(std::count(via.begin(), via.end(), 'S') <= 8);
  CHECK(via.substr(launches - 8) == std::string(8, 'D'));
  CHECK(records >= 8);
}

TEST_CASE("a context queue's kernels that another device could take go as records only where "
          "their lane goes without vendor events") {
  // Elsewhere their event is what places them again after a device-level
  // failure; on a lane without events a failure while running reaches them
  // through a later event, and no event would place them again.
  // PoCL's CPU devices of releases 3 to 6 go without: none of Parasol's
  // commands can fail while running there.
  const bool unevented =
      direct_enabled() && pocl_major_version() >= 3 && pocl_major_version() <= 6;
  TwoDevices d;
  auto& [devs, ctx, qa, qb, qc, prog, k] = d;
  const size_t n = 4096;
  auto want = initial(n);
  Mem y(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), want.data());
  // Only these launches run while counted.
  placements();
  for (int round = 0; round < 6; ++round) {
    enqueue_steps(qc, k, y, 1.0f, 4, n);
    CL_REQUIRE(clFinish(qc));
  }
  const cl_ulong records = placements().records;
  step_on_cpu(want, 1.0f, 24);
  check_equal(read_all(qc, y, n), want);
  INFO("records: " << records << " of 24 launches; lanes without events: " << unevented);
  if (unevented)
    CHECK(records > 0);
  else
    CHECK(records == 0u);
}

TEST_CASE("commands that wait for a StarPU task go to their device directly once it is done") {
  // Launched by the task's completion, on a StarPU thread, where taking a
  // lease (a blocking StarPU acquisition) is not allowed: the launch moves to
  // Parasol's launcher thread, which may take it. (Before, such a command
  // and the ones queued behind it went through StarPU, and a StarPU step of
  // nbody took the next step's kernels along.)
  auto devs = pocl_devices();
  REQUIRE(!devs.empty());
  const Policy eager("eager");
  Context ctx({devs[0]}, eager);
  Queue qc(ctx, nullptr), qd(ctx, devs[0]);
  Program prog(ctx, kSource);
  Kernel k(prog, "halve_add");
  const size_t n = 4096;
  auto want = initial(n);
  Mem y(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), want.data());
  placements();
  for (int round = 0; round < 4; ++round) {
    // A StarPU task (eager context queue: never direct) writes y, then a
    // chain on the device queue waits for it.
    cl_event task = nullptr;
    set_args(k, y.m, 1.0f);
    CL_REQUIRE(clEnqueueNDRangeKernel(qc, k, 1, nullptr, &n, nullptr, 0, nullptr, &task));
    set_args(k, y.m, 2.0f);
    CL_REQUIRE(clEnqueueNDRangeKernel(qd, k, 1, nullptr, &n, nullptr, 1, &task, nullptr));
    enqueue_steps(qd, k, y, 2.0f, 3, n);
    CL_REQUIRE(clFinish(qd));
    clReleaseEvent(task);
    step_on_cpu(want, 1.0f, 1);
    step_on_cpu(want, 2.0f, 4);
  }
  // Each round's four device-queue kernels, the first taking the lease back
  // from StarPU.
  check_direct_launches(4 * 4);
  check_equal(read_all(qd, y, n), want);
}
