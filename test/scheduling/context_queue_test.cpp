// Context queues: commands placed by the context's policy, results right
// whatever the placement.
#include <CL/cl_parasol.h>

#include <map>
#include <vector>

#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

const char* kAddOne =
    "__kernel void add_one(__global int* x) { x[get_global_id(0)] += 1; }\n";


std::map<cl_device_id, int> placements(const std::vector<Event>& events) {
  std::map<cl_device_id, int> count;
  for (const auto& e : events) {
    cl_device_id d = nullptr;
    CL_REQUIRE(clGetEventInfo(e, CL_EVENT_DEVICE_PARASOL, sizeof d, &d, nullptr));
    REQUIRE(d != nullptr);
    ++count[d];
  }
  return count;
}

}  // namespace

TEST_CASE("eager spreads independent commands of a context queue over several devices") {
  auto devs = pocl_devices();
  REQUIRE(devs.size() >= 2);
  cl_context_properties props[] = {CL_CONTEXT_SCHEDULER_PARASOL,
                                   reinterpret_cast<cl_context_properties>("eager"), 0};
  Context ctx(devs, props);
  Queue q{ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
  Program prog(ctx, kAddOne);
  Kernel k(prog, "add_one");

  const int commands = 24;
  const size_t n = 1 << 16;
  std::vector<std::unique_ptr<Mem>> bufs;
  std::vector<Event> events(commands);
  std::vector<int> zeros(n, 0);
  for (int c = 0; c < commands; ++c) {
    bufs.push_back(std::make_unique<Mem>(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), zeros.data()));
    set_args(k, bufs.back()->m);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &events[c]));
  }
  CL_REQUIRE(clFinish(q));
  auto count = placements(events);
  CHECK(count.size() >= 2);
  for (auto& b : bufs) {
    std::vector<int> out(n);
    CL_REQUIRE(clEnqueueReadBuffer(q, *b, CL_TRUE, 0, n * sizeof(int), out.data(), 0, nullptr, nullptr));
    REQUIRE(std::count(out.begin(), out.end(), 1) == static_cast<long>(n));
  }
}
