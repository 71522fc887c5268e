// The direct launch path: a command whose dependencies are done or already
// queued on its device, and whose buffers are resident there (data leases),
// goes straight to one of the device's vendor queues (its lanes) from the
// enqueuing thread: no StarPU task, no worker hand-off, no wait per
// command. Each lane is an in-order vendor queue, which keeps the order,
// and a dependency in another lane is waited for on the vendor. This file
// decides whether and where a command goes (eligibility, leases, the lane,
// the slot); hand_over_direct() puts it in its lane, which completes the
// Parasol event when the vendor's does (runtime/lane.h). Everything else
// takes StarPU's path.
//
// PARASOL_DIRECT=0 turns it off (every command then goes through StarPU).
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>

#include "core/context.h"
#include "core/device.h"
#include "core/event.h"
#include "runtime/data_leases.h"
#include "util/small_vector.h"

namespace parasol::runtime {

bool direct_path_enabled();

// A vendor device whose runtime is thread-safe (not the native device, not
// Oclgrind).
inline bool direct_capable(const core::Device& device) {
  return device.worker().traits.direct_launch;
}

// Whether this thread may wait for StarPU (to take a lease): not a StarPU
// worker, not inside a callback.
bool may_wait_for_starpu();

// A direct attempt on a thread that may not wait for StarPU (a StarPU
// worker or callback) that failed only because a lease was missing notes
// it; core::Event then retries the launch on the launcher thread, which may
// take the lease. take_lease_wait_needed() reads and clears this thread's note.
void note_lease_wait_needed();
bool take_lease_wait_needed();

// A direct command's leases on device, pinned in pins (taken if missing,
// where this thread may wait for StarPU); false: it takes StarPU's path, or
// (noted) tries again on a thread that may wait.
bool pin_direct_leases(const core::Device& device, std::span<const starpu_data_handle_t> handles,
                       std::span<const starpu_data_access_mode> modes, LeasePins& pins);

// Whether the device's direct commands go without vendor events of their
// own (its vendor traits, vendor_traits.h): a failure while running
// then reaches a command through the later event proving it done, and it is
// reported failed, never placed again (it may have run).
inline bool lane_goes_without_events(const core::Device& device) {
  return device.worker().traits.later_events_carry_failures;
}

// Whether every event has completed successfully.
bool all_complete(std::span<core::Event* const> events);

// Every dependency completed successfully, or is a direct command queued
// before on one of device's lanes (on `lane` alone, if given: a record has
// no wait list to name another); and, while a DirectTail of this thread
// names a device, device is that one.
bool dependencies_allow(const core::Device& device, std::span<core::Event* const> deps,
                        int lane = -1);

// A device's lanes: each an in-order vendor queue with its direct commands
// in vendor order. Lane 0 is StarPU's own queue for the device; the others
// are Parasol's, so that independent commands of an out-of-order queue run
// side by side: NVIDIA runs one queue's kernels one after another, even an
// out-of-order queue's, and kernels of several queues at once, so
// latency-bound kernels spread over queues finish several times sooner
// (docs/benchmarks.md). PARASOL_LANES (1 to 8) sets how many; by default 4
// on GPUs and 1 elsewhere (a CPU device runs each kernel on every core
// already).
constexpr unsigned kMaxLanes = 8;
unsigned lane_count(const core::Device& device);

// An in-order queue's own lane on each device (its home): its direct
// commands and records go there, so the vendor runs the commands of
// different in-order queues side by side, as it does for its own queues
// (latency-bound kernels of separate queues then overlap:
// docs/benchmarks.md), while each queue's order stays one vendor queue's
// order. next_home_lane() gives a new queue's: a device queue takes its
// device's lanes in turn, the first lane 0 (StarPU's queue: a device's only
// queue shares StarPU's order); a context queue takes a turn of all
// contexts' queues. home_lane_on() maps it onto a device's lanes.
unsigned next_home_lane(const core::Device* device);
unsigned home_lane_on(const core::Device& device, unsigned home);
// The lane a record of the in-order queue whose home is `home` takes on
// device (its home there), or none if previous (the queue's command before
// it, if that has an event) does not let it go there now
// (dependencies_allow()).
std::optional<unsigned> record_lane(const core::Device& device, unsigned home,
                                    core::Event* previous);

// Where a direct command goes: its lane's vendor queue, behind the vendor
// events it must wait for on the device's other lanes.
struct VendorPlace {
  cl_command_queue queue;
  std::span<const cl_event> waits;
  // The launch's buffers are held by data leases it pinned (a direct
  // launch), not by a StarPU task: see lease_epoch().
  bool leased = false;
};

// StarPU's own queue for the device (lane 0), behind nothing.
VendorPlace starpu_place(const core::Device& device);

// The lane event's direct command takes on its device (after
// event.begin_direct()), and what it waits for on the others. A command of
// an in-order queue takes its queue's home lane, as the queue's records do.
// One of an out-of-order queue continues the lane whose newest
// command it depends on, else takes the next lane in turn. Each dependency
// still running on another lane gives a vendor event to wait for: its own,
// or a marker behind it there (that lane is flushed: OpenCL leaves waiting
// for an unflushed queue's event undefined). Made before the DirectSlot,
// which holds the chosen lane's order: a marker takes another lane's.
class LaneChoice {
 public:
  LaneChoice(const core::Event& event, std::span<core::Event* const> deps);
  ~LaneChoice();
  LaneChoice(const LaneChoice&) = delete;
  LaneChoice& operator=(const LaneChoice&) = delete;
  unsigned lane() const { return lane_; }
  std::span<const cl_event> waits() const { return {waits_.data(), waits_.size()}; }

 private:
  unsigned lane_ = 0;
  SmallVector<cl_event, 4> waits_;  // retained
};

// A queue's command enqueued behind its records (commands sent to a lane
// without a Parasol event: core::CommandQueue) is ordered after them only on
// their device's vendor queue: while alive, the first dependencies_allow()
// of this thread accepts no other device (null: any).
class DirectTail {
 public:
  explicit DirectTail(const core::Device* device);
  ~DirectTail();
  DirectTail(const DirectTail&) = delete;
  DirectTail& operator=(const DirectTail&) = delete;
};

// Under a data-aware policy (heft, the dmda family), the device a context
// queue's command using these handles would stay on: the only vendor device
// of context in its rotation, accepted by `eligible`, where every handle is
// valid. Null under another policy, or with no or several such devices:
// elsewhere the policy decides.
core::Device* sole_resident(const core::Context& context,
                            std::span<const starpu_data_handle_t> handles,
                            const std::function<bool(const core::Device&)>& eligible);

struct Lane;

// Who holds the reference to a direct command's vendor event that the
// vendor enqueue returned (hand_over_direct()): the command (it releases it
// once its DirectEnd ran; the event takes one of its own), or, for an event
// launched without a command object (TaskCommand::try_record_with_event()),
// the event itself.
enum class DoneHolder { Command, Event };

// What runs once the vendor completed a direct command or record: self as
// handed over, the status of the event proving it done (its own, or a
// later one's), and for a record its launch time (now_ns(), or 0).
using DirectEnd = void (*)(void* self, cl_int status, std::uint64_t launch_time);

// What a record's end is for: Always (a kernel's counts its device's busy
// time), or only to report the record's own failure (OwnFailure: a
// transfer's). A record of the latter kind without a vendor event of its
// own joins its lane without an entry: no lane lock, nothing for the waiter
// to harvest. Where failures stick (NVIDIA; the only other
// vendor whose records go without events, PoCL, cannot fail them), a
// failure among them fails the lane's next command with an event of its
// own (its periodic proof at the latest), whose end says so; and a drain
// says what the vendor's clFinish reports. Finished: a transfer the vendor's
// own blocking call completed (a failure came back from the call, and the
// command then went the event path), which also finished every launch of its
// lane before it: a drain needs no vendor clFinish for them.
enum class RecordEnd { Always, OwnFailure, Finished };

// A place in a lane: its commands up to the one pushed seq-th
// (harvest_through()).
struct LaneMark {
  Lane* lane = nullptr;
  std::uint64_t seq = 0;
};
// The vendor finished mark's lane through it (a blocking call returned
// successfully): completes its commands up to there now.
void harvest_through(Lane& lane, std::uint64_t seq);

// Keeps the device's direct commands off StarPU's vendor queue (lane 0)
// while held: what StarPU's worker enqueues meanwhile lands right behind
// what is there now (TaskCommand::run_on_opencl times a kernel from a
// marker it puts first).
std::unique_lock<std::mutex> hold_direct_order(const core::Device& device);

// A direct command's place on its device's vendor queue, held from before
// the vendor enqueue until hand_over_direct() put it in the device's lane:
// lane order is then vendor-queue order, so a later command's completion
// proves an earlier one's. It also decides whether the vendor enqueue asks
// for an output event: by default (waiter completion) only a periodic
// proof does (a command once a millisecond, at most 1,024 launches apart,
// which the hand-over also flushes), plus those someone already waits for
// or profiles. NVIDIA charges about 3 us for an event and far more while a
// thread waits on one of many (bench/vendor_costs.cpp); a command without
// one completes when a later event (another command's, or a marker the
// waiter enqueues) does.
class DirectSlot {
 public:
  // After event.begin_direct(), on the lane chosen. waited: the launching
  // thread waits for the command itself (a blocking transfer): the enqueue
  // asks for its event, which that wait then needs no marker for, and no
  // callback is armed.
  DirectSlot(const core::Event& event, const LaneChoice& choice, bool waited = false);
  // For a command without a Parasol event (a record: hand_over_record()),
  // on its in-order queue's home lane (home_lane_on()), as every command of
  // that queue.
  DirectSlot(const core::Device& device, unsigned lane);
  DirectSlot(const DirectSlot&) = delete;
  DirectSlot& operator=(const DirectSlot&) = delete;
  // The vendor queue and wait list of the enqueue.
  VendorPlace place() const { return {queue_, waits_, true}; }
  // Where the vendor enqueue leaves its event: null when it asks for none.
  cl_event* event_out(cl_event& done) const { return wants_event_ ? &done : nullptr; }
  bool wants_event() const { return wants_event_; }
  // This launch is the lane's periodic proof: its hand-over flushes.
  bool periodic() const { return periodic_; }
  // Lets go without handing a command over (the vendor refused it).
  void release() {
    if (order_.owns_lock()) order_.unlock();
  }

 private:
  friend void hand_over_direct(DirectSlot&, core::Event&, LeasePins&, cl_event, DirectEnd,
                               void*, DoneHolder);
  friend void hand_over_record(DirectSlot&, LeasePins&, cl_event, DirectEnd, void*,
                               std::uint64_t, RecordEnd, LaneMark*);
  // The part of a hand-over every command shares: the leases learn of the
  // vendor command, it joins the lane, the slot is let go, the waiter is
  // woken. The lane's launch count after it (this launch's number). event: the command's (null
  // for a record). listed: false for a record that needs no entry
  // (RecordEnd::OwnFailure without its own event).
  std::uint64_t join(LeasePins& pins, cl_event done,
                DirectEnd complete, void* self, bool lane_owns_done, std::uint64_t launch_time,
                const core::Event* event, bool listed);
  DirectSlot(const core::Device& device, unsigned lane, bool event_needed,
             std::span<const cl_event> waits);
  Lane& lane_;
  unsigned index_;
  std::unique_lock<std::mutex> order_;
  cl_command_queue queue_;
  std::span<const cl_event> waits_;
  bool periodic_;
  bool wants_event_;
};

// What every direct command does once the vendor took it (done: its event,
// or null when the slot asked for none): its leases learn that a vendor
// command uses them (unpinned), the command joins its device's lane, where
// complete(self, status) runs once the vendor completed it (status: its own
// event's, else that of the later event proving it done), the slot is let go,
// and the event becomes a direct dependency for later commands. The lane's
// waiter thread notices the completion; events someone awaits (depends on,
// waits for, polls) or profiles also get a vendor callback. self may be gone
// after. holder: see DoneHolder.
void hand_over_direct(DirectSlot& slot, core::Event& event, LeasePins& pins, cl_event done,
                      DirectEnd complete, void* self, DoneHolder holder = DoneHolder::Command);

// The status of an event launched without a command object
// (DoneHolder::Event) once its lane proved it done, as the harvest passed it:
// its own vendor event's if it has one (the harvest read it, or that event
// was the proof), else the later event's proving it done. A failure is
// logged, naming what (a command, a transfer).
cl_int event_record_status(const core::Event& event, cl_int status, const char* what);

// hand_over_direct() for a command without a Parasol event (a record of
// core::CommandQueue): nothing waits for it but its queue's clFinish (which
// drains the lane) and the commands behind it. complete(self, status) runs
// once the vendor completed it, with launch_time (no allocation per record
// to carry it); the lane owns done (the vendor's event, if the slot asked
// for one). end: see RecordEnd; for Finished, *finished (if given) is where
// the lane's commands are done through.
void hand_over_record(DirectSlot& slot, LeasePins& pins, cl_event done, DirectEnd complete,
                      void* self, std::uint64_t launch_time, RecordEnd end,
                      LaneMark* finished = nullptr);

// Starts event, which has no command, as a direct one on device: it
// completes once everything in its queue's home lane of device now has (the
// queue's records it stands for). The event's own status is CL_COMPLETE
// whatever theirs: queue order orders, it does not propagate failures.
void queue_behind_lane(core::Event& event, core::Device& device);

}  // namespace parasol::runtime
