// Events and the command graph.
//
// Parasol keeps the OpenCL dependency graph itself: a command is handed to
// StarPU (or to the host-side data path) only once every event it waits for
// has completed. So user events, markers, barriers and failures all follow
// one rule, and StarPU only ever sees work that can run now. A command whose
// dependency failed does not run: its event takes the same negative status
// (a direct command already queued behind it on the vendor may have run; its
// event takes that status all the same: begin_direct()).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "core/object.h"
#include "util/block_pool.h"
#include "util/small_vector.h"

namespace parasol::core {

class Context;
class CommandQueue;
class Device;
class Event;

// The work behind a command. launch() runs it once every dependency has
// completed; the work must end by calling event.complete() exactly once.
// The runtime implements it (runtime/command.h); every enqueue creates
// one, from the block pool (util/block_pool.h).
class Command : public Pooled {
 public:
  virtual ~Command() = default;
  virtual void launch(Event& event) = 0;
};

struct EventCallback {
  void(CL_CALLBACK* fn)(cl_event, cl_int, void*);
  void* user_data;
  cl_int trigger;  // CL_SUBMITTED, CL_RUNNING or CL_COMPLETE
};

class Event final : public Object<Event, _cl_event, ObjectKind::Event> {
 public:
  // A command's event; queue is null for user events.
  Event(Context* context, CommandQueue* queue, cl_command_type type,
        std::unique_ptr<Command> work);
  ~Event();
  // Every enqueue creates one: from the block pool (util/block_pool.h). Not
  // through a base class: nothing may come before the handle's dispatch
  // pointer.
  static void* operator new(std::size_t bytes) { return block_pool::allocate(bytes); }
  static void operator delete(void* block, std::size_t bytes) noexcept {
    block_pool::deallocate(block, bytes);
  }

  // A small number naming this event in logs and traces: events are numbered
  // 1, 2, 3... in the order they are created, process-wide.
  std::uint64_t id() const { return id_; }
  Context* context() const { return context_; }
  CommandQueue* queue() const { return queue_; }
  cl_command_type command_type() const { return type_; }
  cl_int status() const;
  bool finished() const { return status() <= CL_COMPLETE; }

  // Declares an event this one waits for; call before start(). A failed
  // dependency fails this command too when it was named in a wait list
  // (propagate); queue order only orders, so one failure does not poison
  // every later command of an in-order queue.
  void depend_on(Event* dependency, bool propagate_failure = true);
  // Ends dependency registration: the command launches as soon as the last
  // dependency completes (now, if none is pending).
  void start();

  void set_running();

  // The direct launch path (runtime/direct_launch.h): instead of start(),
  // begin_direct() before the vendor enqueue (the event is in flight and
  // running on device), then queued_direct() once the command is on the
  // vendor's queue: later commands for that device may queue behind it.
  // deps: every event it waits for; until those still running have ended,
  // the command waits on its vendor queue: CL_SUBMITTED, then CL_RUNNING.
  // named: the events its wait list names. Those still running (queued
  // before it on device's vendor queue) hold its completion back until they
  // end, and a failure of theirs becomes its own, as on StarPU's path,
  // where it would not have run: the vendor runs it anyway (PoCL, unlike
  // CUDA, fails one command alone), so its event must say its inputs failed.
  // shared: another thread may see the event already (its handle is out, or
  // it is a queue's or a dependency's); false for one an enqueue just
  // created, whose move to CL_RUNNING then needs no lock (no callback can
  // be registered on it yet).
  void begin_direct(Device* device, std::span<Event* const> deps = {},
                    std::span<Event* const> named = {}, bool shared = true);
  // done: the vendor's event, a reference the event takes over (released
  // with the event); null for a command enqueued without one. lane: which
  // of the device's vendor queues has it (runtime/direct_launch.h).
  void queued_direct(cl_event done, unsigned lane);
  bool queued_direct_on(const Device* device) const {
    return direct_queued_.load(std::memory_order_acquire) && executed_on_ == device;
  }
  // Once queued_direct_on() its device.
  unsigned direct_lane() const { return direct_lane_; }
  bool direct_queued() const { return direct_queued_.load(); }  // seq_cst: see flush_direct()
  cl_event direct_done() const { return direct_done_.load(std::memory_order_acquire); }
  // True once: whoever gets it arms the vendor callback.
  bool take_direct_arming() { return !direct_armed_.exchange(true); }
  // Makes sure a direct command someone depends on or polls completes
  // promptly (its vendor callback, a flush). Also marks the event awaited,
  // for a command not yet on its vendor queue: its launcher arms it then.
  void flush_direct();
  // What makes a direct command progress (wait: the caller then blocks on
  // it): the direct path's, above this layer, which sets it during static
  // initialisation (runtime/layer_hooks.cpp).
  using DirectProgress = void (*)(Event& event, bool wait);
  static void set_direct_progress(DirectProgress progress);
  // Someone depends on, waits for, polls or has a callback on this event.
  bool awaited() const { return awaited_.load(); }
  // Terminal state: CL_COMPLETE or a negative error code. Later calls are ignored.
  void complete(cl_int status);
  // Completes a command that stands for the work of others (a SOCL divide
  // function's run): its profiling times are start (queued, submitted,
  // started) and end.
  void complete_spanning(std::uint64_t start, std::uint64_t end);

  // clSetUserEventStatus: false if the status was already set once.
  bool set_user_status(cl_int status);

  // Blocks until the event reaches a terminal state; returns that state.
  cl_int wait();
  void add_callback(const EventCallback& callback);

  // Profiling (nanoseconds, steady clock). Queued is taken on profiling
  // queues only; the others always (the trace, the device counters and
  // divide functions' statistics read them).
  std::uint64_t time_queued() const { return t_queued_; }
  std::uint64_t time_submit() const { return t_submit_; }
  std::uint64_t time_start() const { return t_start_; }
  std::uint64_t time_end() const { return t_end_; }
  bool profiled() const { return profiled_; }

  // The device that ran the command (null until it ran, or for host work).
  Device* executed_on() const { return executed_on_; }
  void set_executed_on(Device* d) { executed_on_ = d; }

  Command* work() const { return work_.get(); }

  // The partitioning factor a divisible kernel ran with (0: undivided).
  cl_uint partitioning_factor() const { return partitioning_factor_; }
  void set_partitioning_factor(cl_uint f) { partitioning_factor_ = f; }

  // The parts of a split launch (CL_EVENT_SPLIT_*_PARASOL): each device
  // that ran a block of work-groups and how many, in block order. Set once,
  // before the event completes; null for a launch not split.
  struct SplitParts {
    std::vector<Device*> devices;
    std::vector<std::size_t> groups;
  };
  const SplitParts* split_parts() const { return split_parts_.get(); }
  void set_split_parts(std::unique_ptr<const SplitParts> parts) { split_parts_ = std::move(parts); }

 private:
  void dependency_finished(cl_int status, bool propagate_failure);
  void launch_now();  // every dependency is done
  // A direct command's wait-list event still running (begin_direct()):
  // false if it ended meanwhile.
  bool hold_for(Event* dependency);
  // A direct command runs once dependency has ended (begin_direct()):
  // false if it ended meanwhile.
  bool gate_start_on(Event* dependency);
  // One of the events a direct command's start waited for ended.
  void pass_start_gate();
  // One of the things a held-back direct command waits for ended (its own
  // vendor completion, or a held_for() event's with dependency_status).
  void settle(cl_int dependency_status);
  struct Span {
    std::uint64_t start, end;
  };
  void finish(cl_int status, const Span* span = nullptr);  // complete()'s work
  void set_status(cl_int status, std::unique_lock<std::mutex>& lock);

  std::uint64_t id_;
  Ref<Context> context_holder_;
  Context* context_;
  Ref<CommandQueue> queue_holder_;
  CommandQueue* queue_;
  cl_command_type type_;
  std::unique_ptr<Command> work_;

  mutable std::mutex mutex_;
  std::condition_variable done_;
  // Written under mutex_; read without it by status() (every launch asks
  // each of its dependencies).
  std::atomic<cl_int> status_;
  struct Successor {
    Ref<Event> event;
    bool propagate_failure;
    bool holds_direct = false;  // event is a direct command held for this one (hold_for())
    bool gates_start = false;   // event is a direct command whose start waits for this one
  };
  // In place for the usual one or two: a chain's command is its
  // predecessor's successor, and a heap list would cost every such command
  // an allocation and a free on another thread.
  SmallVector<Successor, 2> successors_;
  std::vector<EventCallback> callbacks_;
  std::atomic<int> pending_{1};  // dependencies not done, plus start()'s guard
  std::atomic<cl_int> dependency_error_{CL_SUCCESS};
  Device* executed_on_ = nullptr;
  std::atomic<bool> user_status_set_{false};
  std::atomic<bool> in_flight_{false};
  std::atomic<cl_event> direct_done_{nullptr};  // retained
  std::atomic<bool> direct_queued_{false};
  unsigned direct_lane_ = 0;  // written before direct_queued_, read after it
  std::atomic<bool> direct_armed_{false};
  std::atomic<bool> awaited_{false};
  // On a profiling queue (fixed at creation; every direct launch asks).
  const bool profiled_;
  // hold_for(): set before the vendor has the command, read by whoever
  // completes it. held_ counts the command's own completion (once called)
  // and the held_for() events still running; the last to end finishes it.
  std::atomic<bool> holding_{false};
  std::atomic<bool> own_end_seen_{false};
  std::atomic<int> held_{0};
  // begin_direct(): the events its start still waits for (gate_start_on()).
  std::atomic<int> start_gates_{0};
  cl_int own_status_ = CL_COMPLETE;  // complete()'s, while held
  std::unique_ptr<const SplitParts> split_parts_;
  cl_uint partitioning_factor_ = 0;  // start() took a reference complete() gives back

  std::uint64_t t_queued_ = 0, t_submit_ = 0, t_start_ = 0, t_end_ = 0;
};

// Waits for every event; CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if any failed.
cl_int wait_for_all(std::span<Event* const> events);

}  // namespace parasol::core
