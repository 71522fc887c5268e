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
    cl_device_id d = ran_on(e);
    REQUIRE(d != nullptr);
    ++count[d];
  }
  return count;
}

}  // namespace

TEST_CASE("eager spreads independent commands of a context queue over several devices") {
  auto devs = pocl_devices();
  REQUIRE(devs.size() >= 2);
  const Policy props("eager");
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

namespace {

std::string scheduler_of(cl_context ctx) {
  char name[64] = "";
  CL_REQUIRE(clGetContextInfo(ctx, CL_CONTEXT_SCHEDULER_PARASOL, sizeof name, name, nullptr));
  return name;
}

cl_context_properties policy(const char* name) { return reinterpret_cast<cl_context_properties>(name); }

}  // namespace

TEST_CASE("an unknown policy name is CL_INVALID_PROPERTY, known names are accepted") {
  auto devs = pocl_devices();
  cl_int err = CL_SUCCESS;
  cl_context_properties bad[] = {CL_CONTEXT_SCHEDULER_PARASOL, policy("fastest-please"), 0};
  cl_context ctx = clCreateContext(bad, 1, devs.data(), nullptr, nullptr, &err);
  CHECK(ctx == nullptr);
  CHECK(err == CL_INVALID_PROPERTY);
  cl_context_properties null_name[] = {CL_CONTEXT_SCHEDULER_PARASOL, 0, 0};
  CHECK(clCreateContext(null_name, 1, devs.data(), nullptr, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_PROPERTY);
  for (const char* name : {"eager", "heft", "dmda", "dmdas", "ws", "lws", "random", "prio"}) {
    cl_context_properties ok[] = {CL_CONTEXT_SCHEDULER_PARASOL, policy(name), 0};
    Context c(devs, ok);
    CHECK(scheduler_of(c) == name);
  }
}

TEST_CASE("SOCL's property value 0xFF01 selects the policy too, and the default is heft") {
  auto devs = pocl_devices();
  cl_context_properties socl[] = {0xFF01, policy("ws"), 0};
  Context a(devs, socl);
  CHECK(scheduler_of(a) == "ws");
  Context b(devs);
  CHECK(scheduler_of(b) == "heft");  // PARASOL_SCHED is unset in the suite
}

TEST_CASE("two contexts run different policies at the same time, both with right results") {
  auto devs = pocl_devices();
  cl_context_properties eager[] = {CL_CONTEXT_SCHEDULER_PARASOL, policy("eager"), 0};
  cl_context_properties ws[] = {CL_CONTEXT_SCHEDULER_PARASOL, policy("ws"), 0};
  Context ca(devs, eager), cb(devs, ws);
  Queue qa{ca, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
  Queue qb{cb, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
  Program pa(ca, kAddOne), pb(cb, kAddOne);
  Kernel ka(pa, "add_one"), kb(pb, "add_one");
  const size_t n = 4096;
  std::vector<int> zeros(n, 0);
  Mem ba(ca, CL_MEM_COPY_HOST_PTR, n * sizeof(int), zeros.data());
  Mem bb(cb, CL_MEM_COPY_HOST_PTR, n * sizeof(int), zeros.data());
  set_args(ka, ba.m);
  set_args(kb, bb.m);
  // Interleaved: both contexts' commands are in flight together.
  for (int i = 0; i < 10; ++i) {
    CL_REQUIRE(clEnqueueNDRangeKernel(qa, ka, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clEnqueueBarrierWithWaitList(qa, 0, nullptr, nullptr));
    CL_REQUIRE(clEnqueueNDRangeKernel(qb, kb, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clEnqueueBarrierWithWaitList(qb, 0, nullptr, nullptr));
  }
  std::vector<int> ra(n), rb(n);
  CL_REQUIRE(clEnqueueReadBuffer(qa, ba, CL_TRUE, 0, n * sizeof(int), ra.data(), 0, nullptr, nullptr));
  CL_REQUIRE(clEnqueueReadBuffer(qb, bb, CL_TRUE, 0, n * sizeof(int), rb.data(), 0, nullptr, nullptr));
  CHECK(std::count(ra.begin(), ra.end(), 10) == static_cast<long>(n));
  CHECK(std::count(rb.begin(), rb.end(), 10) == static_cast<long>(n));
  CHECK(scheduler_of(ca) == "eager");
  CHECK(scheduler_of(cb) == "ws");
}
