#include "runtime/task_command.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cstdint>

#include "core/platform.h"
#include "runtime/device_stats.h"
#include "runtime/vendor_lock.h"
#include "util/clock.h"
#include "util/log.h"

namespace parasol::runtime {

TaskCommand::TaskCommand(core::Device* pinned, unsigned sched_ctx)
    : pinned_(pinned), sched_ctx_(sched_ctx) {}

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
  c.where = STARPU_OPENCL;
  c.opencl_funcs[0] = &TaskCommand::run_on_opencl;
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

static TaskCommand* command_of(starpu_task* task) { return static_cast<TaskCommand*>(task->cl_arg); }

std::uint32_t TaskCommand::footprint_of(starpu_task* task) { return command_of(task)->footprint(); }

std::size_t TaskCommand::size_of(starpu_task* task, unsigned) { return command_of(task)->size(); }

bool TaskCommand::fits_on(const core::Device& device) const {
  std::size_t bytes = 0;
  for (starpu_data_handle_t h : handles_) bytes += starpu_data_get_size(h);
  return bytes <= device.global_mem_size();
}

int TaskCommand::can_execute(unsigned worker, starpu_task* task, unsigned) {
  core::Device* d = core::Platform::instance().device_for_worker(static_cast<int>(worker));
  TaskCommand* cmd = command_of(task);
  return d && cmd->can_run_on(*d) && cmd->fits_on(*d);
}

void TaskCommand::run_on_opencl(void* buffers[], void* self) {
  auto* cmd = static_cast<TaskCommand*>(self);
  core::Device* device = core::Platform::instance().device_for_worker(starpu_worker_get_id());
  cmd->event_->set_executed_on(device);
  cmd->event_->set_running();
  cmd->started_ = now_ns();
  cmd->status_ = cmd->execute(buffers, *device, cmd->done_);
  // Measured: StarPU 1.3's asynchronous OpenCL mode notices completions
  // late (~90 us per command on PoCL against ~30 us waiting here).
  if (cmd->done_) {
    // Oclgrind runs the kernel inside this wait: the vendor lock covers it.
    VendorLock lock = lock_vendor(device->worker().platform);
    clWaitForEvents(1, &cmd->done_);
  }
}

void TaskCommand::on_done(void* self) {
  auto* cmd = static_cast<TaskCommand*>(self);
  if (cmd->done_) {
    // StarPU saw the worker's queue pass this command: its event is final.
    cl_int status = CL_COMPLETE;
    core::Device* d = cmd->event_->executed_on();
    VendorLock lock = lock_vendor(d ? d->worker().platform : nullptr);
    clGetEventInfo(cmd->done_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    clReleaseEvent(cmd->done_);
    lock = {};
    if (status < 0) {
      log::error("command '", cmd->name(), "' failed on its device with status ", status);
      cmd->status_ = status;
    }
  }
  if (core::Device* d = cmd->event_->executed_on())
    record_command(d->worker().worker_id, now_ns() - cmd->started_);
  cmd->event_->complete(cmd->status_);  // may destroy cmd: nothing after
}

void TaskCommand::launch(core::Event& event) {
  event_ = &event;
  // StarPU would wait forever for room that never comes (it evicts other
  // data, but this task needs all of its own at once).
  if (pinned_ && !fits_on(*pinned_)) {
    log::error("command '", name(), "' needs more memory than ", pinned_->name(), " has (",
               pinned_->global_mem_size(), " bytes for StarPU)");
    event.complete(CL_MEM_OBJECT_ALLOCATION_FAILURE);
    return;
  }
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
  int rc = starpu_task_submit(task);
  if (rc != 0) {
    log::error("StarPU refused the task of command '", name(), "' (", rc,
               "): no device of the context can run it");
    task->destroy = 0;
    starpu_task_destroy(task);
    event.complete(CL_OUT_OF_RESOURCES);
  }
}

}  // namespace parasol::runtime
