#include "core/command_queue.h"

#include <algorithm>

#include "core/device.h"
#include "runtime/direct_launch.h"

namespace parasol::core {

CommandQueue::CommandQueue(Context* context, Device* device,
                           cl_command_queue_properties properties)
    : context_(context), device_(device), properties_(properties) {}

Ref<Event> CommandQueue::enqueue(cl_command_type type, std::unique_ptr<Command> work,
                                 std::span<Event* const> wait_list, Ordering ordering) {
  auto event = Ref<Event>::adopt(create<Event>(context_.get(), this, type, std::move(work)));
  in_flight_.fetch_add(1, std::memory_order_relaxed);
  std::vector<Ref<Event>> order;  // queue order: orders, does not propagate failures
  {
    std::lock_guard lock(mutex_);
    if (in_order()) {
      if (last_) order.push_back(last_);
      last_ = event;
    } else {
      // An empty wait list on a marker or barrier means "every command so far".
      bool all_before = ordering == Ordering::Barrier || ordering == Ordering::WaitForAll;
      if (all_before && wait_list.empty()) order.insert(order.end(), since_barrier_.begin(), since_barrier_.end());
      if (last_barrier_) order.push_back(last_barrier_);
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
    std::vector<Event*> deps(wait_list.begin(), wait_list.end());
    for (auto& e : order) deps.push_back(e.get());
    if (w->launch_direct(*event, deps)) {
      used_direct_.store(true, std::memory_order_relaxed);
      return event;
    }
  }
  for (Event* e : wait_list) event->depend_on(e);
  for (auto& e : order) event->depend_on(e.get(), false);
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
  // Direct commands (of any queue on these devices) are noticed complete here.
  if (used_direct_.load(std::memory_order_relaxed))
    for (Device* d : devices())
      if (!d->is_native()) runtime::drain_direct(*d);
  std::unique_lock lock(idle_mutex_);
  idle_.wait(lock, [this] { return in_flight_.load(std::memory_order_acquire) == 0; });
}

void CommandQueue::on_last_api_release() {
  // Commands already enqueued still run (implicit flush); the queue only
  // stops remembering them, which also breaks the event -> queue cycle.
  std::lock_guard lock(mutex_);
  last_ = nullptr;
  last_barrier_ = nullptr;
  since_barrier_.clear();
}

}  // namespace parasol::core
