// Random commands (kernels, writes, reads, copies, fills, markers, barriers)
// on random queues (in-order and out-of-order, every device's and the
// context's), with random wait lists on earlier events, checked against a
// CPU model. The data dependencies themselves come from wait lists (a writer
// waits for the last writer and the readers since; a reader waits for the
// last writer), so a model that applies the same operations in enqueue order
// predicts every read and every event's status. Bounded in time: every wait
// has a time-out and the run has a deadline. Resident memory must not keep
// growing through the second half of the run.
//
// With a doomed device (the Fault Device under "exec_fail -5", "kernel_filter
// doomed_int" and "not_sticky": test/fault-vendor/README.md), some kernels
// fail there: the model expects every command naming a failed event in its
// wait list to fail too (whichever path it took: StarPU's, where it does not
// run, or the direct one, where the vendor may run it: core/event.h), and
// every other command to complete, queue order never propagating a failure.
// What a failed command writes is unknown to the model until a drain writes
// the buffer anew. User events, some of them set to that failure a few
// commands later, fail what waits for them on any device, doomed or not.
//
// Used by test_soak (every device of the suite) and test_fault_soak.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/core_fixture.h"
#include "reliability/reliability_support.h"

namespace parasol_test {

// kIntKernels and one more: what the doomed device fails.
inline const std::string kRandomCommandKernels =
    std::string(kIntKernels) +
    "__kernel void doomed_int(__global int* x) { x[get_global_id(0)] += 1000; }\n";

struct RandomCommandsOptions {
  std::vector<cl_device_id> devices;
  cl_device_id doomed = nullptr;  // a device whose doomed_int kernels fail
  cl_int doomed_status = CL_OUT_OF_RESOURCES;
  std::size_t commands = 3000;
  double seconds = 200;  // deadline of the whole run
  std::uint32_t seed = 1;
};

// PARASOL_SOAK_COMMANDS and PARASOL_SOAK_SEED override a run's count and seed.
inline std::size_t soak_commands(std::size_t fallback) {
  const char* s = std::getenv("PARASOL_SOAK_COMMANDS");
  return s && *s ? std::strtoull(s, nullptr, 10) : fallback;
}
inline std::uint32_t soak_seed(std::uint32_t fallback) {
  const char* s = std::getenv("PARASOL_SOAK_SEED");
  return s && *s ? static_cast<std::uint32_t>(std::strtoul(s, nullptr, 10)) : fallback;
}

class RandomCommands {
 public:
  explicit RandomCommands(RandomCommandsOptions options)
      : o_(std::move(options)), rng_(o_.seed) {}
  void run();

 private:
  static constexpr std::size_t kBuffers = 6;
  static constexpr std::size_t kInts = 256;  // per buffer
  static constexpr std::size_t kRecent = 32;  // events random wait lists pick from
  static constexpr std::size_t kMaxPendingReads = 16;
  static constexpr double kWaitSeconds = 120;

  // An event and what the model expects of it.
  struct Expected {
    EventRef done;
    bool fails = false;
    std::size_t command = 0;
    const char* kind = "";
  };
  struct PendingRead {
    Expected e;
    std::vector<int> got, expected;
    std::vector<bool> known;
    std::size_t buffer, offset;
  };
  struct BufferState {
    cl_mem mem = nullptr;
    std::vector<int> model = std::vector<int>(kInts, 0);
    std::vector<bool> known = std::vector<bool>(kInts, true);  // false: a failed command wrote it
    Expected last_write;
    std::vector<Expected> readers;  // since the last write
  };
  struct WaitList {
    std::vector<cl_event> events;
    bool fails = false;  // a named event is expected to fail
    cl_uint size() const { return static_cast<cl_uint>(events.size()); }
    const cl_event* data() const { return events.empty() ? nullptr : events.data(); }
  };

  cl_command_queue random_queue(bool kernel);
  std::size_t random_buffer() { return rng_() % kBuffers; }
  // A random [offset, offset + count) range of ints within a buffer.
  void random_range(std::size_t& offset, std::size_t& count) {
    offset = rng_() % kInts;
    count = 1 + rng_() % (kInts - offset);
  }
  // The wait list of a command reading `reads` and writing `writes`, plus
  // up to two random earlier events.
  WaitList wait_list(std::initializer_list<std::size_t> reads,
                     std::initializer_list<std::size_t> writes);
  Expected record(cl_event e, bool fails, std::initializer_list<std::size_t> reads,
                  std::initializer_list<std::size_t> writes);
  // What a command writing [o, o+n) of b leaves the model knowing there.
  void written(std::size_t b, std::size_t o, std::size_t n, bool fails) {
    if (fails) std::fill(buffers_[b].known.begin() + o, buffers_[b].known.begin() + o + n, false);
  }
  void one_command(std::size_t i);
  void check(const Expected& e);
  void check_oldest_read();
  // Sets the user events whose time came (all: before anything waits).
  void set_user_events(bool all);
  void drain();
  void renew_unknown_data();
  void renew_buffer(std::size_t b);
  void warm_up();
  cl_int wait(cl_event e, const char* what);

  RandomCommandsOptions o_;
  std::mt19937 rng_;
  std::unique_ptr<Context> ctx_;
  std::unique_ptr<Program> prog_;
  std::unique_ptr<Kernel> add_, copy_, iota_, doomed_;
  std::vector<std::unique_ptr<Queue>> queues_;
  std::vector<bool> slow_queue_;    // Oclgrind's device queues
  std::vector<cl_command_queue> doomed_queues_;  // the doomed device's
  std::vector<BufferState> buffers_;
  std::deque<Expected> recent_;
  std::deque<PendingRead> reads_;
  std::vector<Expected> unchecked_;  // events since the last drain, but reads' (reads_ has them)
  std::size_t since_drain_ = 0;      // commands since the last drain, for messages
  std::vector<std::vector<int>> patterns_;
  struct PendingUserEvent {
    cl_event event;
    bool fails;
    std::size_t set_at;  // command index
  };
  std::vector<PendingUserEvent> user_events_;  // created, not set yet
  std::size_t now_ = 0;                        // index of the command being made
  std::size_t counts_[11] = {};
  std::size_t failed_ = 0;  // commands the model expected to fail
};

inline cl_int RandomCommands::wait(cl_event e, const char* what) {
  cl_int status = wait_bounded(e, kWaitSeconds);
  INFO(what);
  REQUIRE(status <= CL_COMPLETE);  // else: still running after the time-out
  return status;
}

inline cl_command_queue RandomCommands::random_queue(bool kernel) {
  for (;;) {
    std::size_t i = rng_() % queues_.size();
    // Oclgrind simulates every work-item: keep most kernels off it.
    if (kernel && slow_queue_[i] && rng_() % 4 != 0) continue;
    return queues_[i]->q;
  }
}

inline RandomCommands::WaitList RandomCommands::wait_list(
    std::initializer_list<std::size_t> reads, std::initializer_list<std::size_t> writes) {
  WaitList list;
  auto add = [&list](const Expected& e) {
    list.events.push_back(e.done.get());
    list.fails |= e.fails;
  };
  for (std::size_t b : reads)
    if (buffers_[b].last_write.done) add(buffers_[b].last_write);
  for (std::size_t b : writes) {
    if (buffers_[b].last_write.done) add(buffers_[b].last_write);
    for (auto& r : buffers_[b].readers) add(r);
  }
  std::size_t extra = recent_.empty() ? 0 : rng_() % 3;
  for (std::size_t k = 0; k < extra; ++k) {
    const Expected& e = recent_[rng_() % recent_.size()];
    // Failed ones less often: each spreads to whatever names it.
    if (!e.fails || rng_() % 4 == 0) add(e);
  }
  return list;
}

inline RandomCommands::Expected RandomCommands::record(cl_event e, bool fails,
                                                       std::initializer_list<std::size_t> reads,
                                                       std::initializer_list<std::size_t> writes) {
  Expected x{EventRef::adopt(e), fails, 0, ""};
  x.command = since_drain_++;
  failed_ += fails;
  for (std::size_t b : reads) buffers_[b].readers.push_back(x);
  for (std::size_t b : writes) {
    buffers_[b].last_write = x;
    buffers_[b].readers.clear();
  }
  recent_.push_back(x);
  if (recent_.size() > kRecent) recent_.pop_front();
  return x;
}

inline void RandomCommands::check(const Expected& e) {
  cl_int status = wait(e.done.get(), e.kind);
  INFO("command " << e.command << " (" << e.kind << ") since the last drain, expected to "
                  << (e.fails ? "fail" : "complete"));
  CHECK(status == (e.fails ? o_.doomed_status : CL_COMPLETE));
}

inline void RandomCommands::set_user_events(bool all) {
  for (auto it = user_events_.begin(); it != user_events_.end();) {
    if (!all && it->set_at > now_) {
      ++it;
      continue;
    }
    CL_REQUIRE(clSetUserEventStatus(it->event, it->fails ? o_.doomed_status : CL_COMPLETE));
    clReleaseEvent(it->event);
    it = user_events_.erase(it);
  }
}

inline void RandomCommands::check_oldest_read() {
  set_user_events(true);  // else the read may wait for one forever
  PendingRead& r = reads_.front();
  check(r.e);
  if (!r.e.fails) {
    for (std::size_t k = 0; k < r.got.size(); ++k) {
      if (!r.known[k] || r.got[k] == r.expected[k]) continue;
      FAIL("a read of buffer " << r.buffer << " at int " << r.offset + k << " gave " << r.got[k]
                               << ", the model says " << r.expected[k]);
    }
  }
  reads_.pop_front();
}

inline void RandomCommands::one_command(std::size_t i) {
  const char* names[] = {"add", "copy kernel", "iota", "write", "read", "copy", "fill", "marker",
                         "barrier", "doomed kernel", "user event"};
  // Weights of add, copy kernel, iota, write, read, copy, fill, marker,
  // barrier, doomed kernel (only with a doomed device), user event (set a
  // few commands later: failed one time in eight, with the doomed status).
  const std::discrete_distribution<int>::param_type weights{
      18, 8, 8, 12, 14, 12, 12, 10, 6, doomed_queues_.empty() ? 0.0 : 1.0, 2};
  now_ = i;
  set_user_events(false);
  // Every later writer of a buffer names its last writer: once that failed,
  // all of them would, until the next drain (the long soak failed 86% of
  // its commands so). Now and then such a buffer is written anew.
  if (rng_() % 4 == 0) {
    std::size_t b = random_buffer();
    if (buffers_[b].last_write.fails) renew_buffer(b);
  }
  std::discrete_distribution<int> pick_op(weights);
  int op = pick_op(rng_);
  ++counts_[op];
  INFO("command " << i << ": " << names[op]);
  cl_event e = nullptr;
  Expected x;
  switch (op) {
    case 0: {  // x[o, o+n) += c
      std::size_t b = random_buffer(), o, n;
      random_range(o, n);
      int c = static_cast<int>(rng_() % 11) - 5;
      auto waits = wait_list({}, {b});
      set_args(*add_, buffers_[b].mem, c);
      CL_REQUIRE(clEnqueueNDRangeKernel(random_queue(true), *add_, 1, &o, &n, nullptr,
                                        waits.size(), waits.data(), &e));
      for (std::size_t k = o; k < o + n; ++k) buffers_[b].model[k] += c;
      written(b, o, n, waits.fails);
      x = record(e, waits.fails, {}, {b});
      break;
    }
    case 1: {  // dst = src, whole buffers
      std::size_t s = random_buffer(), d = random_buffer();
      if (s == d) d = (d + 1) % kBuffers;
      auto waits = wait_list({s}, {d});
      set_args(*copy_, buffers_[s].mem, buffers_[d].mem);
      CL_REQUIRE(clEnqueueNDRangeKernel(random_queue(true), *copy_, 1, nullptr, &kInts, nullptr,
                                        waits.size(), waits.data(), &e));
      buffers_[d].model = buffers_[s].model;
      buffers_[d].known = buffers_[s].known;
      written(d, 0, kInts, waits.fails);
      x = record(e, waits.fails, {s}, {d});
      break;
    }
    case 2: {  // x[k] = base + k on [o, o+n)
      std::size_t b = random_buffer(), o, n;
      random_range(o, n);
      int base = static_cast<int>(rng_() % 1000) - 500;
      auto waits = wait_list({}, {b});
      set_args(*iota_, buffers_[b].mem, base);
      CL_REQUIRE(clEnqueueNDRangeKernel(random_queue(true), *iota_, 1, &o, &n, nullptr,
                                        waits.size(), waits.data(), &e));
      for (std::size_t k = o; k < o + n; ++k) {
        buffers_[b].model[k] = base + static_cast<int>(k);
        buffers_[b].known[k] = true;
      }
      written(b, o, n, waits.fails);
      x = record(e, waits.fails, {}, {b});
      break;
    }
    case 3: {  // write a pattern's [0, n) to [o, o+n)
      std::size_t b = random_buffer(), o, n;
      random_range(o, n);
      const auto& p = patterns_[rng_() % patterns_.size()];
      auto waits = wait_list({}, {b});
      CL_REQUIRE(clEnqueueWriteBuffer(random_queue(false), buffers_[b].mem, CL_FALSE,
                                      o * sizeof(int), n * sizeof(int), p.data(), waits.size(),
                                      waits.data(), &e));
      std::copy(p.begin(), p.begin() + n, buffers_[b].model.begin() + o);
      std::fill(buffers_[b].known.begin() + o, buffers_[b].known.begin() + o + n, true);
      written(b, o, n, waits.fails);
      x = record(e, waits.fails, {}, {b});
      break;
    }
    case 4: {  // read [o, o+n), checked when it completes
      std::size_t b = random_buffer(), o, n;
      random_range(o, n);
      auto waits = wait_list({b}, {});
      PendingRead r;
      r.got.assign(n, -77777);
      r.expected.assign(buffers_[b].model.begin() + o, buffers_[b].model.begin() + o + n);
      r.known.assign(buffers_[b].known.begin() + o, buffers_[b].known.begin() + o + n);
      r.buffer = b;
      r.offset = o;
      CL_REQUIRE(clEnqueueReadBuffer(random_queue(false), buffers_[b].mem, CL_FALSE,
                                     o * sizeof(int), n * sizeof(int), r.got.data(),
                                     waits.size(), waits.data(), &e));
      x = record(e, waits.fails, {b}, {});
      x.kind = names[op];
      r.e = x;
      reads_.push_back(std::move(r));
      if (reads_.size() > kMaxPendingReads) check_oldest_read();
      return;  // checked with its data, not again in unchecked_
    }
    case 5: {  // copy [so, so+n) of src to [dO, dO+n) of dst
      std::size_t s = random_buffer(), d = random_buffer();
      if (s == d) d = (d + 1) % kBuffers;
      std::size_t so, n;
      random_range(so, n);
      std::size_t dO = rng_() % (kInts - n + 1);
      auto waits = wait_list({s}, {d});
      CL_REQUIRE(clEnqueueCopyBuffer(random_queue(false), buffers_[s].mem, buffers_[d].mem,
                                     so * sizeof(int), dO * sizeof(int), n * sizeof(int),
                                     waits.size(), waits.data(), &e));
      std::copy(buffers_[s].model.begin() + so, buffers_[s].model.begin() + so + n,
                buffers_[d].model.begin() + dO);
      std::copy(buffers_[s].known.begin() + so, buffers_[s].known.begin() + so + n,
                buffers_[d].known.begin() + dO);
      written(d, dO, n, waits.fails);
      x = record(e, waits.fails, {s}, {d});
      break;
    }
    case 6: {  // fill [o, o+n) with v
      std::size_t b = random_buffer(), o, n;
      random_range(o, n);
      int v = static_cast<int>(rng_() % 100000);
      auto waits = wait_list({}, {b});
      CL_REQUIRE(clEnqueueFillBuffer(random_queue(false), buffers_[b].mem, &v, sizeof v,
                                     o * sizeof(int), n * sizeof(int), waits.size(), waits.data(),
                                     &e));
      std::fill(buffers_[b].model.begin() + o, buffers_[b].model.begin() + o + n, v);
      std::fill(buffers_[b].known.begin() + o, buffers_[b].known.begin() + o + n, true);
      written(b, o, n, waits.fails);
      x = record(e, waits.fails, {}, {b});
      break;
    }
    case 7:
    case 8: {  // marker or barrier on random earlier events (or all before: not failed by them)
      auto waits = wait_list({}, {});
      auto* fn = op == 7 ? &clEnqueueMarkerWithWaitList : &clEnqueueBarrierWithWaitList;
      CL_REQUIRE(fn(random_queue(false), waits.size(), waits.data(), &e));
      x = record(e, waits.fails, {}, {});
      break;
    }
    case 10: {  // a user event later commands may wait for (recent_)
      cl_int err = CL_SUCCESS;
      e = clCreateUserEvent(*ctx_, &err);
      CL_REQUIRE(err);
      bool fails = rng_() % 8 == 0;
      clRetainEvent(e);  // for set_user_events()
      user_events_.push_back({e, fails, i + 1 + rng_() % 8});
      x = record(e, fails, {}, {});
      break;
    }
    case 9: {  // doomed: fails on the doomed device, whatever it waits for
      std::size_t b = random_buffer(), o, n;
      random_range(o, n);
      auto waits = wait_list({}, {b});
      set_args(*doomed_, buffers_[b].mem);
      cl_command_queue q = doomed_queues_[rng_() % doomed_queues_.size()];
      CL_REQUIRE(clEnqueueNDRangeKernel(q, *doomed_, 1, &o, &n, nullptr, waits.size(),
                                        waits.data(), &e));
      written(b, o, n, true);
      x = record(e, true, {}, {b});
      break;
    }
  }
  x.kind = names[op];
  unchecked_.push_back(std::move(x));
}

inline void RandomCommands::drain() {
  set_user_events(true);
  while (!reads_.empty()) check_oldest_read();
  for (const Expected& e : unchecked_) check(e);
  unchecked_.clear();
  since_drain_ = 0;
  renew_unknown_data();
}

// Writes every buffer a failed command left unknown anew, once nothing runs.
inline void RandomCommands::renew_unknown_data() {
  bool any = false;
  for (auto& b : buffers_) any |= std::find(b.known.begin(), b.known.end(), false) != b.known.end();
  if (!any) return;
  for (auto& q : queues_) CL_REQUIRE(clFinish(q->q));
  for (std::size_t b = 0; b < kBuffers; ++b)
    if (std::find(buffers_[b].known.begin(), buffers_[b].known.end(), false) !=
        buffers_[b].known.end())
      renew_buffer(b);
  recent_.clear();
}

// Writes buffer b anew from the model once every command touching it has
// ended: waited for here, not named in a wait list, so that the write does
// not inherit their failure.
inline void RandomCommands::renew_buffer(std::size_t i) {
  BufferState& b = buffers_[i];
  set_user_events(true);
  if (b.last_write.done) wait(b.last_write.done.get(), "a buffer's last write");
  for (auto& r : b.readers) wait(r.done.get(), "a buffer's reader");
  CL_REQUIRE(clEnqueueWriteBuffer(random_queue(false), b.mem, CL_TRUE, 0, kInts * sizeof(int),
                                  b.model.data(), 0, nullptr, nullptr));
  std::fill(b.known.begin(), b.known.end(), true);
  b.last_write = {};
  b.readers.clear();
}

// Every kernel once on every device queue (leaving the data as it was):
// vendors allocate for good on first use (a one-time step of about 12 MiB
// that, landing in the second half of a run, looked like growth).
inline void RandomCommands::warm_up() {
  const cl_mem m = buffers_[0].mem;
  for (std::size_t i = 0; i < queues_.size(); ++i) {
    cl_command_queue q = queues_[i]->q;
    set_args(*add_, m, 0);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, *add_, 1, nullptr, &kInts, nullptr, 0, nullptr, nullptr));
    set_args(*copy_, m, m);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, *copy_, 1, nullptr, &kInts, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(q));
  }
}

inline void RandomCommands::run() {
  REQUIRE(o_.devices.size() >= 2);
  ctx_ = std::make_unique<Context>(o_.devices);
  prog_ = std::make_unique<Program>(*ctx_, kRandomCommandKernels.c_str());
  add_ = std::make_unique<Kernel>(*prog_, "add_const_int");
  copy_ = std::make_unique<Kernel>(*prog_, "copy_int");
  iota_ = std::make_unique<Kernel>(*prog_, "iota_from");
  doomed_ = std::make_unique<Kernel>(*prog_, "doomed_int");
  for (cl_device_id d : o_.devices) {
    bool slow = vendor_of(d).rfind("Oclgrind", 0) == 0;
    for (cl_command_queue_properties p : {cl_command_queue_properties{0},
                                          cl_command_queue_properties{CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE}}) {
      queues_.push_back(std::make_unique<Queue>(*ctx_, d, p));
      slow_queue_.push_back(slow);
      if (d == o_.doomed) doomed_queues_.push_back(queues_.back()->q);
    }
  }
  for (cl_command_queue_properties p : {cl_command_queue_properties{0},
                                        cl_command_queue_properties{CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE}}) {
    queues_.push_back(std::make_unique<Queue>(*ctx_, nullptr, p));
    slow_queue_.push_back(false);
  }
  buffers_.resize(kBuffers);
  std::vector<std::unique_ptr<Mem>> mems;
  for (auto& b : buffers_) {
    mems.push_back(std::make_unique<Mem>(*ctx_, CL_MEM_COPY_HOST_PTR, kInts * sizeof(int),
                                         b.model.data()));
    b.mem = mems.back()->m;
  }
  for (int p = 0; p < 8; ++p) {
    std::vector<int> v(kInts);
    for (auto& x : v) x = static_cast<int>(rng_() % 2000000) - 1000000;
    patterns_.push_back(std::move(v));
  }
  warm_up();

  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // Resident memory and malloc's bytes in use at ten checkpoints, each after
  // draining every command.
  std::vector<std::size_t> rss, in_use;
  std::string tenths;  // seconds per tenth of the run
  double last_checkpoint = 0;
  const std::size_t step = std::max<std::size_t>(1, o_.commands / 10);
  for (std::size_t i = 0; i < o_.commands; ++i) {
    one_command(i);
    if ((i + 1) % step == 0) {
      drain();
      rss.push_back(resident_bytes());
      in_use.push_back(malloc_in_use_bytes());
      tenths += std::to_string(elapsed() - last_checkpoint).substr(0, 5) + " ";
      last_checkpoint = elapsed();
      INFO("after " << i + 1 << " commands, " << elapsed() << " s");
      REQUIRE(elapsed() < o_.seconds);
    }
  }
  drain();
  for (std::size_t b = 0; b < kBuffers; ++b) {
    INFO("buffer " << b << " at the end");
    CHECK(read_ints(queues_[b % queues_.size()]->q, buffers_[b].mem, kInts) == buffers_[b].model);
  }
  for (auto& q : queues_) CL_REQUIRE(clFinish(q->q));

  std::string counts;
  for (auto c : counts_) counts += std::to_string(c) + " ";
  std::string rss_mib, in_use_mib;
  for (auto r : rss) rss_mib += std::to_string(r >> 20) + " ";
  for (auto r : in_use) in_use_mib += std::to_string(r >> 20) + " ";
  WARN(o_.commands << " commands in " << elapsed() << " s; per kind (add, copy kernel, iota, "
                   "write, read, copy, fill, marker, barrier, doomed, user event): " << counts
                   << "; expected to fail: " << failed_ << "; resident MiB at each tenth: "
                   << rss_mib << "; malloc MiB in use: " << in_use_mib << "; seconds per tenth: "
                   << tenths);
  // The second half may not grow beyond some slack: allocator caches and
  // StarPU's performance-model history settle in the first half. Resident
  // memory gets more: a thread's first allocations open a malloc arena, a
  // one-time step of about 12 MiB that may come late (it did in 2 of 8 seeds).
  if (!kSanitized && rss.size() >= 10) {
    std::size_t mid = in_use[4], end = in_use.back();
    std::size_t slack = std::max<std::size_t>(4u << 20, mid / 20);
    INFO("malloc's bytes in use at the middle " << (mid >> 10) << " KiB, at the end "
                                                << (end >> 10) << " KiB");
    CHECK(end <= mid + slack);
    mid = rss[4];
    end = rss.back();
    slack = std::max<std::size_t>(32u << 20, mid / 10);
    INFO("resident at the middle " << (mid >> 10) << " KiB, at the end " << (end >> 10) << " KiB");
    CHECK(end <= mid + slack);
  }
}

}  // namespace parasol_test
