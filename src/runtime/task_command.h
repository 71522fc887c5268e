// A command that runs as one StarPU task on a device: a kernel launch, a
// migration. StarPU moves the task's buffers to the device that runs it;
// execute() then does the work there and returns the command's status,
// which reaches the event from the task's callback.
#pragma once

#include <starpu.h>

#include <span>
#include <string>
#include <vector>

#include "backend/worker_parking.h"
#include "core/buffer.h"
#include "core/context.h"
#include "core/device.h"
#include "core/event.h"
#include "runtime/command.h"
#include "runtime/data_leases.h"
#include "runtime/direct_launch.h"
#include "schedulers/alike_placement.h"
#include "schedulers/calibration_guard.h"
#include "util/small_vector.h"

namespace parasol::runtime {

class TaskCommand : public Command {
 public:
  // pinned: the device of a device queue, or null to let the context's
  // policy choose (context queue).
  // rotation: for a context queue, the context whose devices may take the
  // command (a device failing with a device-level error leaves it and the
  // command is placed again); null on a device queue.
  TaskCommand(core::Device* pinned, unsigned sched_ctx, core::Context* rotation = nullptr);

  // Runs on the StarPU worker of device; buffers[i] is the StarPU interface
  // of handles()[i] on that device. The work is enqueued at `place` (the
  // worker's vendor queue, or a direct command's lane behind its waits);
  // the vendor event left in *done decides the command's status once it
  // completes. done is null on the direct path when the command goes
  // without an event (runtime/direct_launch.h, DirectSlot).
  virtual cl_int execute(void* buffers[], core::Device& device, const VendorPlace& place,
                         cl_event* done) = 0;
  // The same on the native CPU device's worker: buffers[i] are main-RAM
  // interfaces. Runs the work to completion.
  virtual cl_int execute_on_host(void* buffers[], core::Device& device) = 0;
  // Whether device can run this command (a kernel needs its program built there).
  virtual bool can_run_on(const core::Device&) const { return true; }
  // Performance-model keys: commands that are alike share a footprint; the
  // size is what the regression model scales with.
  virtual std::uint32_t footprint() const { return 0; }
  virtual std::size_t size() const { return 1; }
  // What the command moves to the device for its own sake (a migration), for traces.
  virtual std::size_t bytes() const { return 0; }

  // Codelet plumbing shared by every TaskCommand codelet.
  static void fill_codelet(starpu_codelet& c);
  static std::uint32_t footprint_of(starpu_task* task);
  static std::size_t size_of(starpu_task* task, unsigned nimpl);

 protected:
  // StarPU's path: a task the context's policy (or the device queue's
  // device) places.
  void launch_task(core::Event& event) final;
  // Declares a buffer the task accesses; returns its index into buffers[].
  // Sub-buffers share their parent's handle: one index per handle, modes merged.
  std::size_t access(const core::Buffer& buffer, starpu_data_access_mode mode);
  virtual starpu_codelet* codelet();
  // The direct launch path (runtime/direct_launch.h) for commands whose
  // execute() is all they do on the device: the device queue's device, or
  // for a context queue under a data-aware policy the device where all of
  // the command's data already is. False: StarPU's path.
  bool try_direct(core::Event& event, std::span<core::Event* const> deps,
                  std::span<core::Event* const> named);
  // The same as a record (core::CommandQueue::try_record()). On a context
  // queue, where another device could take the command, only on a lane
  // without vendor events and not as its periodic proof: elsewhere a
  // command placed again after a device-level failure needs its event.
  // Only leases already held (the queue's lock is held meanwhile). On the
  // queue's home lane (home: core::CommandQueue::home_lane()).
  core::Device* try_record(core::Event* previous, const core::Device* tail, unsigned home);
  // A command with an event launched the way a record is
  // (core::CommandQueue::try_record_with_event()): the command object lives
  // on the enqueuing thread's stack and ends with the launch; the event,
  // which has none, completes from its lane (on_event_record_done()). On a
  // context queue only where no other device could take the command (after
  // a device-level failure it would be placed again: that needs the
  // object). deps: the wait list (named) and the queue's previous command;
  // tail: the device of the queue's records after that one. False, the
  // event untouched: the launch needs the full path (a dependency off this
  // device's lanes, a lease to take). True: the vendor has it, or refused it
  // and the event failed.
  bool try_record_with_event(core::Event& event, std::span<core::Event* const> deps,
                             std::span<core::Event* const> named, const core::Device* tail);
  // On a context queue: whether the policy would keep the command on
  // `resident`, the device holding all of its data (else StarPU decides).
  virtual bool policy_keeps_on(const core::Device& /*resident*/) const { return true; }
  // On a context queue, for a command without data: the device the policy
  // would place it on, when the direct path may take it there (else
  // StarPU decides).
  virtual core::Device* policy_places_without_data() const { return nullptr; }
  unsigned sched_ctx() const { return sched_ctx_; }
  // The device queue's device; null on a context queue.
  core::Device* pinned() const { return pinned_; }
  virtual const char* name() const = 0;
  // try_direct() is about to wait (for StarPU to bring data to a lease).
  virtual void before_blocking() {}

 private:
  // Whether every buffer of the task fits on the device at once.
  bool fits_on(const core::Device& device) const;
  // The devices of a context queue's context that may take the command,
  // one per StarPU worker.
  std::vector<core::Device*> candidates() const;
  // The workers its StarPU task needs awake (worker_parking.h): those that
  // may run it (on a context queue, of `candidates`, the context's) and
  // those whose memory holds its data.
  backend::WorkerSet workers_needed(std::span<core::Device* const> candidates) const;
  bool held_back(int worker) const;
  core::Device* resident_device() const;
  // Whether a buffer the task writes is valid on device
  // (schedulers/alike_placement.h). What it only reads does not count: dmda
  // prefetches a burst's shared input (SGEMM's B) to the device it chose
  // for the burst's first command, which would then hold every later one.
  bool holds_output(const core::Device& device) const;

  // StarPU calls back with the command (codelets, can_execute, the
  // performance model's hooks) on any of its threads, handed over through
  // spinlocks ThreadSanitizer cannot see: each call takes the command over
  // for its duration (util/tsan_handover.h). submit() hands it over.
  class FromStarpu;
  static void run_on_opencl(void* buffers[], void* self);
  static void run_on_cpu(void* buffers[], void* self);
  static int can_execute(unsigned worker, starpu_task* task, unsigned nimpl);
  void submit();
  // The device StarPU worker `worker_id` is for this command: its queue's
  // device, or the first of its context's devices on that worker.
  core::Device* device_on_worker(int worker_id) const;
  core::Device& begin_on_worker();
  // After a device-level failure on a context queue: true if the command
  // was placed again on another device of the context.
  bool reschedule_after(core::Device& failed);
  // On a context queue: whether a device of the context's rotation other
  // than device could run the command (device null: whether two could).
  bool placeable_elsewhere(const core::Device* device) const;
  // Where the direct path may send the command, its dependencies aside: the
  // device queue's device, the resident device the policy keeps it on, or
  // for a command without data the device the policy places it on.
  core::Device* direct_target() const;
  static void on_done(void* self);
  // On the direct path: proof_status is the vendor status of the event that
  // proved the command done (its own, or a later one).
  static void on_direct_done(void* self, cl_int proof_status, std::uint64_t);
  // A record's end: device is the core::Device it went to.
  static void on_record_done(void* device, cl_int proof_status, std::uint64_t launched);
  // The end of a try_record_with_event() launch: event is its core::Event.
  static void on_event_record_done(void* event, cl_int proof_status, std::uint64_t);

  core::Device* pinned_;
  unsigned sched_ctx_;
  core::Context* rotation_;
  unsigned attempts_ = 0;
  SmallVector<starpu_data_handle_t, 8> handles_;
  SmallVector<starpu_data_access_mode, 8> modes_;
  DataClaim claim_;  // while StarPU's path holds the data
  backend::WorkerDemand demand_;  // from submission until the task starts (or ends, if asynchronous)
  core::Event* event_ = nullptr;
  cl_int status_ = CL_COMPLETE;
  cl_event done_ = nullptr;
  bool status_unknown_ = false;  // failed as the later event proving it did
  std::uint64_t submitted_ = 0;  // to StarPU (submit())
  std::uint64_t started_ = 0;
  std::uint64_t finished_ = 0;  // when the worker saw the vendor command done
  starpu_task* task_ = nullptr;
  schedulers::CalibrationPlacement calibration_;
  schedulers::AlikeSteer steer_;  // from submission until the command ends
};

}  // namespace parasol::runtime
