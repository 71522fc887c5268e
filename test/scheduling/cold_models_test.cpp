// heft on cold models (schedulers/calibration_guard.h): a device far slower
// than another calibrates with two or three commands, not with a share of
// every burst.
#include <CL/cl_parasol.h>

#include <memory>
#include <string>
#include <vector>

#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

// A source no earlier run has seen: its kernel's model starts empty.
std::string fresh_source() {
  return fresh_source_tag() +
         "__kernel void cold_loop(__global float* y, float a, int reps) {\n"
         "  size_t i = get_global_id(0);\n"
         "  float v = y[i];\n"
         "  for (int r = 0; r < reps; ++r) v = a + v * 0.5f;\n"
         "  y[i] = v;\n"
         "}\n";
}

const Policy heft("heft");

}  // namespace

TEST_CASE("under heft on cold models a far slower device calibrates with two or three commands") {
  auto pocl = pocl_devices();
  auto other = oclgrind_devices();
  REQUIRE(!pocl.empty());
  REQUIRE(!other.empty());
  std::vector<cl_device_id> devs{pocl[0], other[0]};
  Context ctx(devs, heft);
  Queue q{ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
  Program prog(ctx, fresh_source());
  Kernel k(prog, "cold_loop");
  const size_t n = 256;
  const int buffers = 40;
  const float a = 1.0f;
  const int reps = 64;
  std::vector<float> zero(n, 0.0f);
  std::vector<std::unique_ptr<Mem>> ys;
  for (int b = 0; b < buffers; ++b)
    ys.push_back(std::make_unique<Mem>(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(float), zero.data()));

  // Two bursts of independent commands, the first on empty models.
  std::vector<Event> events(2 * buffers);
  for (int round = 0; round < 2; ++round) {
    for (int b = 0; b < buffers; ++b) {
      set_args(k, ys[b]->m, a, reps);
      CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr,
                                        &events[round * buffers + b]));
    }
    CL_REQUIRE(clFinish(q));
  }
  int on_second = 0;
  for (auto& e : events) on_second += ran_on(e) == devs[1];

  // Whatever the placement, every buffer went through the loop twice.
  double once = 0.0;
  for (int r = 0; r < reps; ++r) once = 1.0 + once * 0.5;
  double twice = once;
  for (int r = 0; r < reps; ++r) twice = 1.0 + twice * 0.5;
  for (int b = 0; b < buffers; ++b) {
    std::vector<float> y(n);
    CL_REQUIRE(clEnqueueReadBuffer(q, ys[b]->m, CL_TRUE, 0, n * sizeof(float), y.data(), 0,
                                   nullptr, nullptr));
    CHECK(y[0] == Approx(twice).epsilon(1e-5));
    CHECK(y[n - 1] == Approx(twice).epsilon(1e-5));
  }

  // How much slower the second device is, measured afterwards on device
  // queues (measuring first would calibrate the models before the test).
  auto mean_ns = [&](cl_device_id d) {
    Queue dq(ctx, d);
    set_args(k, ys[0]->m, a, reps);
    CL_REQUIRE(clEnqueueNDRangeKernel(dq, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(dq));
    auto before = device_stats(d);
    for (int i = 0; i < 3; ++i)
      CL_REQUIRE(clEnqueueNDRangeKernel(dq, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(dq));
    auto after = device_stats(d);
    return double(after.busy_ns - before.busy_ns) / double(after.commands - before.commands);
  };
  // The slower device, whichever it is (Oclgrind here; PoCL beside a GPU).
  double t0 = mean_ns(devs[0]), t1 = mean_ns(devs[1]);
  bool second_slower = t1 > t0;
  double ratio = second_slower ? t1 / t0 : t0 / t1;
  int on_slower = second_slower ? on_second : int(events.size()) - on_second;
  INFO(on_slower << " of " << events.size() << " commands ran on "
                 << device_name(devs[second_slower ? 1 : 0]) << ", " << ratio
                 << "x slower than " << device_name(devs[second_slower ? 0 : 1]));
  if (ratio >= 8.0) {
    // Two calibration runs, judged against the faster device's model, then
    // keep HEFT away from it. Three where the faster device is not measured
    // by the end of the second: the calibration minimum (Parasol's default
    // STARPU_CALIBRATE_MINIMUM); an H200 beside PoCL did that in 3 of 20
    // runs (3 of 80 at 9.7x, 10.1x, 13.4x): NVIDIA's first launch of the
    // kernel started only after PoCL's second had ended (PARASOL_LOG=debug).
    // Beyond them, the share HEFT rightly gives a device `ratio` times
    // slower once both are measured (5 of 80 at 8.3x there). Without the
    // guard, the device with no model takes a share of the first burst.
    const int heft_share = int(double(events.size()) / (ratio + 1.0));
    CHECK(on_slower >= 1);
    CHECK(on_slower <= 3 + heft_share);
  } else {
    WARN("the slower device is only " << ratio << "x slower: the calibration bound is not checked");
  }

  // A buffer left on the slower device alone (by a command on its device
  // queue): the next context-queue command on it goes to the faster device
  // when the slower is far slower, instead of staying with the data.
  cl_device_id slower = devs[second_slower ? 1 : 0], faster = devs[second_slower ? 0 : 1];
  {
    Queue on_slower_queue(ctx, slower);
    set_args(k, ys[1]->m, a, reps);
    CL_REQUIRE(clEnqueueNDRangeKernel(on_slower_queue, k, 1, nullptr, &n, nullptr, 0, nullptr,
                                      nullptr));
    CL_REQUIRE(clFinish(on_slower_queue));
  }
  Event moved;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &moved));
  CL_REQUIRE(clFinish(q));
  std::vector<float> y(n);
  CL_REQUIRE(clEnqueueReadBuffer(q, ys[1]->m, CL_TRUE, 0, n * sizeof(float), y.data(), 0,
                                 nullptr, nullptr));
  double four_times = twice;
  for (int r = 0; r < 2 * reps; ++r) four_times = 1.0 + four_times * 0.5;
  CHECK(y[0] == Approx(four_times).epsilon(1e-5));
  if (ratio >= 32.0)  // past the guard's kStranded (16), with a margin for noise
    CHECK(ran_on(moved) == faster);
}
