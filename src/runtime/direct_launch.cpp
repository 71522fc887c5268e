#include "runtime/direct_launch.h"

#include <starpu.h>

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "runtime/vendor_handle.h"
#include "runtime/vendor_lock.h"
#include "util/callback_scope.h"

namespace parasol::runtime {

bool direct_path_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("PARASOL_DIRECT");
    return !(v && *v == '0');
  }();
  return on;
}

bool direct_capable(const core::Device& device) {
  return !device.is_native() && vendor_is_thread_safe(device.worker().platform);
}

bool may_wait_for_starpu() { return starpu_worker_get_id() < 0 && !CallbackScope::active(); }

bool dependencies_allow(const core::Device& device, std::span<core::Event* const> deps) {
  for (core::Event* e : deps) {
    cl_int s = e->status();
    if (s == CL_COMPLETE) continue;
    if (s < 0 || !e->queued_direct_on(&device)) return false;
  }
  return true;
}

namespace {

struct Pending {
  cl_event done;  // owned by the command until complete() runs
  void (*complete)(void*);
  void* self;
};

// The direct commands of one device in vendor-queue order: the queue is
// in order, so they complete front first.
struct Lane {
  std::mutex mutex;
  std::deque<Pending> fifo;
  unsigned launched = 0;
  std::condition_variable wake;  // the waiter: a command joined an empty lane
  std::once_flag waiter_started;
};

Lane& lane_of(const core::Device& device) {
  // Never destroyed: a waiter thread may still wait on its lane at exit.
  static Lane* lanes = new Lane[STARPU_NMAXWORKERS];
  return lanes[device.worker().worker_id];
}

bool vendor_complete(cl_event e) { return vendor_event_status(e, CL_QUEUED) <= CL_COMPLETE; }

// Completes the lane's commands the vendor finished; how many.
std::size_t harvest(Lane& lane) {
  std::vector<Pending> finished;
  {
    std::lock_guard lock(lane.mutex);
    while (!lane.fifo.empty() && vendor_complete(lane.fifo.front().done)) {
      finished.push_back(lane.fifo.front());
      lane.fifo.pop_front();
    }
  }
  for (const Pending& p : finished) p.complete(p.self);
  return finished.size();
}

void CL_CALLBACK harvest_callback(cl_event, cl_int, void* lane) {
  CallbackScope scope;
  harvest(*static_cast<Lane*>(lane));
}

// The vendor event of the lane's last command, retained; null when empty.
cl_event retained_last(Lane& lane) {
  std::lock_guard lock(lane.mutex);
  if (lane.fifo.empty()) return nullptr;
  cl_event last = lane.fifo.back().done;
  clRetainEvent(last);
  return last;
}

void arm(Lane& lane, cl_event done) {
  if (clSetEventCallback(done, CL_COMPLETE, &harvest_callback, &lane) != CL_SUCCESS) {
    clWaitForEvents(1, &done);  // a vendor without callbacks: wait here
    harvest(lane);
  }
}

// How the completion of direct commands is noticed (PARASOL_DIRECT_COMPLETION):
//  - waiter (default): one thread per device waits for the vendor event of
//    its lane's newest command and completes what finished: one wait (and
//    one implicit flush) per batch of commands, not per command; events
//    someone waits for, depends on or profiles get a callback as well.
//    The enqueuing thread pays nothing for the others; NVIDIA charges
//    5-6 us for a callback (docs/benchmarks.md).
//  - callback: a vendor callback on every command.
//  - lazy: callbacks only where someone waits (see hand_over_direct), the
//    rest noticed by later launches. It hung 1 cold Black-Scholes+SGEMM run
//    in 8 on the H100 host (heft and dmdas contexts side by side); the other
//    modes never did. Not understood: experimental.
enum class Completion { Waiter, Callback, Lazy };

Completion completion_mode() {
  static const Completion mode = [] {
    const char* v = std::getenv("PARASOL_DIRECT_COMPLETION");
    std::string_view s = v ? v : "";
    if (s == "lazy") return Completion::Lazy;
    if (s == "callback") return Completion::Callback;
    return Completion::Waiter;
  }();
  return mode;
}

void wait_for_lane(Lane& lane) {
  CallbackScope scope;  // completions launch successors: no waiting on StarPU here
  for (;;) {
    cl_event newest;
    {
      std::unique_lock lock(lane.mutex);
      lane.wake.wait(lock, [&] { return !lane.fifo.empty(); });
      newest = lane.fifo.back().done;
      clRetainEvent(newest);
    }
    clWaitForEvents(1, &newest);  // also flushes the vendor queue
    clReleaseEvent(newest);
    // Nothing done yet although the wait returned (a status lagging behind
    // the wait, or another thread harvested it): do not spin.
    if (harvest(lane) == 0) std::this_thread::yield();
  }
}

void wake_waiter(Lane& lane) {
  std::call_once(lane.waiter_started,
                 [&lane] { std::thread([&lane] { wait_for_lane(lane); }).detach(); });
  lane.wake.notify_one();
}

}  // namespace

void hand_over_direct(core::Event& event, LeasePins& pins, cl_event done,
                      void (*complete)(void*), void* self) {
  // A harvest elsewhere may complete (and let go of) the event as soon as
  // the command is in its lane.
  core::Ref<core::Event> keep(&event);
  // The event's own reference to the vendor event, taken now: once in the
  // lane, the command may complete and release its reference any moment.
  clRetainEvent(done);
  pins.used_by(done);
  Lane& lane = lane_of(*event.executed_on());
  unsigned launched;
  bool was_empty;
  {
    std::lock_guard lock(lane.mutex);
    was_empty = lane.fifo.empty();
    lane.fifo.push_back({done, complete, self});  // self may be gone from here on
    launched = ++lane.launched;
  }
  const Completion mode = completion_mode();
  // The waiter only sleeps on an empty lane.
  if (mode == Completion::Waiter && was_empty) wake_waiter(lane);
  // Published only once in the lane: whoever sees the vendor event may arm
  // its callback, whose harvest must find the command there. Whoever came
  // to await the event before (a successor registering between launch and
  // here: its flush found no vendor event) is seen now; flush_direct() and
  // wait() mark first and look second, so one side always sees the other
  // (else a successor could wait for a command nobody flushed or armed).
  event.queued_direct(done);
  const bool periodic = launched % 32 == 0;
  const bool awaited = event.awaited();
  // Where promptness matters, a callback in every mode: an awaited event,
  // and a profiled one (its end time is taken when it is noticed; the
  // waiter notices a batch at once).
  const bool arm_now = mode == Completion::Callback || event.profiled() || awaited ||
                       (mode == Completion::Lazy && periodic);
  if (arm_now && event.take_direct_arming()) arm(lane, done);
  // Awaited: what flush_direct() would have done had it seen the vendor
  // event (PoCL may not start a command before a flush). And now and then,
  // so that a vendor holding commands back starts them.
  if (awaited || periodic) clFlush(event.executed_on()->worker().queue);
  // Every 8th launch: a status query costs about 1.5 us on NVIDIA (H100
  // host), as much as the launch's own event.
  if (mode == Completion::Lazy && launched % 8 == 0) harvest(lane);
}

void direct_progress(core::Event& event, bool wait) {
  Lane& lane = lane_of(*event.executed_on());
  cl_event done = event.direct_done();
  if (wait) {
    clWaitForEvents(1, &done);
  } else {
    if (event.take_direct_arming()) arm(lane, done);
    clFlush(event.executed_on()->worker().queue);
  }
  harvest(lane);
}

void drain_direct(const core::Device& device) {
  Lane& lane = lane_of(device);
  cl_event last = retained_last(lane);
  if (!last) return;
  clWaitForEvents(1, &last);
  clReleaseEvent(last);
  harvest(lane);
}

void flush_direct(const core::Device& device) {
  Lane& lane = lane_of(device);
  clFlush(device.worker().queue);
  if (completion_mode() == Completion::Waiter) return;  // it notices by itself
  cl_event last = retained_last(lane);
  if (!last) return;
  arm(lane, last);
  clReleaseEvent(last);
}

}  // namespace parasol::runtime
