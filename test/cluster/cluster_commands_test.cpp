// Rank 0 of an MPI job (`mpirun -np 1 <this> : -np N parasol-node`, every
// rank on this machine with one PoCL device and the native CPU device):
// commands on the other ranks' devices, through the unchanged OpenCL API.
// Each test case is one ctest test with its own mpirun
// (test/cluster/CMakeLists.txt).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "support/parasol_test.h"

namespace {

using namespace parasol_test;

bool is_remote(cl_device_id d) { return device_name(d).find(" (rank ") != std::string::npos; }

// The devices of rank `rank` (0: this process's), vendors' first.
std::vector<cl_device_id> devices_of_rank(int rank) {
  std::vector<cl_device_id> out;
  const std::string mark = " (rank " + std::to_string(rank) + " on ";
  for (cl_device_id d : devices()) {
    const bool remote = is_remote(d);
    if ((rank == 0 && !remote) || (rank > 0 && device_name(d).find(mark) != std::string::npos))
      out.push_back(d);
  }
  return out;
}

// Rank r's PoCL device.
cl_device_id pocl_of_rank(int rank) {
  for (cl_device_id d : devices_of_rank(rank))
    if (vendor_of(d).rfind("Portable Computing Language", 0) == 0) return d;
  FAIL("rank " << rank << " lists no PoCL device");
  return nullptr;
}

const char* kSource = R"(
__kernel void scale(__global const float* in, __global float* out, float factor) {
  size_t i = get_global_id(0);
  out[i] = in[i] * factor;
}
__kernel void add_one(__global float* data) {
  size_t i = get_global_id(0);
  data[i] += 1.0f;
}
// Each group sums its items in __local memory; item 0 writes the group's sum.
__kernel void group_sum(__global const float* in, __global float* sums, __local float* scratch) {
  size_t l = get_local_id(0);
  scratch[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    float s = 0.0f;
    for (size_t k = 0; k < get_local_size(0); ++k) s += scratch[k];
    sums[get_group_id(0)] = s;
  }
}
)";

// A buffer of ctx created with a copy of v.
cl_mem copy_of(cl_context ctx, cl_mem_flags flags, const std::vector<float>& v) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(ctx, flags | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(float),
                            const_cast<float*>(v.data()), &err);
  CL_REQUIRE(err);
  return m;
}

// A context of one device, a queue, a buffer of n zeros, and add_one set on it.
struct AddOneOn {
  AddOneOn(cl_device_id d, std::size_t n)
      : ctx({d}), q(ctx, d), buf(copy_of(ctx, CL_MEM_READ_WRITE, std::vector<float>(n, 0.0f))),
        prog(ctx, kSource), add_one(prog, "add_one") {
    set_args(add_one, buf.m);
  }
  Context ctx;
  Queue q;
  Mem buf;
  Program prog;
  Kernel add_one;
};

std::vector<float> iota_floats(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 1000) * 0.5f;
  return v;
}

}  // namespace

TEST_CASE("a context of one remote device runs buffers, a program and kernels there",
          "[remote]") {
  cl_device_id remote = pocl_of_rank(1);
  Context ctx({remote});
  Queue q(ctx, remote);
  const std::size_t n = 4096;
  std::vector<float> input = iota_floats(n);
  cl_int err = CL_SUCCESS;
  Mem in(copy_of(ctx, CL_MEM_READ_ONLY, input));
  Mem out(ctx, CL_MEM_READ_WRITE, n * sizeof(float));

  Program prog(ctx, kSource);
  cl_build_status status = CL_BUILD_NONE;
  CL_REQUIRE(clGetProgramBuildInfo(prog, remote, CL_PROGRAM_BUILD_STATUS, sizeof status, &status,
                                   nullptr));
  CHECK(status == CL_BUILD_SUCCESS);
  Kernel scale(prog, "scale");
  set_args(scale, in.m, out.m, 3.0f);
  Event ran;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, scale, 1, nullptr, &n, nullptr, 0, nullptr, &ran));
  std::vector<float> result(n, -1.0f);
  CL_REQUIRE(clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * sizeof(float), result.data(), 1, &ran,
                                 nullptr));
  CHECK(event_status(ran) == CL_COMPLETE);
  for (std::size_t i = 0; i < n; ++i) REQUIRE(result[i] == input[i] * 3.0f);

  // A non-blocking write, then a kernel writing in place, in queue order.
  std::vector<float> ones(n, 1.0f);
  CL_REQUIRE(clEnqueueWriteBuffer(q, out, CL_FALSE, 0, n * sizeof(float), ones.data(), 0, nullptr,
                                  nullptr));
  Kernel add_one(prog, "add_one");
  set_args(add_one, out.m);
  CL_REQUIRE(clEnqueueNDRangeKernel(q, add_one, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  CL_REQUIRE(clFinish(q));
  CL_REQUIRE(clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * sizeof(float), result.data(), 0, nullptr,
                                 nullptr));
  for (std::size_t i = 0; i < n; ++i) REQUIRE(result[i] == 2.0f);

  // A sub-buffer: the second half of out gets one more; the first half
  // stays as it was.
  const cl_buffer_region half{n / 2 * sizeof(float), n / 2 * sizeof(float)};
  cl_mem second_half =
      clCreateSubBuffer(out, 0, CL_BUFFER_CREATE_TYPE_REGION, &half, &err);
  CL_REQUIRE(err);
  Mem window(second_half);
  set_args(add_one, window.m);
  const std::size_t half_n = n / 2;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, add_one, 1, nullptr, &half_n, nullptr, 0, nullptr, nullptr));
  CL_REQUIRE(clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * sizeof(float), result.data(), 0, nullptr,
                                 nullptr));
  for (std::size_t i = 0; i < n; ++i) REQUIRE(result[i] == (i < n / 2 ? 2.0f : 3.0f));

  // __local memory, a local size, and a non-blocking read waited for.
  const std::size_t local = 64, groups = n / local;
  Mem sums(ctx, CL_MEM_WRITE_ONLY, groups * sizeof(float));
  Kernel group_sum(prog, "group_sum");
  CL_REQUIRE(clSetKernelArg(group_sum, 0, sizeof(cl_mem), &in.m));
  CL_REQUIRE(clSetKernelArg(group_sum, 1, sizeof(cl_mem), &sums.m));
  CL_REQUIRE(clSetKernelArg(group_sum, 2, local * sizeof(float), nullptr));
  CL_REQUIRE(clEnqueueNDRangeKernel(q, group_sum, 1, nullptr, &n, &local, 0, nullptr, nullptr));
  std::vector<float> got(groups, -1.0f);
  Event read;
  CL_REQUIRE(clEnqueueReadBuffer(q, sums, CL_FALSE, 0, groups * sizeof(float), got.data(), 0,
                                 nullptr, &read));
  CL_REQUIRE(clWaitForEvents(1, &read.e));
  for (std::size_t g = 0; g < groups; ++g) {
    float expected = 0.0f;
    for (std::size_t k = 0; k < local; ++k) expected += input[g * local + k];
    REQUIRE(got[g] == expected);
  }
}

// Every rank runs the same vendors: a kernel's work-group answers on rank
// 1's PoCL device are those of rank 0's.
TEST_CASE("a remote kernel's work-group queries give its node's vendor's answers", "[remote]") {
  std::vector<std::size_t> answers[2];
  std::vector<cl_ulong> memory[2];
  int at = 0;
  for (cl_device_id d : {pocl_of_rank(0), pocl_of_rank(1)}) {
    Context ctx({d});
    Program prog(ctx, kSource);
    Kernel group_sum(prog, "group_sum");
    CL_REQUIRE(clSetKernelArg(group_sum, 2, 256 * sizeof(float), nullptr));
    for (cl_kernel_work_group_info param :
         {CL_KERNEL_WORK_GROUP_SIZE, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE}) {
      std::size_t v = 0;
      CL_REQUIRE(clGetKernelWorkGroupInfo(group_sum, d, param, sizeof v, &v, nullptr));
      answers[at].push_back(v);
    }
    for (cl_kernel_work_group_info param : {CL_KERNEL_LOCAL_MEM_SIZE, CL_KERNEL_PRIVATE_MEM_SIZE}) {
      cl_ulong v = 0;
      CL_REQUIRE(clGetKernelWorkGroupInfo(group_sum, d, param, sizeof v, &v, nullptr));
      memory[at].push_back(v);
    }
    ++at;
  }
  CHECK(answers[1] == answers[0]);
  CHECK(memory[1] == memory[0]);
  CHECK(memory[1][0] >= 256 * sizeof(float));
}

TEST_CASE("a build error on a remote device is answered on rank 0", "[remote]") {
  cl_device_id remote = pocl_of_rank(1);
  Context ctx({remote});
  cl_int err = CL_SUCCESS;
  cl_program p = build_program(ctx, "__kernel void broken(__global int* x) { x[0] = y; }", err);
  CHECK(err == CL_BUILD_PROGRAM_FAILURE);
  cl_build_status status = CL_BUILD_NONE;
  CL_REQUIRE(
      clGetProgramBuildInfo(p, remote, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, nullptr));
  CHECK(status == CL_BUILD_ERROR);
  CHECK(build_log(p, remote).find('y') != std::string::npos);
  cl_kernel k = clCreateKernel(p, "broken", &err);
  CHECK(k == nullptr);
  CHECK(err == CL_INVALID_PROGRAM_EXECUTABLE);
  clReleaseProgram(p);
}

TEST_CASE("a kernel chain hops from rank 0's PoCL device to each other rank's and back",
          "[hop]") {
  const int ranks = std::atoi(std::getenv("OMPI_COMM_WORLD_SIZE"));
  std::vector<cl_device_id> chain{pocl_of_rank(0)};
  for (int r = 1; r < ranks; ++r) chain.push_back(pocl_of_rank(r));
  Context ctx(chain);
  std::vector<std::unique_ptr<Queue>> queues;
  for (cl_device_id d : chain) queues.push_back(std::make_unique<Queue>(ctx, d));
  const std::size_t n = 1 << 16;
  std::vector<float> input = iota_floats(n);
  Mem a(copy_of(ctx, CL_MEM_READ_WRITE, input));
  Mem b(ctx, CL_MEM_READ_WRITE, n * sizeof(float));
  Program prog(ctx, kSource);
  Kernel scale(prog, "scale");
  Kernel add_one(prog, "add_one");

  // Rank 0 scales a into b; each other rank adds one to b in turn, each
  // after the one before (its event in the wait list, another queue).
  set_args(scale, a.m, b.m, 2.0f);
  cl_event last = nullptr;
  CL_REQUIRE(clEnqueueNDRangeKernel(*queues[0], scale, 1, nullptr, &n, nullptr, 0, nullptr, &last));
  set_args(add_one, b.m);
  std::vector<cl_event> events{last};
  for (std::size_t i = 1; i < chain.size(); ++i) {
    cl_event next = nullptr;
    CL_REQUIRE(clEnqueueNDRangeKernel(*queues[i], add_one, 1, nullptr, &n, nullptr, 1, &last,
                                      &next));
    events.push_back(next);
    last = next;
  }
  // Read back on rank 0's queue, after the last hop.
  std::vector<float> result(n, -1.0f);
  CL_REQUIRE(clEnqueueReadBuffer(*queues[0], b, CL_TRUE, 0, n * sizeof(float), result.data(), 1,
                                 &last, nullptr));
  const float hops = static_cast<float>(chain.size() - 1);
  for (std::size_t i = 0; i < n; ++i) REQUIRE(result[i] == input[i] * 2.0f + hops);
  for (cl_event e : events) {
    CHECK(event_status(e) == CL_COMPLETE);
    clReleaseEvent(e);
  }

  // And back again: the last rank's result feeds a kernel on rank 0.
  set_args(scale, b.m, a.m, 0.5f);
  CL_REQUIRE(clEnqueueNDRangeKernel(*queues[0], scale, 1, nullptr, &n, nullptr, 0, nullptr,
                                    nullptr));
  CL_REQUIRE(clEnqueueReadBuffer(*queues[0], a, CL_TRUE, 0, n * sizeof(float), result.data(), 0,
                                 nullptr, nullptr));
  for (std::size_t i = 0; i < n; ++i) REQUIRE(result[i] == (input[i] * 2.0f + hops) * 0.5f);
}

TEST_CASE("a user event gates a remote command; a failed one fails it", "[remote]") {
  const std::size_t n = 256;
  AddOneOn on(pocl_of_rank(1), n);
  cl_command_queue q = on.q;
  cl_kernel add_one = on.add_one;

  UserEvent gate(on.ctx);
  Event ran;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, add_one, 1, nullptr, &n, nullptr, 1, gate.ptr(), &ran));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(event_status(ran) > CL_COMPLETE);  // still waiting for the gate
  gate.set(CL_COMPLETE);
  CHECK(wait_bounded(ran) == CL_COMPLETE);

  UserEvent failing(on.ctx);
  Event skipped;
  CL_REQUIRE(
      clEnqueueNDRangeKernel(q, add_one, 1, nullptr, &n, nullptr, 1, failing.ptr(), &skipped));
  failing.set(-42);
  CHECK(wait_bounded(skipped) == -42);

  std::vector<float> result(n, -1.0f);
  CL_REQUIRE(clEnqueueReadBuffer(q, on.buf, CL_TRUE, 0, n * sizeof(float), result.data(), 0,
                                 nullptr, nullptr));
  for (float v : result) REQUIRE(v == 1.0f);  // ran once
}

// The node is test/cluster/faulty_rank.cpp, mute (it never answers a
// launch) or dies (it is killed when the launch arrives).
TEST_CASE("a node that stops answering or dies fails its commands; rank 0 goes on", "[mute]") {
  cl_device_id remote = pocl_of_rank(1);
  Context ctx({remote});
  Queue q(ctx, remote);
  const std::size_t n = 1024;
  std::vector<float> input = iota_floats(n);
  Mem in(copy_of(ctx, CL_MEM_READ_ONLY, input));
  Mem out(ctx, CL_MEM_READ_WRITE, n * sizeof(float));
  Program prog(ctx, kSource);  // the node builds
  Kernel scale(prog, "scale");
  set_args(scale, in.m, out.m, 2.0f);

  // The launch is never answered: its event fails after the timeout (2 s
  // here), and what waited for it fails with it.
  Event ran, after;
  const auto t0 = std::chrono::steady_clock::now();
  CL_REQUIRE(clEnqueueNDRangeKernel(q, scale, 1, nullptr, &n, nullptr, 0, nullptr, &ran));
  CL_REQUIRE(clEnqueueMarkerWithWaitList(q, 1, &ran.e, &after));
  CHECK(wait_bounded(ran, 30) == CL_DEVICE_NOT_AVAILABLE);
  CHECK(wait_bounded(after, 30) == CL_DEVICE_NOT_AVAILABLE);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(waited >= 1.5);
  CHECK(waited < 20);
  CHECK(returns_within([&] { clFinish(q); }, 30));

  // The node is given up: its next launch fails at once.
  Event again;
  CL_REQUIRE(clEnqueueNDRangeKernel(q, scale, 1, nullptr, &n, nullptr, 0, nullptr, &again));
  CHECK(wait_bounded(again, 5) == CL_DEVICE_NOT_AVAILABLE);

  // The buffers are still rank 0's to read.
  std::vector<float> back(n, -1.0f);
  CHECK(returns_within([&] {
    clEnqueueReadBuffer(q, in, CL_TRUE, 0, n * sizeof(float), back.data(), 0, nullptr, nullptr);
  }, 30));
  CHECK(back == input);

  // Rank 0's own devices go on.
  cl_device_id local = pocl_of_rank(0);
  Context local_ctx({local});
  Queue local_q(local_ctx, local);
  Mem a(copy_of(local_ctx, CL_MEM_READ_ONLY, input));
  Mem b(local_ctx, CL_MEM_READ_WRITE, n * sizeof(float));
  Program local_prog(local_ctx, kSource);
  Kernel local_scale(local_prog, "scale");
  set_args(local_scale, a.m, b.m, 2.0f);
  CL_REQUIRE(
      clEnqueueNDRangeKernel(local_q, local_scale, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  CL_REQUIRE(clEnqueueReadBuffer(local_q, b, CL_TRUE, 0, n * sizeof(float), back.data(), 0,
                                 nullptr, nullptr));
  for (std::size_t i = 0; i < n; ++i) REQUIRE(back[i] == input[i] * 2.0f);

  // And so do the other nodes' (a third rank runs parasol-node).
  const int ranks = std::atoi(std::getenv("OMPI_COMM_WORLD_SIZE"));
  for (int r = 2; r < ranks; ++r) {
    AddOneOn on(pocl_of_rank(r), n);
    Event ran_there;
    CL_REQUIRE(
        clEnqueueNDRangeKernel(on.q, on.add_one, 1, nullptr, &n, nullptr, 0, nullptr, &ran_there));
    CHECK(wait_bounded(ran_there, 30) == CL_COMPLETE);
    CL_REQUIRE(clEnqueueReadBuffer(on.q, on.buf, CL_TRUE, 0, n * sizeof(float), back.data(), 0,
                                   nullptr, nullptr));
    for (float v : back) REQUIRE(v == 1.0f);
  }
}

TEST_CASE("context queues of contexts holding remote devices run their kernels", "[remote]") {
  const std::size_t n = 1 << 14;
  std::vector<float> input = iota_floats(n);
  // Only remote devices, or this process's and a remote one: the placement
  // over ranks chooses (runtime/rank_choice.h).
  for (const std::vector<cl_device_id>& devs :
       {std::vector<cl_device_id>{pocl_of_rank(1)},
        std::vector<cl_device_id>{pocl_of_rank(0), pocl_of_rank(1)}}) {
    Context ctx(devs);
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(ctx, nullptr, 0, &err);
    CL_REQUIRE(err);
    Mem in(copy_of(ctx, CL_MEM_READ_ONLY, input));
    Mem out(ctx, CL_MEM_READ_WRITE, n * sizeof(float));
    Program prog(ctx, kSource);
    Kernel scale(prog, "scale");
    set_args(scale, in.m, out.m, 4.0f);
    Event ran;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, scale, 1, nullptr, &n, nullptr, 0, nullptr, &ran));
    std::vector<float> result(n, -1.0f);
    CL_REQUIRE(clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * sizeof(float), result.data(), 1,
                                   &ran.e, nullptr));
    CHECK(event_status(ran) == CL_COMPLETE);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(result[i] == input[i] * 4.0f);
    clReleaseCommandQueue(q);
  }
}

// A context queue over every rank's PoCL device (docs/cluster.md, "A
// context queue over ranks"): independent kernels go to each rank, each
// place calibrating its first commands, then by its measured times and
// backlog; commands that wait for them wait wherever they run; every
// result is the host's.
TEST_CASE("a context queue spreads independent kernels over ranks", "[spread]") {
  const int ranks = std::atoi(std::getenv("OMPI_COMM_WORLD_SIZE"));
  std::vector<cl_device_id> devs;
  for (int r = 0; r < ranks; ++r) devs.push_back(pocl_of_rank(r));
  Context ctx(devs);
  cl_int err = CL_SUCCESS;
  cl_command_queue q =
      clCreateCommandQueue(ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  CL_REQUIRE(err);
  // Each item spins kSpin rounds of integer arithmetic (milliseconds per
  // kernel on PoCL), so that a burst gives every rank a backlog worth
  // sharing; integers, so that every device's result is the host's exactly.
  const char* spin_source = R"(
__kernel void spin(__global const uint* in, __global uint* out, uint salt) {
  size_t i = get_global_id(0);
  uint x = in[i] ^ salt;
  for (uint k = 0; k < 20000u; ++k) x = x * 1664525u + 1013904223u + k;
  out[i] = x;
}
__kernel void bump(__global uint* data) { data[get_global_id(0)] += 1u; }
)";
  auto spin_on_host = [](cl_uint in, cl_uint salt) {
    cl_uint x = in ^ salt;
    for (cl_uint k = 0; k < 20000u; ++k) x = x * 1664525u + 1013904223u + k;
    return x;
  };
  const std::size_t n = 512, per_round = 4 * static_cast<std::size_t>(ranks), rounds = 3;
  std::vector<cl_uint> input(n);
  for (std::size_t i = 0; i < n; ++i) input[i] = static_cast<cl_uint>(i * 2654435761u);
  Mem in(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(cl_uint), input.data());
  Program prog(ctx, spin_source);
  std::vector<int> ran_on(static_cast<std::size_t>(ranks), 0), this_round(ran_on);
  auto rank_of = [&](cl_event e) {
    cl_device_id d = nullptr;
    CL_REQUIRE(clGetEventInfo(e, CL_EVENT_DEVICE_PARASOL, sizeof d, &d, nullptr));
    for (int r = 0; r < ranks; ++r)
      if (devs[static_cast<std::size_t>(r)] == d) return r;
    FAIL("a kernel ran on a device outside the context");
    return -1;
  };
  for (std::size_t round = 0; round < rounds; ++round) {
    std::vector<std::unique_ptr<Mem>> outs;
    std::vector<std::unique_ptr<Kernel>> kernels;
    std::vector<cl_event> spun(per_round, nullptr), bumped(per_round, nullptr);
    Kernel bump(prog, "bump");
    // Made first (each kernel is made on every rank, a round trip to each
    // node): the launches then come as one burst.
    for (std::size_t k = 0; k < per_round; ++k) {
      outs.push_back(std::make_unique<Mem>(ctx, CL_MEM_READ_WRITE, n * sizeof(cl_uint)));
      kernels.push_back(std::make_unique<Kernel>(prog, "spin"));
      set_args(*kernels.back(), in.m, outs.back()->m, static_cast<cl_uint>(round * 100 + k));
    }
    for (std::size_t k = 0; k < per_round; ++k)
      CL_REQUIRE(clEnqueueNDRangeKernel(q, *kernels[k], 1, nullptr, &n, nullptr, 0, nullptr,
                                        &spun[k]));
    // Each output bumped once its kernel ended, wherever each runs.
    for (std::size_t k = 0; k < per_round; ++k) {
      set_args(bump, outs[k]->m);
      CL_REQUIRE(
          clEnqueueNDRangeKernel(q, bump, 1, nullptr, &n, nullptr, 1, &spun[k], &bumped[k]));
    }
    CL_REQUIRE(clFinish(q));
    std::fill(this_round.begin(), this_round.end(), 0);
    std::vector<cl_uint> result(n);
    for (std::size_t k = 0; k < per_round; ++k) {
      CHECK(event_status(spun[k]) == CL_COMPLETE);
      CHECK(event_status(bumped[k]) == CL_COMPLETE);
      const int r = rank_of(spun[k]);
      ++ran_on[static_cast<std::size_t>(r)];
      ++this_round[static_cast<std::size_t>(r)];
      rank_of(bumped[k]);
      clReleaseEvent(spun[k]);
      clReleaseEvent(bumped[k]);
      CL_REQUIRE(clEnqueueReadBuffer(q, outs[k]->m, CL_TRUE, 0, n * sizeof(cl_uint), result.data(),
                                     0, nullptr, nullptr));
      const auto salt = static_cast<cl_uint>(round * 100 + k);
      for (std::size_t i = 0; i < n; ++i) REQUIRE(result[i] == spin_on_host(input[i], salt) + 1u);
    }
    CHECK(std::accumulate(this_round.begin(), this_round.end(), 0) ==
          static_cast<int>(per_round));
    std::string spread;
    for (int c : this_round) spread += " " + std::to_string(c);
    std::printf("context queue over %d ranks, burst %zu: kernels per rank%s\n", ranks, round,
                spread.c_str());
  }
  // Every rank took kernels: each place calibrates on the first ones. Where
  // the later bursts go follows the times measured on cores every rank
  // shares here, under whatever else runs: test_rank_placement pins that
  // rule with known times; this prints it.
  for (int r = 0; r < ranks; ++r) CHECK(ran_on[static_cast<std::size_t>(r)] > 0);
  clReleaseCommandQueue(q);
}

// Not a ctest test: the per-command latency of a small kernel, each
// launch waited for, on rank 0's PoCL device and on rank 1's.
TEST_CASE("per-command latency, local and remote", "[.latency]") {
  for (int rank : {0, 1}) {
    const std::size_t n = 256;
    AddOneOn on(pocl_of_rank(rank), n);
    cl_command_queue q = on.q;
    cl_kernel add_one = on.add_one;
    for (int warm = 0; warm < 20; ++warm) {
      CL_REQUIRE(clEnqueueNDRangeKernel(q, add_one, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
      CL_REQUIRE(clFinish(q));
    }
    const int runs = 300;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < runs; ++i) {
      CL_REQUIRE(clEnqueueNDRangeKernel(q, add_one, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
      CL_REQUIRE(clFinish(q));
    }
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        runs;
    std::printf("rank %d (%s): %.1f us per kernel launch waited for\n", rank,
                rank ? "remote" : "local", us);
  }
}
