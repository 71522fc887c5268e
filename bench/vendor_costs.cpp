// What a vendor's own OpenCL calls cost when used the way Parasol's direct
// path uses them, without Parasol: the same tiny-kernel stream (or, with
// BENCH_STREAM=write, a stream of 64-byte non-blocking writes) sent to the
// vendor directly, adding one ingredient at a time (an output event per
// command, setting every argument again, a thread waiting on the newest
// event, a callback per command). Tells which part of Parasol's per-command
// overhead (bench_command_overhead) is the vendor's answer to those calls.
//
//   bench_vendor_costs [vendor-platform-prefix]   (default: the first platform)
// Environment: BENCH_COMMANDS [2000] per stream, BENCH_ROUNDS [5] (best of),
// BENCH_STREAM [kernel] or write, BENCH_OWN_NS [1000] (the pipelined cases).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "bench_util.h"

using namespace bench;

namespace {

const char* kSource =
    "__kernel void tiny_saxpy(__global float* y, __global const float* x, float a) {\n"
    "  size_t i = get_global_id(0); y[i] = a * x[i] + y[i];\n"
    "}\n";

struct Stream {
  cl_command_queue q;
  cl_kernel k;
  cl_mem x, y;
  size_t items = 1024;
  float a = 1.0f;
  bool writes = false;  // a stream of small writes instead of kernels
  float small[16] = {};

  void set_args() {
    BENCH_CHECK(clSetKernelArg(k, 0, sizeof y, &y));
    BENCH_CHECK(clSetKernelArg(k, 1, sizeof x, &x));
    BENCH_CHECK(clSetKernelArg(k, 2, sizeof a, &a));
  }
  cl_event launch(bool want_event) {
    cl_event e = nullptr;
    if (writes)
      BENCH_CHECK(clEnqueueWriteBuffer(q, x, CL_FALSE, 0, sizeof small, small, 0, nullptr,
                                       want_event ? &e : nullptr));
    else
      BENCH_CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &items, nullptr, 0, nullptr,
                                         want_event ? &e : nullptr));
    return e;
  }
};

// A thread that waits on the newest event handed to it, as Parasol's waiter
// does: one wait per batch, then releases what completed.
class Waiter {
 public:
  // poll_us > 0: polls the newest event's status, sleeping between polls,
  // instead of blocking in clWaitForEvents.
  explicit Waiter(int poll_us = 0) : poll_us_(poll_us), thread_([this] { run(); }) {}
  ~Waiter() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  void push(cl_event e) {
    std::lock_guard lock(mutex_);
    bool was_empty = pending_.empty();
    pending_.push_back(e);
    if (was_empty) cv_.notify_one();
  }
  void drain() {
    std::unique_lock lock(mutex_);
    drained_.wait(lock, [&] { return pending_.empty(); });
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !pending_.empty(); });
      if (pending_.empty()) return;
      cl_event newest = pending_.back();
      std::size_t n = pending_.size();
      lock.unlock();
      if (poll_us_ > 0) {
        cl_int status = CL_QUEUED;
        for (;;) {
          clGetEventInfo(newest, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                         nullptr);
          if (status <= CL_COMPLETE) break;
          std::this_thread::sleep_for(std::chrono::microseconds(poll_us_));
        }
      } else {
        clWaitForEvents(1, &newest);
      }
      lock.lock();
      for (std::size_t i = 0; i < n; ++i) {
        clReleaseEvent(pending_.front());
        pending_.pop_front();
      }
      if (pending_.empty()) drained_.notify_all();
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_, drained_;
  std::deque<cl_event> pending_;
  bool stop_ = false;
  int poll_us_;
  std::thread thread_;
};

// A spinning thread's pause between two looks (x86's PAUSE; elsewhere none).
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// A second thread that makes the vendor calls the stream's thread hands it
// (a single-producer ring, the submitter spinning while the stream runs):
// whether a pipelined launch, the application's thread doing only its own
// part, runs at the vendor's own rate.
class Submitter {
 public:
  explicit Submitter(Stream& s) : s_(s), thread_([this] { run(); }) {}
  ~Submitter() {
    stop_.store(true, std::memory_order_release);
    thread_.join();
  }
  void push(bool want_event) {
    const unsigned t = tail_.load(std::memory_order_relaxed);
    while (t - head_.load(std::memory_order_acquire) == kSize) spin_pause();
    want_[t % kSize] = want_event;
    tail_.store(t + 1, std::memory_order_release);
  }
  void drain() {
    while (head_.load(std::memory_order_acquire) != tail_.load(std::memory_order_relaxed))
      spin_pause();
  }

 private:
  static constexpr unsigned kSize = 1024;
  void run() {
    for (;;) {
      const unsigned h = head_.load(std::memory_order_relaxed);
      if (h == tail_.load(std::memory_order_acquire)) {
        if (stop_.load(std::memory_order_acquire)) return;
        spin_pause();
        continue;
      }
      if (cl_event e = s_.launch(want_[h % kSize])) clReleaseEvent(e);
      head_.store(h + 1, std::memory_order_release);
    }
  }
  Stream& s_;
  bool want_[kSize] = {};
  alignas(64) std::atomic<unsigned> head_{0};
  alignas(64) std::atomic<unsigned> tail_{0};
  alignas(64) std::atomic<bool> stop_{false};
  std::thread thread_;
};

// About `ns` of the application thread's own work (a stand-in for a
// runtime's part of a launch).
void busy(int ns) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < until) {
  }
}

void CL_CALLBACK count_done(cl_event e, cl_int, void* counter) {
  static_cast<std::atomic<int>*>(counter)->fetch_add(1, std::memory_order_relaxed);
  clReleaseEvent(e);
}

}  // namespace

int main(int argc, char** argv) {
  cl_platform_id p = nullptr;
  if (argc > 1) {
    p = find_platform(argv[1]);
  } else {
    cl_uint n = 0;
    clGetPlatformIDs(1, &p, &n);
  }
  auto devs = devices(p);
  if (!p || devs.empty()) {
    std::fprintf(stderr, "no such platform or no device\n");
    return 1;
  }
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, 1, &devs[0], nullptr, nullptr, &err);
  BENCH_CHECK(err);
  Stream s{};
  s.q = clCreateCommandQueue(ctx, devs[0], 0, &err);
  BENCH_CHECK(err);
  cl_program prog = build(ctx, kSource);
  s.k = clCreateKernel(prog, "tiny_saxpy", &err);
  BENCH_CHECK(err);
  s.x = clCreateBuffer(ctx, CL_MEM_READ_WRITE, s.items * sizeof(float), nullptr, &err);
  BENCH_CHECK(err);
  s.y = clCreateBuffer(ctx, CL_MEM_READ_WRITE, s.items * sizeof(float), nullptr, &err);
  BENCH_CHECK(err);
  s.set_args();
  s.writes = env_string("BENCH_STREAM", "kernel") == "write";
  const int n = env_int("BENCH_COMMANDS", 2000), rounds = env_int("BENCH_ROUNDS", 5);

  struct Case {
    const char* what;
    std::function<void()> run;
  };
  std::vector<cl_event> events(n);
  // The stream with a Waiter completing its events (blocking, or polling
  // every poll_us); every32: only one command in 32, and the last, asks
  // the vendor for one.
  auto waited = [&](int poll_us, bool every32) {
    return [&, poll_us, every32] {
      Waiter w(poll_us);
      for (int i = 0; i < n; ++i)
        if (cl_event e = s.launch(!every32 || i % 32 == 31 || i == n - 1)) w.push(e);
      BENCH_CHECK(clFlush(s.q));
      w.drain();
    };
  };
  const int own_ns = env_int("BENCH_OWN_NS", 1000);
  auto inline_own = [&] {
    for (int i = 0; i < n; ++i) {
      busy(own_ns);
      s.launch(false);
    }
    BENCH_CHECK(clFinish(s.q));
  };
  auto piped = [&](int ns) {
    return [&, ns] {
      Submitter sub(s);
      for (int i = 0; i < n; ++i) {
        if (ns) busy(ns);
        sub.push(false);
      }
      sub.drain();
      BENCH_CHECK(clFinish(s.q));
    };
  };
  std::vector<Case> cases = {
      {"no event (the bench's vendor baseline)",
       [&] {
         for (int i = 0; i < n; ++i) s.launch(false);
         BENCH_CHECK(clFinish(s.q));
       }},
      {"output event per command, released after clFinish",
       [&] {
         for (int i = 0; i < n; ++i) events[i] = s.launch(true);
         BENCH_CHECK(clFinish(s.q));
         for (cl_event e : events) clReleaseEvent(e);
       }},
      {"every argument set again, no event",
       [&] {
         for (int i = 0; i < n; ++i) {
           s.set_args();
           s.launch(false);
         }
         BENCH_CHECK(clFinish(s.q));
       }},
      {"output event + retain/release pair per command",
       [&] {
         for (int i = 0; i < n; ++i) {
           events[i] = s.launch(true);
           clRetainEvent(events[i]);
           clReleaseEvent(events[i]);
         }
         BENCH_CHECK(clFinish(s.q));
         for (cl_event e : events) clReleaseEvent(e);
       }},
      {"output event, a thread waiting on the newest (Parasol's waiter)", waited(0, false)},
      {"output event, a thread polling the newest every 20 us", waited(20, false)},
      {"output event, a thread polling the newest every 200 us", waited(200, false)},
      {"event on every 32nd command (and the last), waiter on those", waited(0, true)},
      {"event on every 32nd command (and the last), callback on those",
       [&] {
         std::atomic<int> done{0};
         int armed = 0;
         for (int i = 0; i < n; ++i)
           if (cl_event e = s.launch(i % 32 == 31 || i == n - 1)) {
             BENCH_CHECK(clSetEventCallback(e, CL_COMPLETE, count_done, &done));
             ++armed;
           }
         BENCH_CHECK(clFinish(s.q));
         while (done.load() < armed) std::this_thread::yield();
       }},
      {"output event, one callback per command",
       [&] {
         std::atomic<int> done{0};
         for (int i = 0; i < n; ++i)
           BENCH_CHECK(clSetEventCallback(s.launch(true), CL_COMPLETE, count_done, &done));
         BENCH_CHECK(clFinish(s.q));
         while (done.load() < n) std::this_thread::yield();
       }},
      {"args again + event + waiter thread (all of the above but callbacks)",
       [&] {
         Waiter w;
         for (int i = 0; i < n; ++i) {
           s.set_args();
           w.push(s.launch(true));
         }
         BENCH_CHECK(clFlush(s.q));
         w.drain();
       }},
      {"BENCH_OWN_NS of own work per command, then the vendor call", inline_own},
      {"vendor calls from a second thread, nothing else", piped(0)},
      {"BENCH_OWN_NS of own work, vendor calls from a second thread", piped(own_ns)},
  };
  for (auto& c : cases) c.run();  // warm-up
  std::vector<double> us(cases.size(), 1e30);
  for (int r = 0; r < rounds; ++r)  // interleaved: noise hits every case alike
    for (std::size_t i = 0; i < cases.size(); ++i)
      us[i] = std::min(us[i], best_of(1, cases[i].run) * 1e6 / n);

  std::printf("### vendor costs: %s, %s, %d %s per stream\n\n", platform_name(p).c_str(),
              device_name(devs[0]).c_str(), n, s.writes ? "64-byte writes" : "tiny kernels");
  std::printf("| command stream | us per command | vs no event |\n|---|---|---|\n");
  for (std::size_t i = 0; i < cases.size(); ++i)
    std::printf("| %s | %.2f | %.2fx |\n", cases[i].what, us[i], us[i] / us[0]);
  clReleaseMemObject(s.x);
  clReleaseMemObject(s.y);
  clReleaseKernel(s.k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(s.q);
  clReleaseContext(ctx);
  return 0;
}
