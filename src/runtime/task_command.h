// A command that runs as one StarPU task on a device: a kernel launch, a
// migration. StarPU moves the task's buffers to the device that runs it;
// execute() then does the work there and returns the command's status,
// which reaches the event from the task's callback.
#pragma once

#include <starpu.h>

#include <string>
#include <vector>

#include "core/buffer.h"
#include "core/device.h"
#include "core/event.h"

namespace parasol::runtime {

class TaskCommand : public core::Command {
 public:
  // pinned: the device of a device queue, or null to let the context's
  // policy choose (context queue).
  TaskCommand(core::Device* pinned, unsigned sched_ctx);
  void launch(core::Event& event) final;

  // Runs on the StarPU worker of device; buffers[i] is the StarPU interface
  // of handles()[i] on that device.
  virtual cl_int execute(void* buffers[], core::Device& device) = 0;
  // Whether the command can run on device at all (a kernel only runs where
  // its program was built). A context queue's policy only picks such devices.
  virtual bool can_run_on(const core::Device&) const { return true; }

 protected:
  // Declares a buffer the task accesses; returns its index into buffers[].
  // Sub-buffers share their parent's handle: one index per handle, modes merged.
  std::size_t access(const core::Buffer& buffer, starpu_data_access_mode mode);
  virtual starpu_codelet* codelet();
  virtual const char* name() const = 0;

 private:
  static void run_on_opencl(void* buffers[], void* self);
  static int can_execute(unsigned workerid, starpu_task* task, unsigned nimpl);
  static void on_done(void* self);

  core::Device* pinned_;
  unsigned sched_ctx_;
  std::vector<starpu_data_handle_t> handles_;
  std::vector<starpu_data_access_mode> modes_;
  core::Event* event_ = nullptr;
  cl_int status_ = CL_COMPLETE;
};

}  // namespace parasol::runtime
