#include "core/event.h"

#include "backend/deferred_release.h"
#include "core/command_queue.h"
#include "core/context.h"
#include "util/callback_scope.h"
#include "util/clock.h"
#include "util/error_name.h"
#include "util/log.h"

namespace parasol::core {
namespace {

// Events that became ready while this thread is already launching others.
// Launching iteratively rather than recursively keeps long chains of markers
// or failed commands from growing the stack.
thread_local std::vector<Ref<Event>>* t_ready_list = nullptr;

std::atomic<std::uint64_t> g_next_event_id{1};

// Set during static initialisation: before any event exists.
Event::DirectProgress g_direct_progress = nullptr;

}  // namespace

Event::Event(Context* context, CommandQueue* queue, cl_command_type type,
             std::unique_ptr<Command> work)
    // A command's event enters the registry only if its handle goes out
    // (icd's give_event, a divide function's gate): most are never asked for.
    : Object(Unlisted{}),
      id_(g_next_event_id.fetch_add(1, std::memory_order_relaxed)),
      // A command's event holds its queue, which holds the context: one
      // shared count less per command (the enqueuing thread takes it, the
      // waiter that ends most direct commands on another core gives it back).
      context_holder_(queue ? nullptr : context), context_(context), queue_holder_(queue),
      queue_(queue),
      type_(type), work_(std::move(work)),
      status_(queue ? CL_QUEUED : CL_SUBMITTED),
      profiled_(queue && (queue->properties() & CL_QUEUE_PROFILING_ENABLE)) {
  if (!queue) list();  // a user event: its handle is the point
  // Only clGetEventProfilingInfo reads it (a clock read per command less).
  if (profiled()) t_queued_ = now_ns();
}

Event::~Event() {
  if (cl_event done = direct_done_.load()) clReleaseEvent(done);
}

cl_int Event::status() const { return status_.load(std::memory_order_acquire); }

void Event::depend_on(Event* dependency, bool propagate_failure) {
  std::unique_lock lock(dependency->mutex_);
  if (dependency->status_ <= CL_COMPLETE) {
    if (dependency->status_ < 0 && propagate_failure) {
      cl_int expected = CL_SUCCESS;
      dependency_error_.compare_exchange_strong(expected, dependency->status_.load());
    }
    return;
  }
  pending_.fetch_add(1, std::memory_order_relaxed);
  dependency->successors_.push_back({Ref<Event>(this), propagate_failure});
  lock.unlock();
  dependency->flush_direct();
}

void Event::begin_direct(Device* device, std::span<Event* const> deps,
                         std::span<Event* const> named, bool shared) {
  // As start() (unless launched through it, its dependencies done first):
  // complete() gives the reference back.
  if (!in_flight_.exchange(true, std::memory_order_acq_rel)) retain();
  for (Event* e : named)
    if (!e->finished()) hold_for(e);
  start_gates_.store(1, std::memory_order_relaxed);  // begin_direct's own guard
  // Its only dependency still running is the command before it in its
  // in-order queue, queued on the same device: that one is ahead of it on
  // the same lane (the queue's home there), so it stays CL_SUBMITTED until
  // it ends itself (then CL_RUNNING and its end at once), with no successor
  // entry on the one before and no pass on that one's end (work on the
  // thread completing the one before). A profiled command's start time is
  // when the one before ended: it keeps the gate.
  Event* running = nullptr;
  int still_running = 0;
  for (Event* e : deps)
    if (!e->finished() && e != running) {
      running = e;
      ++still_running;
    }
  const bool behind = still_running == 1 && !profiled_ && queue_ && running->queue_ == queue_ &&
                      queue_->in_order() && running->queued_direct_on(device);
  if (!behind)
    for (Event* e : deps)
      if (!e->finished()) gate_start_on(e);
  executed_on_ = device;
  if (queue_) queue_->went_direct();
  if (behind && !shared) {
    // Nothing to fire, nobody to race (as below).
    t_submit_ = now_ns();
    status_.store(CL_SUBMITTED, std::memory_order_release);
    start_gates_.store(0, std::memory_order_relaxed);
    return;
  }
  if (start_gates_.fetch_sub(1, std::memory_order_acq_rel) != 1 || behind) {
    // Behind commands still running: submitted, running once they end
    // (pass_start_gate(), or its own end), which may be now already.
    std::unique_lock lock(mutex_);
    if (!t_submit_) t_submit_ = now_ns();
    set_status(CL_SUBMITTED, lock);
    return;
  }
  // Submitted and running at once (one clock read; the move to CL_RUNNING
  // fires CL_SUBMITTED callbacks too).
  if (!shared) {
    // Nothing to fire, nobody to race: its own completion comes after the
    // vendor enqueue, a held_for() event's settles only the count.
    t_start_ = t_submit_ = now_ns();
    status_.store(CL_RUNNING, std::memory_order_release);
    return;
  }
  std::unique_lock lock(mutex_);
  t_start_ = now_ns();
  if (!t_submit_) t_submit_ = t_start_;
  set_status(CL_RUNNING, lock);
}

bool Event::hold_for(Event* dependency) {
  // Counted before the vendor has the command, so nothing can end it yet.
  if (!holding_.exchange(true, std::memory_order_relaxed)) held_.store(1, std::memory_order_relaxed);
  std::unique_lock lock(dependency->mutex_);
  if (dependency->status_ <= CL_COMPLETE) {  // ended meanwhile
    if (dependency->status_ < 0) {
      cl_int expected = CL_SUCCESS;
      dependency_error_.compare_exchange_strong(expected, dependency->status_.load());
    }
    return false;
  }
  held_.fetch_add(1, std::memory_order_relaxed);
  // No flush_direct(): it is ahead of this command on the same in-order
  // vendor queue, or on another lane of the device, which LaneChoice
  // flushed; either way whatever makes this one progress makes it progress.
  dependency->successors_.push_back({Ref<Event>(this), true, true});
  return true;
}

bool Event::gate_start_on(Event* dependency) {
  std::unique_lock lock(dependency->mutex_);
  if (dependency->status_ <= CL_COMPLETE) return false;  // ended meanwhile
  start_gates_.fetch_add(1, std::memory_order_relaxed);
  // One successor entry per dependency: a held one (hold_for()) gates too.
  for (Successor& s : dependency->successors_)
    if (s.event.get() == this && s.holds_direct) {
      s.gates_start = true;
      return true;
    }
  dependency->successors_.push_back({Ref<Event>(this), false, false, true});
  return true;
}

void Event::pass_start_gate() {
  if (start_gates_.fetch_sub(1, std::memory_order_acq_rel) == 1) set_running();
}

void Event::settle(cl_int dependency_status) {
  if (dependency_status < 0) {
    cl_int expected = CL_SUCCESS;
    dependency_error_.compare_exchange_strong(expected, dependency_status);
  }
  if (held_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  const cl_int err = dependency_error_.load();
  if (err != CL_SUCCESS && own_status_ == CL_COMPLETE)
    log::warn("event ", id_, ": the vendor ran its command, but an event of its wait list failed (",
              error_name(err), ", ", err, "): it fails too, and what it wrote is not to be trusted");
  finish(err != CL_SUCCESS ? err : own_status_);
}

void Event::queued_direct(cl_event done, unsigned lane) {
  direct_lane_ = lane;
  direct_done_.store(done, std::memory_order_release);
  direct_queued_.store(true);  // sequentially consistent: see flush_direct()
}

void Event::set_direct_progress(DirectProgress progress) { g_direct_progress = progress; }

void Event::flush_direct() {
  // Sequentially consistent with hand_over_direct(): either it sees the
  // mark, or this sees the vendor event.
  awaited_.store(true);
  if (direct_queued() && !finished()) g_direct_progress(*this, false);
}

void Event::start() {
  // A command in flight keeps its own event alive, whoever else lets go of
  // it (the user, the queue): StarPU still holds the command.
  retain();
  in_flight_.store(true, std::memory_order_release);
  dependency_finished(CL_COMPLETE, false);
}

void Event::dependency_finished(cl_int status, bool propagate_failure) {
  if (status < 0 && propagate_failure) {
    cl_int expected = CL_SUCCESS;
    dependency_error_.compare_exchange_strong(expected, status);
  }
  if (pending_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;

  Ref<Event> self(this);
  if (t_ready_list) {
    t_ready_list->push_back(std::move(self));
    return;
  }
  std::vector<Ref<Event>> ready{std::move(self)};
  t_ready_list = &ready;
  while (!ready.empty()) {
    Ref<Event> next = std::move(ready.back());
    ready.pop_back();
    next->launch_now();
  }
  t_ready_list = nullptr;
}

void Event::launch_now() {
  if (cl_int err = dependency_error_.load(); err != CL_SUCCESS) {
    complete(err);
    return;
  }
  // Inside a vendor's completion callback, where OpenCL leaves vendor calls
  // undefined, the command launches on another thread instead.
  if (work_ && !backend::may_call_vendors_here()) {
    backend::defer_launch([self = Ref<Event>(this)] { self->launch_now(); });
    return;
  }
  {
    std::unique_lock lock(mutex_);
    t_submit_ = now_ns();
    set_status(CL_SUBMITTED, lock);
  }
  if (!work_) {
    complete(CL_COMPLETE);
    return;
  }
  work_->launch(*this);
}

void Event::set_running() {
  std::unique_lock lock(mutex_);
  if (status_.load(std::memory_order_relaxed) <= CL_RUNNING) return;  // ran, or ended, already
  t_start_ = now_ns();
  set_status(CL_RUNNING, lock);
}

// Moves the status forward and runs the callbacks it triggers (unlocked).
void Event::set_status(cl_int status, std::unique_lock<std::mutex>& lock) {
  const cl_int now = status_.load(std::memory_order_relaxed);
  if (now <= CL_COMPLETE || status >= now) return;
  status_.store(status, std::memory_order_release);
  std::vector<EventCallback> fire;
  for (auto it = callbacks_.begin(); it != callbacks_.end();) {
    // A failed command reports its error to CL_COMPLETE callbacks only.
    if (status < 0 ? it->trigger == CL_COMPLETE : it->trigger >= status) {
      fire.push_back(*it);
      it = callbacks_.erase(it);
    } else {
      ++it;
    }
  }
  if (fire.empty()) return;
  Ref<Event> keep(this);
  lock.unlock();
  CallbackScope scope;
  for (const auto& cb : fire) cb.fn(handle(), status < 0 ? status : cb.trigger, cb.user_data);
  lock.lock();
}

void Event::complete(cl_int status) {
  if (holding_.load(std::memory_order_acquire)) {
    if (own_end_seen_.exchange(true)) return;  // later calls are ignored
    own_status_ = status;
    settle(CL_COMPLETE);
    return;
  }
  finish(status);
}

void Event::complete_spanning(std::uint64_t start, std::uint64_t end) {
  const Span span{start, end};
  finish(CL_COMPLETE, &span);
}

void Event::finish(cl_int status, const Span* span) {
  SmallVector<Successor, 2> successors;
  std::unique_ptr<Command> work;
  Ref<Event> keep(this);
  {
    std::unique_lock lock(mutex_);
    if (status_ <= CL_COMPLETE) return;
    if (span) {
      t_queued_ = t_submit_ = t_start_ = span->start;
      t_end_ = span->end;
    } else {
      if (!t_start_) t_start_ = now_ns();
      if (!t_submit_) t_submit_ = t_start_;
      t_end_ = now_ns();
    }
    if (status_ > CL_RUNNING && status == CL_COMPLETE) set_status(CL_RUNNING, lock);
    set_status(status, lock);
    successors = std::move(successors_);
    work = std::move(work_);  // frees the command's buffers and kernel now
  }
  done_.notify_all();
  work.reset();
  for (auto& s : successors) {
    if (s.gates_start) s.event->pass_start_gate();
    if (s.holds_direct)
      s.event->settle(status);
    else if (!s.gates_start)
      s.event->dependency_finished(status, s.propagate_failure);
  }
  if (queue_) queue_->command_finished();
  if (in_flight_.exchange(false, std::memory_order_acq_rel)) release();
}

bool Event::set_user_status(cl_int status) {
  if (user_status_set_.exchange(true)) return false;
  complete(status);
  return true;
}

cl_int Event::wait() {
  awaited_.store(true);  // as flush_direct()
  if (direct_queued() && !finished()) g_direct_progress(*this, true);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return status_ <= CL_COMPLETE; });
  return status_;
}

void Event::add_callback(const EventCallback& callback) {
  std::unique_lock lock(mutex_);
  const cl_int now = status_.load(std::memory_order_relaxed);
  bool reached = now < 0 ? true : now <= callback.trigger;
  if (!reached) {
    callbacks_.push_back(callback);
    lock.unlock();
    flush_direct();
    return;
  }
  cl_int reported = now < 0 ? now : callback.trigger;
  if (now < 0 && callback.trigger != CL_COMPLETE) return;  // never reached
  lock.unlock();
  CallbackScope scope;
  callback.fn(handle(), reported, callback.user_data);
}

cl_int wait_for_all(std::span<Event* const> events) {
  cl_int result = CL_SUCCESS;
  for (Event* e : events)
    if (e->wait() < 0) result = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  return result;
}

}  // namespace parasol::core
