#include "core/command_queue.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "core/device.h"

namespace parasol::core {

CommandQueue::CommandQueue(Context* context, Device* device,
                           cl_command_queue_properties properties, unsigned home_lane)
    : context_(context), device_(device), properties_(properties), home_lane_(home_lane) {}

void CommandQueue::recorded(Device* on) {
  went_direct();  // runtime::flush() and finish() look at its lane now
  // What comes next is ordered behind it on on's vendor queue (so behind
  // last_ too, which the record found done or queued there).
  last_ = nullptr;
  tail_ = on;
}

CommandQueue::Order CommandQueue::order(const Ref<Event>& event, Ordering ordering,
                                        bool empty_wait_list) {
  count_in();
  // Queue order orders, does not propagate failures: the command before (in
  // order) or the last barrier (out of order), plus, for a marker or barrier
  // with an empty wait list, every command since that barrier.
  Order o;
  std::lock_guard lock(mutex_);
  if (in_order()) {
    o.previous = std::exchange(last_, event);
    o.tail = std::exchange(tail_, nullptr);
    return o;
  }
  bool all_before = ordering == Ordering::Barrier || ordering == Ordering::WaitForAll;
  if (all_before && empty_wait_list) o.since = since_barrier_;
  o.previous = last_barrier_;
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
  return o;
}

std::vector<Device*> CommandQueue::devices() const {
  if (device_) return {device_};
  return context_->devices();
}

void CommandQueue::command_finished() {
  if (!device_) context_->context_command_ended();
  if (in_flight_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    std::lock_guard lock(idle_mutex_);
    idle_.notify_all();
  }
}

bool CommandQueue::wait_idle(std::chrono::milliseconds timeout) {
  std::unique_lock lock(idle_mutex_);
  return idle_.wait_for(lock, timeout,
                        [this] { return in_flight_.load(std::memory_order_acquire) == 0; });
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
