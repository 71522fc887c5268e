// A device's lanes (src/runtime/direct_launch.h, LaneChoice): independent
// commands of an out-of-order queue go to several vendor queues of their
// device, so that they may run side by side, and a command waits on the
// vendor for what it depends on in the other lanes. Here on PoCL, with
// PARASOL_LANES=4 (its default there is one lane): nbody's shape, blocks
// computed from every position and then one update reading all of them,
// checked against the CPU; an update that did not wait for every block, or
// blocks that did not wait for the update before, give other values. On
// PoCL 3 to 6 most commands have no vendor event and a lane's marker stands
// for them.

#include <cmath>
#include <cstdlib>
#include <vector>

#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

// Before Parasol's first call: the environment is read once.
const bool kLanes = (setenv("PARASOL_LANES", "4", 1), true);

// Each block's accelerations from every position (n work per item: long
// enough that PoCL's two threads run the blocks of several lanes at once),
// then the update. Floats summed in the same order as on the CPU below.
const char* kSource =
    "__kernel void forces(__global const float* pos, __global float* acc, uint n, uint first) {\n"
    "  uint i = get_global_id(0);\n"
    "  float p = pos[first + i], a = 0.0f;\n"
    "  for (uint j = 0; j < n; ++j) a += (pos[j] - p) * 0.001f;\n"
    "  acc[i] = a;\n"
    "}\n"
    "__kernel void update(__global float* pos, __global const float* a0, __global const float* a1,\n"
    "                     __global const float* a2, __global const float* a3, uint block) {\n"
    "  uint i = get_global_id(0), b = i / block, k = i % block;\n"
    "  float a = b == 0 ? a0[k] : b == 1 ? a1[k] : b == 2 ? a2[k] : a3[k];\n"
    "  pos[i] = pos[i] + a;\n"
    "}\n"
    // One work-item busy for tens of milliseconds: commands enqueued behind
    // it on other lanes find it still running, whatever the host's speed
    // (under ThreadSanitizer PoCL had finished each block before the next
    // was enqueued, and nothing waited across lanes).
    "__kernel void busy(__global float* out, uint rounds) {\n"
    "  float a = out[0];\n"
    "  for (uint r = 0; r < rounds; ++r) a = a * 0.9999f + 0.0001f;\n"
    "  out[0] = a;\n"
    "}\n";

constexpr unsigned kBlocks = 4;

void step_on_cpu(std::vector<float>& pos) {
  const size_t n = pos.size();
  std::vector<float> acc(n);
  for (size_t i = 0; i < n; ++i) {
    float a = 0.0f;
    for (size_t j = 0; j < n; ++j) a += (pos[j] - pos[i]) * 0.001f;
    acc[i] = a;
  }
  for (size_t i = 0; i < n; ++i) pos[i] += acc[i];
}

// The direct launches of a device since `before` (device_paths()), and how
// many lanes they went to.
struct LaneUse {
  cl_ulong direct = 0, cross_lane_waits = 0;
  int lanes = 0;
  LaneUse(cl_device_id d, const cl_parasol_device_paths& before) {
    const cl_parasol_device_paths now = device_paths(d);
    for (int i = 0; i < CL_PARASOL_MAX_LANES; ++i) {
      const cl_ulong here = now.lane_commands[i] - before.lane_commands[i];
      direct += here;
      lanes += here > 0;
    }
    cross_lane_waits = now.cross_lane_waits - before.cross_lane_waits;
  }
};

// PoCL's first device, a queue on it with `properties`, the program above.
struct OnPocl {
  cl_device_id dev = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue q = nullptr;
  cl_program prog = nullptr;
  explicit OnPocl(cl_command_queue_properties properties) {
    auto devs = pocl_devices();
    REQUIRE(!devs.empty());
    dev = devs[0];
    cl_int err;
    ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
    CL_REQUIRE(err);
    q = clCreateCommandQueue(ctx, dev, properties, &err);
    CL_REQUIRE(err);
    prog = build_program(ctx, kSource, err);
    CL_REQUIRE(err);
  }
  ~OnPocl() {
    if (prog) clReleaseProgram(prog);
    if (q) clReleaseCommandQueue(q);
    if (ctx) clReleaseContext(ctx);
  }
  OnPocl(const OnPocl&) = delete;
  OnPocl& operator=(const OnPocl&) = delete;
};

}  // namespace

TEST_CASE("independent kernels of an out-of-order queue spread over lanes, and their dependents "
          "wait for them across lanes") {
  OnPocl on(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_context ctx = on.ctx;
  cl_command_queue q = on.q;
  cl_int err;
  cl_kernel forces = clCreateKernel(on.prog, "forces", &err);
  CL_REQUIRE(err);
  cl_kernel update = clCreateKernel(on.prog, "update", &err);
  CL_REQUIRE(err);

  const cl_uint n = 2048, block = n / kBlocks;
  std::vector<float> pos(n);
  for (cl_uint i = 0; i < n; ++i) pos[i] = float((i * 37) % 101) * 0.01f;
  cl_mem pos_buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                  n * sizeof(float), pos.data(), &err);
  CL_REQUIRE(err);
  std::vector<cl_mem> acc(kBlocks);
  for (auto& a : acc) {
    a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, block * sizeof(float), nullptr, &err);
    CL_REQUIRE(err);
  }

  // The first step's blocks wait for a busy kernel: the first follows it
  // on its lane, the others wait for it across lanes.
  cl_kernel busy = clCreateKernel(on.prog, "busy", &err);
  CL_REQUIRE(err);
  cl_mem scratch = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(float), nullptr, &err);
  CL_REQUIRE(err);
  set_args(busy, scratch, cl_uint{50'000'000});
  const cl_parasol_device_paths before = device_paths(on.dev);
  const int steps = 4;
  cl_event ready = nullptr;  // the previous update (first: the busy kernel)
  const size_t one = 1;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, busy, 1, nullptr, &one, nullptr, 0, nullptr, &ready));
  for (int s = 0; s < steps; ++s) {
    std::vector<cl_event> computed(kBlocks);
    for (cl_uint b = 0; b < kBlocks; ++b) {
      // A kernel object per launch would do as well; one, set again, is
      // what applications do (its arguments are copied at enqueue).
      set_args(forces, pos_buf, acc[b], n, b * block);
      size_t global = block;
      CL_REQUIRE(clEnqueueNDRangeKernel(q, forces, 1, nullptr, &global, nullptr, ready ? 1 : 0,
                                        ready ? &ready : nullptr, &computed[b]));
    }
    if (ready) clReleaseEvent(ready);
    set_args(update, pos_buf, acc[0], acc[1], acc[2], acc[3], block);
    size_t global = n;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, update, 1, nullptr, &global, nullptr, kBlocks,
                                      computed.data(), &ready));
    for (cl_event e : computed) clReleaseEvent(e);
    step_on_cpu(pos);
  }
  std::vector<float> out(n);
  CL_REQUIRE(clEnqueueReadBuffer(q, pos_buf, CL_TRUE, 0, n * sizeof(float), out.data(), 1, &ready,
                                 nullptr));
  clReleaseEvent(ready);

  size_t bad = 0;
  for (cl_uint i = 0; i < n; ++i)
    bad += std::fabs(out[i] - pos[i]) > 1e-3f * (1.0f + std::fabs(pos[i]));
  INFO("first values: " << out[0] << " vs " << pos[0] << ", " << out[n - 1] << " vs " << pos[n - 1]);
  CHECK(bad == 0);

  // They did go to several lanes, and some waited across them.
  const LaneUse use(on.dev, before);
  INFO(use.direct << " direct launches on " << use.lanes << " lanes, " << use.cross_lane_waits
                  << " waiting across lanes");
  CHECK(use.lanes >= 2);
  CHECK(use.cross_lane_waits > 0);

  for (cl_mem m : acc) clReleaseMemObject(m);
  clReleaseMemObject(pos_buf);
  clReleaseMemObject(scratch);
  clReleaseKernel(busy);
  clReleaseKernel(forces);
  clReleaseKernel(update);
}

TEST_CASE("an in-order queue keeps every command on one lane") {
  OnPocl on(0);
  cl_context ctx = on.ctx;
  cl_command_queue q = on.q;
  cl_int err;
  cl_kernel forces = clCreateKernel(on.prog, "forces", &err);
  CL_REQUIRE(err);
  const cl_uint n = 256;
  std::vector<float> pos(n, 1.0f);
  cl_mem pos_buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                  n * sizeof(float), pos.data(), &err);
  CL_REQUIRE(err);
  cl_mem acc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(float), nullptr, &err);
  CL_REQUIRE(err);
  set_args(forces, pos_buf, acc, n, cl_uint{0});
  size_t global = n;
  // Warm: the buffers leased on the device, so what follows goes direct.
  CL_REQUIRE(clEnqueueNDRangeKernel(q, forces, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  CL_REQUIRE(clFinish(q));
  const cl_parasol_device_paths before = device_paths(on.dev);
  std::vector<cl_event> events(8);
  for (auto& e : events)
    CL_REQUIRE(clEnqueueNDRangeKernel(q, forces, 1, nullptr, &global, nullptr, 0, nullptr, &e));
  CL_REQUIRE(clFinish(q));
  for (cl_event e : events) {
    CHECK(event_status(e) == CL_COMPLETE);
    clReleaseEvent(e);
  }
  const LaneUse use(on.dev, before);
  INFO(use.direct << " direct launches on " << use.lanes << " lanes");
  CHECK(use.direct >= 8);
  CHECK(use.lanes == 1);
  std::vector<float> out(n);
  CL_REQUIRE(clEnqueueReadBuffer(q, acc, CL_TRUE, 0, n * sizeof(float), out.data(), 0, nullptr,
                                 nullptr));
  for (float v : out) CHECK(v == 0.0f);  // every position equal: no force

  clReleaseMemObject(acc);
  clReleaseMemObject(pos_buf);
  clReleaseKernel(forces);
}

TEST_CASE("separate in-order queues of one device take separate lanes, keep their own orders, "
          "and wait across lanes for each other's events") {
  // Four in-order queues on one device, as an application that wants its
  // streams to run side by side makes them (a GPU vendor runs its own
  // in-order queues so). Each applies x = 2x + (q + 1) to its own buffer,
  // step after step, with records (no events) and evented kernels mixed:
  // any reordering within a queue gives another value. Then queue 0 adds
  // every other queue's buffer, waiting for their last events: without the
  // waits across lanes it reads older values.
  auto devs = pocl_devices();
  REQUIRE(!devs.empty());
  cl_device_id dev = devs[0];
  cl_int err;
  Context ctx({dev});
  cl_program prog = build_program(ctx, R"(
    __kernel void twice_plus(__global float* x, float add) {
      size_t i = get_global_id(0); x[i] = 2.0f * x[i] + add;
    }
    __kernel void gather(__global float* x, __global const float* a, __global const float* b,
                         __global const float* c) {
      size_t i = get_global_id(0); x[i] = x[i] + a[i] + b[i] + c[i];
    })", err);
  CL_REQUIRE(err);
  constexpr int kQueues = 4, kSteps = 12;
  const size_t n = 1024;
  std::vector<cl_command_queue> qs(kQueues);
  std::vector<cl_mem> bufs(kQueues);
  std::vector<cl_kernel> steps(kQueues);
  for (int i = 0; i < kQueues; ++i) {
    qs[i] = clCreateCommandQueue(ctx, dev, 0, &err);
    CL_REQUIRE(err);
    bufs[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(float), nullptr, &err);
    CL_REQUIRE(err);
    steps[i] = clCreateKernel(prog, "twice_plus", &err);
    CL_REQUIRE(err);
    set_args(steps[i], bufs[i], float(i + 1));
    const float zero = 0.0f;
    CL_REQUIRE(clEnqueueFillBuffer(qs[i], bufs[i], &zero, sizeof zero, 0, n * sizeof(float), 0,
                                   nullptr, nullptr));
    // The buffer leased on the device: what follows goes direct.
    CL_REQUIRE(clEnqueueNDRangeKernel(qs[i], steps[i], 1, nullptr, &n, nullptr, 0, nullptr,
                                      nullptr));
  }
  for (cl_command_queue q : qs) CL_REQUIRE(clFinish(q));
  const cl_parasol_device_paths before = device_paths(dev);
  std::vector<cl_event> last(kQueues, nullptr);
  for (int s = 1; s < kSteps; ++s)
    for (int i = 0; i < kQueues; ++i) {
      const bool evented = s % 3 == 0 || s == kSteps - 1;
      cl_event* out = evented ? &last[i] : nullptr;
      if (out && *out) clReleaseEvent(*out);
      // The last step's event stays for the gather below.
      CL_REQUIRE(clEnqueueNDRangeKernel(qs[i], steps[i], 1, nullptr, &n, nullptr, 0, nullptr, out));
    }
  cl_kernel gather = clCreateKernel(prog, "gather", &err);
  CL_REQUIRE(err);
  set_args(gather, bufs[0], bufs[1], bufs[2], bufs[3]);
  CL_REQUIRE(clEnqueueNDRangeKernel(qs[0], gather, 1, nullptr, &n, nullptr, kQueues - 1,
                                    last.data() + 1, nullptr));
  std::vector<float> out(n);
  CL_REQUIRE(clEnqueueReadBuffer(qs[0], bufs[0], CL_TRUE, 0, n * sizeof(float), out.data(), 0,
                                 nullptr, nullptr));
  // The CPU's values: kSteps steps of x = 2x + (i + 1) from 0, then the sum.
  float want = 0.0f;
  for (int i = 0; i < kQueues; ++i) {
    float x = 0.0f;
    for (int s = 0; s < kSteps; ++s) x = 2.0f * x + float(i + 1);
    want += x;
  }
  size_t bad = 0;
  for (float v : out) bad += v != want;
  INFO("first value " << out[0] << ", expected " << want);
  CHECK(bad == 0);

  // The queues' direct commands went to more than one lane.
  const LaneUse use(dev, before);
  INFO(use.direct << " direct launches on " << use.lanes << " lanes");
  CHECK(use.direct >= kQueues * (kSteps - 1));
  CHECK(use.lanes >= 2);

  for (cl_event e : last)
    if (e) clReleaseEvent(e);
  clReleaseKernel(gather);
  for (int i = 0; i < kQueues; ++i) {
    clReleaseKernel(steps[i]);
    clReleaseMemObject(bufs[i]);
    clReleaseCommandQueue(qs[i]);
  }
  clReleaseProgram(prog);
}
