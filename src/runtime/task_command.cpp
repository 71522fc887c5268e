#include "runtime/task_command.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <memory>

#include "backend/vendor_handle.h"
#include "backend/vendor_lock.h"
#include "core/platform.h"
#include "runtime/data_leases.h"
#include "runtime/device_stats.h"
#include "runtime/direct_launch.h"
#include "runtime/kernel_codelets.h"
#include "runtime/trace.h"
#include "schedulers/shared_measurements.h"
#include "schedulers/starpu_path_cost.h"
#include "util/clock.h"
#include "util/error_name.h"
#include "util/log.h"
#include "util/tsan_handover.h"

namespace parasol::runtime {

TaskCommand::TaskCommand(core::Device* pinned, unsigned sched_ctx, core::Context* rotation)
    : pinned_(pinned), sched_ctx_(sched_ctx), rotation_(pinned ? nullptr : rotation) {}

std::size_t TaskCommand::access(const core::Buffer& buffer, starpu_data_access_mode mode) {
  starpu_data_handle_t h = buffer.storage().handle();
  auto it = std::find(handles_.begin(), handles_.end(), h);
  if (it != handles_.end()) {
    auto i = static_cast<std::size_t>(it - handles_.begin());
    modes_[i] = static_cast<starpu_data_access_mode>(modes_[i] | mode);
    return i;
  }
  handles_.push_back(h);
  modes_.push_back(mode);
  return handles_.size() - 1;
}

void TaskCommand::fill_codelet(starpu_codelet& c) {
  starpu_codelet_init(&c);
  c.where = STARPU_OPENCL | STARPU_CPU;
  c.opencl_funcs[0] = &TaskCommand::run_on_opencl;
  c.cpu_funcs[0] = &TaskCommand::run_on_cpu;
  c.can_execute = &TaskCommand::can_execute;
  c.nbuffers = STARPU_VARIABLE_NBUFFERS;
  c.name = "parasol_command";
}

starpu_codelet* TaskCommand::codelet() {
  static starpu_codelet cl = [] {
    starpu_codelet c;
    fill_codelet(c);
    return c;
  }();
  return &cl;
}

class TaskCommand::FromStarpu {
 public:
  explicit FromStarpu(void* self) : cmd_(static_cast<TaskCommand*>(self)), scope_(self) {}
  // The task's fields too: submit() released it after filling them.
  explicit FromStarpu(starpu_task* task) : FromStarpu((tsan::acquire(task), task->cl_arg)) {}
  TaskCommand* operator->() const { return cmd_; }
  TaskCommand& operator*() const { return *cmd_; }

 private:
  TaskCommand* cmd_;
  tsan::HandoverScope scope_;
};

std::uint32_t TaskCommand::footprint_of(starpu_task* task) { return FromStarpu(task)->footprint(); }

std::size_t TaskCommand::size_of(starpu_task* task, unsigned) { return FromStarpu(task)->size(); }

bool TaskCommand::fits_on(const core::Device& device) const {
  std::size_t bytes = 0;
  for (starpu_data_handle_t h : handles_) bytes += starpu_data_get_size(h);
  return bytes <= device.global_mem_size();
}

// What every codelet does first on its worker: the device, the event's
// RUNNING state, the start time.
core::Device& TaskCommand::begin_on_worker() {
  core::Device* device = device_on_worker(starpu_worker_get_id());
  event_->set_executed_on(device);
  count_path_event(device->worker(), PathEvent::Task);
  log::debug("command '", name(), "' (event ", event_->id(), ") starts on ", device->label(), ", ",
             pinned_ ? "its device queue's device" : "chosen by its context's policy");
  event_->set_running();
  started_ = now_ns();
  // Its data is here: no other worker is needed for it any more.
  demand_.drop();
  return *device;
}

void TaskCommand::run_on_cpu(void* buffers[], void* self) {
  FromStarpu cmd(self);
  core::Device& device = cmd->begin_on_worker();
  cmd->status_ = cmd->execute_on_host(buffers, device);
  cmd->finished_ = now_ns();
}

core::Device* TaskCommand::device_on_worker(int worker_id) const {
  if (pinned_) return pinned_->worker().worker_id == worker_id ? pinned_ : nullptr;
  if (rotation_) return rotation_->device_on_worker(worker_id);
  return core::Platform::instance().device_for_worker(worker_id);
}

int TaskCommand::can_execute(unsigned worker, starpu_task* task, unsigned) {
  FromStarpu cmd(task);
  core::Device* d = cmd->device_on_worker(static_cast<int>(worker));
  return d && cmd->can_run_on(*d) && cmd->fits_on(*d) &&
         (!cmd->rotation_ || cmd->rotation_->in_rotation(d)) &&
         !cmd->held_back(static_cast<int>(worker));
}

// One device per worker: sub-devices share their root's, and a worker held
// back for one of them would be held back for all.
std::vector<core::Device*> TaskCommand::candidates() const {
  std::vector<core::Device*> out;
  rotation_->any_in_rotation([&](core::Device* d) {
    const bool seen = std::any_of(out.begin(), out.end(), [&](const core::Device* o) {
      return o->worker().worker_id == d->worker().worker_id;
    });
    if (!seen && can_run_on(*d) && fits_on(*d)) out.push_back(d);
    return false;
  });
  return out;
}

backend::WorkerSet TaskCommand::workers_needed(std::span<core::Device* const> candidates) const {
  if (pinned_) return backend::worker_bit(pinned_->worker().worker_id) | backend::workers_holding(handles_);
  if (!rotation_) return backend::kEveryWorker;
  backend::WorkerSet set = backend::workers_holding(handles_);
  for (core::Device* d : candidates)
    if (!held_back(d->worker().worker_id)) set |= backend::worker_bit(d->worker().worker_id);
  return set;
}

bool TaskCommand::held_back(int worker) const {
  const auto& h = calibration_.held_back;
  return std::find(h.begin(), h.end(), worker) != h.end();
}

namespace {

// When the vendor finished a marker, written by the vendor's own callback:
// the worker itself may wake from a wait on the marker long after it (on a
// loaded host, after the kernel behind it too, which would then seem to
// take almost no time).
struct MarkerClock {
  std::atomic<std::uint64_t> done_ns{0};
};

void CL_CALLBACK marker_done(cl_event, cl_int, void* data) {
  tsan::acquire(data);  // from backlog_marker(), through the vendor
  std::unique_ptr<std::shared_ptr<MarkerClock>> clock(static_cast<std::shared_ptr<MarkerClock>*>(data));
  (*clock)->done_ns.store(now_ns(), std::memory_order_release);
}

// A marker behind everything enqueued on the device's vendor queue so far
// (the direct path's commands), whose end `clock` learns; null if the
// vendor refused it. A kernel enqueued right after it starts once the
// marker completes: its own time is counted from there. The kernel is not
// held back until the queue drains: that idles the device, and the direct
// path fills the queue again meanwhile.
backend::VendorEvent backlog_marker(const core::Device& device, const std::shared_ptr<MarkerClock>& clock) {
  backend::VendorLock lock = backend::lock_vendor(device.worker());
  cl_event marker = nullptr;
  if (clEnqueueMarkerWithWaitList(device.worker().queue, 0, nullptr, &marker) != CL_SUCCESS)
    return {};
  backend::VendorEvent owned(marker, device.worker().platform);
  auto data = std::make_unique<std::shared_ptr<MarkerClock>>(clock);
  tsan::release(data.get());
  if (clSetEventCallback(marker, CL_COMPLETE, &marker_done, data.get()) != CL_SUCCESS) return {};
  data.release();  // the callback owns it now
  return owned;
}

}  // namespace

void TaskCommand::run_on_opencl(void* buffers[], void* self) {
  FromStarpu cmd(self);
  core::Device& device = cmd->begin_on_worker();
  // A modelled command (a kernel) is timed here, not by StarPU: see
  // wall_time_codelet() (runtime/kernel_codelets.h).
  starpu_task* task = starpu_task_get_current();
  starpu_perfmodel* model = task->cl->model;
  std::shared_ptr<MarkerClock> clock;
  backend::VendorEvent marker;
  {
    // No direct command between the marker and the kernel.
    std::unique_lock<std::mutex> order;
    if (model) {
      order = hold_direct_order(device);
      clock = std::make_shared<MarkerClock>();
      marker = backlog_marker(device, clock);
    }
    cmd->status_ = cmd->execute(buffers, device, starpu_place(device), &cmd->done_);
  }
  const bool timed = static_cast<bool>(marker);
  cl_int waited = CL_INVALID_EVENT;
  if (cmd->done_) {
    // Oclgrind runs the commands inside these waits (the vendor lock covers
    // them), and calls back when a wait ends: the marker's wait first, so
    // that its callback comes before the kernel runs.
    backend::VendorLock lock = backend::lock_vendor(device.worker());
    if (cl_event m = marker.get()) clWaitForEvents(1, &m);
    waited = clWaitForEvents(1, &cmd->done_);
    cmd->finished_ = now_ns();
  }
  if (!model) return;
  // The marker's callback may still be on its way: no measurement then.
  const std::uint64_t queue_reached = timed ? clock->done_ns.load(std::memory_order_acquire) : 0;
  const bool measured = queue_reached != 0 && queue_reached <= cmd->finished_;
  if (measured) cmd->started_ = std::max(cmd->started_, queue_reached);
  if (measured && cmd->status_ == CL_COMPLETE && waited == CL_SUCCESS)
    schedulers::record_measurement(task, device, double(cmd->finished_ - cmd->started_) * 1e-3);
  task->cl = wall_time_codelet();  // back to the kernel's codelet in on_done()
}

void TaskCommand::on_done(void* self) {
  // The end of the handover (FromStarpu): nothing of StarPU's side follows.
  tsan::acquire(self);
  auto* cmd = static_cast<TaskCommand*>(self);
  if (cmd->task_ && cmd->task_->cl == wall_time_codelet()) cmd->task_->cl = cmd->codelet();
  cmd->claim_.release();  // StarPU is done with the data (nothing when it ran direct)
  cmd->demand_.drop();
  cmd->steer_.release();
  if (cmd->done_) {
    // StarPU saw the worker's queue pass this command: its event is final.
    core::Device* d = cmd->event_->executed_on();
    backend::VendorLock lock = backend::lock_vendor(d ? d->worker().platform : nullptr);
    cl_int status = backend::vendor_event_status(cmd->done_, CL_COMPLETE);
    clReleaseEvent(cmd->done_);
    lock = {};
    if (status < 0) {
      const core::Device* d = cmd->event_->executed_on();
      log::error("command '", cmd->name(), "' (event ", cmd->event_->id(), ") failed on ",
                 d->label(), ": the vendor's event ended with ",
                 error_name(status), " (", status, ")");
      cmd->status_ = status;
    }
  }
  core::Device* d = cmd->event_->executed_on();
  const std::uint64_t now = now_ns();
  if (d) record_command(d->worker().worker_id, now - cmd->started_);
  // What StarPU's path added to the kernel, on a device only it reaches:
  // submission to start, and the kernel's end to here.
  if (d && !direct_capable(*d) && cmd->submitted_ && cmd->started_ >= cmd->submitted_ &&
      cmd->finished_ >= cmd->started_ && now >= cmd->finished_)
    schedulers::note_starpu_path(d->worker().worker_id,
                                 double((cmd->started_ - cmd->submitted_) + (now - cmd->finished_)) * 1e-3);
  if (d && cmd->calibration_.calibrating >= 0) {
    std::uint64_t end = cmd->finished_ ? cmd->finished_ : now;
    double us = cmd->status_ == CL_COMPLETE ? double(end - cmd->started_) * 1e-3 : NAN;
    schedulers::calibration_ran(cmd->calibration_, cmd->task_, cmd->footprint(), *d,
                                cmd->candidates(), cmd->sched_ctx_, us);
    cmd->calibration_ = {};
  }
  if (trace::enabled()) trace::record(*cmd->event_, cmd->name(), cmd->bytes(), cmd->status_);
  bool device_level = cmd->status_ == CL_OUT_OF_RESOURCES || cmd->status_ == CL_DEVICE_NOT_AVAILABLE;
  // Not a command whose own status is unknown: it may have run.
  if (device_level && d && !cmd->status_unknown_ && cmd->reschedule_after(*d)) return;
  log::debug("command '", cmd->name(), "' (event ", cmd->event_->id(), ") ended: ",
             error_name(cmd->status_));
  cmd->event_->complete(cmd->status_);  // may destroy cmd: nothing after
}

bool TaskCommand::reschedule_after(core::Device& failed) {
  if (!rotation_) return false;
  if (rotation_->take_out_of_rotation(&failed))
    log::warn(failed.label(), " failed with ",
              error_name(status_), ": it leaves the rotation of its context's queues");
  if (!placeable_elsewhere(&failed) || ++attempts_ >= rotation_->devices().size()) return false;
  log::warn("command '", name(), "' (event ", event_->id(), ") is placed again on another device");
  status_ = CL_COMPLETE;
  done_ = nullptr;
  submit();
  return true;
}

void TaskCommand::launch_task(core::Event& event) {
  event_ = &event;
  // StarPU would wait forever for room that never comes (it evicts other
  // data, but this task needs all of its own at once).
  if (pinned_ && !fits_on(*pinned_)) {
    log::error("command '", name(), "' needs more memory than ", pinned_->name(), " has (",
               pinned_->global_mem_size(), " bytes for StarPU)");
    event_->complete(CL_MEM_OBJECT_ALLOCATION_FAILURE);
    return;
  }
  submit();
}

void TaskCommand::submit() {
  core::Event& event = *event_;
  // Direct commands may hold these buffers on a device: they come back to
  // StarPU once those commands are done, and no new lease is taken on them
  // until this task is.
  claim_ = DataLeases::instance().claim(handles_, modes_);
  starpu_task* task = starpu_task_create();
  task->cl = codelet();
  task->cl_arg = this;
  task->callback_func = &TaskCommand::on_done;
  task->callback_arg = this;
  task->name = name();
  task->sched_ctx = sched_ctx_;
  if (pinned_) {
    task->execute_on_a_specific_worker = 1;
    task->workerid = static_cast<unsigned>(pinned_->worker().worker_id);
  }
  const auto n = static_cast<int>(handles_.size());
  task->nbuffers = n;
  if (n > STARPU_NMAXBUFS) {
    // StarPU frees dyn_handles and dyn_modes with the task.
    task->dyn_handles = static_cast<starpu_data_handle_t*>(std::malloc(n * sizeof(*task->dyn_handles)));
    task->dyn_modes = static_cast<starpu_data_access_mode*>(std::malloc(n * sizeof(*task->dyn_modes)));
    std::memcpy(task->dyn_handles, handles_.data(), n * sizeof(*task->dyn_handles));
    std::memcpy(task->dyn_modes, modes_.data(), n * sizeof(*task->dyn_modes));
  } else {
    for (int i = 0; i < n; ++i) {
      task->handles[i] = handles_[i];
      task->modes[i] = modes_[i];
    }
  }
  // Model-driven policies: on cold models see schedulers/calibration_guard.h;
  // among alike devices, a command goes where its output is, or to the least
  // loaded of them when none holds it (alike_placement.h).
  const std::vector<core::Device*> devices = rotation_ ? candidates() : std::vector<core::Device*>{};
  if (rotation_ && task->cl->model && rotation_->data_aware()) {
    calibration_ = schedulers::place_for_calibration(task, footprint(), devices,
                                                     resident_device(), sched_ctx_);
    if (calibration_.calibrating < 0) {
      steer_ = schedulers::AlikeSteer::steer(devices, calibration_.held_back,
                                             [this](const core::Device& d) { return holds_output(d); });
      schedulers::hold_back_slow_paths(task, devices, calibration_.held_back, sched_ctx_,
                                       &direct_capable);
    }
  }
  task_ = task;
  finished_ = 0;
  submitted_ = now_ns();
  demand_ = backend::WorkerDemand::raise(workers_needed(devices));
  log::debug("command '", name(), "' (event ", event.id(), ") goes to StarPU",
             calibration_.held_back.empty() ? "" : ", held back from some of its devices",
             calibration_.calibrating >= 0 ? ", to calibrate a model" : "");
  tsan::release(task);
  tsan::release(this);
  int rc = starpu_task_submit(task);
  if (rc != 0) {
    log::error("StarPU refused the task of command '", name(), "' (event ", event.id(),
               ", starpu_task_submit returned ", rc, "): no device of ",
               pinned_ ? "its queue" : "the context", " can run it; it fails with "
               "CL_OUT_OF_RESOURCES");
    schedulers::calibration_abandoned(calibration_, task, footprint());
    calibration_ = {};
    steer_.release();
    claim_.release();
    demand_.drop();
    task->destroy = 0;
    starpu_task_destroy(task);
    event.complete(CL_OUT_OF_RESOURCES);
  }
}

}  // namespace parasol::runtime
