#include "core/command_queue.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "core/device.h"
#include "runtime/direct_launch.h"
#include "util/small_vector.h"

namespace parasol::core {

CommandQueue::CommandQueue(Context* context, Device* device,
                           cl_command_queue_properties properties)
    : context_(context),
      device_(device),
      properties_(properties),
      home_lane_(in_order() ? runtime::next_home_lane(device) : 0) {}

void CommandQueue::recorded(Device* on) {
  went_direct();  // finish() and flush_direct() look at its lane now
  // What comes next is ordered behind it on on's vendor queue (so behind
  // last_ too, which the record found done or queued there).
  last_ = nullptr;
  tail_ = on;
}

Ref<Event> CommandQueue::behind_records(Device& tail) {
  auto watch = Ref<Event>::adopt(create<Event>(context_.get(), this, CL_COMMAND_MARKER, nullptr));
  drop_api_reference(watch);
  in_flight_.fetch_add(1, std::memory_order_relaxed);
  runtime::queue_behind_lane(*watch, tail);
  return watch;
}

Ref<Event> CommandQueue::enqueue(cl_command_type type, std::unique_ptr<Command> work,
                                 std::span<Event* const> wait_list, Ordering ordering) {
  auto event = Ref<Event>::adopt(create<Event>(context_.get(), this, type, std::move(work)));
  in_flight_.fetch_add(1, std::memory_order_relaxed);
  // Queue order orders, does not propagate failures: the command before (in
  // order) or the last barrier (out of order), plus, for a marker or barrier
  // with an empty wait list, every command since that barrier.
  Ref<Event> previous;
  Device* tail = nullptr;  // in order: records went since previous, on this device
  std::vector<Ref<Event>> since;
  {
    std::lock_guard lock(mutex_);
    if (in_order()) {
      previous = std::exchange(last_, event);
      tail = std::exchange(tail_, nullptr);
    } else {
      bool all_before = ordering == Ordering::Barrier || ordering == Ordering::WaitForAll;
      if (all_before && wait_list.empty()) since = since_barrier_;
      previous = last_barrier_;
      if (ordering == Ordering::Barrier) {
        since_barrier_.clear();
        last_barrier_ = event;
      } else {
        // Forget finished commands now and then so a queue without barriers
        // does not grow without bound.
        if (since_barrier_.size() >= 64)
          std::erase_if(since_barrier_, [](const Ref<Event>& e) { return e->finished(); });
        since_barrier_.push_back(event);
      }
    }
  }
  if (Command* w = event->work()) {
    SmallVector<Event*, 8> deps;  // every enqueue builds it: on the stack unless long
    for (Event* e : wait_list) deps.push_back(e);
    if (previous) deps.push_back(previous.get());
    for (auto& e : since) deps.push_back(e.get());
    {
      runtime::DirectTail behind(tail);
      if (w->launch_direct(*event, {deps.data(), deps.size()}, wait_list)) return event;
    }
    w->keep_inputs();
    if (!tail && runtime::all_complete({deps.data(), deps.size()}))
      event->direct_refused_when_ready();
  }
  // Elsewhere than behind the records on their device: after an event
  // that completes once they have.
  if (tail) event->depend_on(behind_records(*tail).get(), false);
  for (Event* e : wait_list) event->depend_on(e);
  if (previous) event->depend_on(previous.get(), false);
  for (auto& e : since) event->depend_on(e.get(), false);
  event->start();
  return event;
}

void CommandQueue::flush_direct() const {
  if (!used_direct_.load(std::memory_order_relaxed)) return;
  for (Device* d : devices())
    if (!d->is_native()) runtime::flush_direct(*d);
}

std::vector<Device*> CommandQueue::devices() const {
  if (device_) return {device_};
  return context_->devices();
}

void CommandQueue::command_finished() {
  if (in_flight_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    std::lock_guard lock(idle_mutex_);
    idle_.notify_all();
  }
}

void CommandQueue::finish() {
  // Direct commands (of any queue on these devices) are noticed complete
  // here, and again every 10 ms: one may go to its vendor after a drain,
  // launched on another thread when a StarPU task it waited for completed.
  const auto idle = [this] { return in_flight_.load(std::memory_order_acquire) == 0; };
  for (;;) {
    if (used_direct_.load(std::memory_order_relaxed))
      for (Device* d : devices())
        if (!d->is_native()) runtime::drain_direct(*d);
    std::unique_lock lock(idle_mutex_);
    if (idle_.wait_for(lock, std::chrono::milliseconds(10), idle)) return;
  }
}

void CommandQueue::on_last_api_release() {
  // Commands already enqueued still run (implicit flush); the queue only
  // stops remembering them, which also breaks the event -> queue cycle.
  std::lock_guard lock(mutex_);
  last_ = nullptr;
  tail_ = nullptr;
  last_barrier_ = nullptr;
  since_barrier_.clear();
}

}  // namespace parasol::core
