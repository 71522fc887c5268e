// A command queue: bound to one device (a device queue) or to a whole context
// (a context queue, device = nullptr: the context's policy places each
// command). It orders commands: in-order queues chain them, out-of-order
// queues only honour wait lists, markers and barriers.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "core/context.h"
#include "core/event.h"
#include "core/object.h"
#include "util/small_vector.h"

namespace parasol::core {

enum class Ordering { Normal, WaitForAll, Barrier };

class CommandQueue final
    : public Object<CommandQueue, _cl_command_queue, ObjectKind::CommandQueue> {
 public:
  // home_lane: for an in-order queue, its lane on each device
  // (runtime::next_home_lane()).
  CommandQueue(Context* context, Device* device, cl_command_queue_properties properties,
               unsigned home_lane);

  Context* context() const { return context_.get(); }
  Device* device() const { return device_; }  // null for a context queue
  cl_command_queue_properties properties() const { return properties_; }
  // CL_QUEUE_PROPERTIES_ARRAY: what clCreateCommandQueueWithProperties was
  // given (empty for clCreateCommandQueue).
  const std::vector<cl_queue_properties>& properties_array() const { return properties_array_; }
  void set_properties_array(std::vector<cl_queue_properties> a) { properties_array_ = std::move(a); }
  bool in_order() const { return !(properties_ & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE); }
  // In order: the lane of each device its direct commands and records take
  // (runtime::home_lane_on()), so that separate in-order queues run side by
  // side on the vendor.
  unsigned home_lane() const { return home_lane_; }

  // The queue's order for a command about to be enqueued (its wait list
  // aside; runtime::submit() wires both), taken under the queue's lock. The
  // command counts as in flight from here.
  struct Order {
    Ref<Event> previous;  // in order: the command before; out of order: the last barrier
    Device* tail = nullptr;  // in order: records went since previous, on this device
    // A marker or barrier with an empty wait list (out of order): every
    // command since the last barrier.
    std::vector<Ref<Event>> since;
  };
  Order order(const Ref<Event>& event, Ordering ordering, bool empty_wait_list);
  // Counts a command in flight that order() did not (one standing for
  // records, runtime/submit.cpp).
  void command_enqueued() { count_in(); }

  // A command nobody will ask about (no event out, no wait list, not
  // blocking) may go to a device's vendor queue as a record: no event, no
  // command object, nothing to complete but its lane entry. Only on an
  // in-order queue without profiling (a record has nothing to say).
  bool records_allowed() const {
    return in_order() && !(properties_ & CL_QUEUE_PROFILING_ENABLE);
  }
  // launch(previous, tail) sends the command to its vendor (on the queue's
  // home lane) and returns the device, or null: then it needs an event
  // (runtime::submit()). previous: the queue's command before it, if that has an
  // event; tail: the device of the records queued after previous, if any
  // (the record may go there only). Under the queue's lock, so that queue
  // order is lane order.
  template <class Launch>
  bool try_record(Launch&& launch) {
    if (!records_allowed()) return false;
    std::lock_guard lock(mutex_);
    Device* on = launch(last_.get(), static_cast<const Device*>(tail_));
    if (!on) return false;
    recorded(on);
    return true;
  }

  // A command with an event (or a wait list) on a queue that may take
  // records goes the same way when launch(event, deps, tail) takes it
  // (runtime::TaskCommand::try_record_with_event()): its event has no
  // command object, and the queue's order and lane are a record's. deps:
  // the wait list and the queue's previous command; tail as for
  // try_record(). The event, or null: runtime::submit() must take the command.
  template <class Launch>
  Ref<Event> try_record_with_event(cl_command_type type, std::span<Event* const> wait_list,
                                   Launch&& launch) {
    if (!records_allowed()) return {};
    auto event = Ref<Event>::adopt(create<Event>(context_.get(), this, type, nullptr));
    std::lock_guard lock(mutex_);
    SmallVector<Event*, 8> deps;
    for (Event* e : wait_list) deps.push_back(e);
    if (last_) deps.push_back(last_.get());
    // Counted before the launch: the event may complete within it.
    count_in();
    if (!launch(*event, std::span<Event* const>(deps.data(), deps.size()),
                static_cast<const Device*>(tail_))) {
      command_finished();
      return {};
    }
    last_ = event;
    tail_ = nullptr;
    return event;
  }

  // Waits up to timeout for every command enqueued so far to finish;
  // whether they all have.
  bool wait_idle(std::chrono::milliseconds timeout);
  // One of its commands went to its vendor directly (at enqueue, or later
  // once its dependencies were done): runtime::flush() and finish() look
  // at its devices' lanes.
  void went_direct() {
    if (!used_direct_.load(std::memory_order_relaxed))
      used_direct_.store(true, std::memory_order_relaxed);
  }
  bool used_direct() const { return used_direct_.load(std::memory_order_relaxed); }
  // Its commands enqueued and not finished.
  std::uint64_t in_flight() const { return in_flight_.load(std::memory_order_relaxed); }
  // The command a new one follows in queue order: an in-order queue's
  // previous command, an out-of-order queue's last barrier; null when none
  // has an event (records) or there is none.
  Ref<Event> preceding() {
    std::lock_guard lock(mutex_);
    return in_order() ? last_ : last_barrier_;
  }
  // The queue's device, or every device of its context.
  std::vector<Device*> devices() const;
  void command_finished();
  void on_last_api_release();

 private:
  Ref<Context> context_;
  Device* device_;
  cl_command_queue_properties properties_;
  std::vector<cl_queue_properties> properties_array_;
  unsigned home_lane_;

  // A command is in flight, counted in its context too on a context queue.
  void count_in() {
    in_flight_.fetch_add(1, std::memory_order_relaxed);
    if (!device_) context_->context_command_began();
  }
  // Under mutex_: a record went to on's lane (try_record()).
  void recorded(Device* on);

  std::mutex mutex_;
  Ref<Event> last_;                     // in-order: the previous command
  // In-order: the device whose lane holds the queue's latest commands, sent
  // as records (without events) after last_; null when last_ is the latest.
  Device* tail_ = nullptr;
  Ref<Event> last_barrier_;             // out-of-order: the last barrier
  std::vector<Ref<Event>> since_barrier_;  // out-of-order: commands after it

  std::mutex idle_mutex_;
  std::condition_variable idle_;
  std::atomic<std::uint64_t> in_flight_{0};
  std::atomic<bool> used_direct_{false};
};

}  // namespace parasol::core
