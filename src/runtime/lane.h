// A device's lanes: the vendor queues its direct commands go to (lane 0 is
// StarPU's own queue), each holding its commands in vendor-queue order, and
// how they are noticed complete. One waiter thread per lane waits for a
// proof (the newest vendor event in the lane, or a marker once the stream
// paused) and harvests: completes every command up to the proof. Whoever
// must know of a command sooner (a wait, a dependency, a poll, a profiled
// or awaited event) brings its own proof or arms a vendor callback.
#pragma once

#include <CL/cl.h>
#include <starpu.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>

#include "core/device.h"
#include "runtime/direct_launch.h"
#include "util/ring_queue.h"

namespace parasol::runtime {

struct Pending {
  // The command's own vendor event (the command owns it until complete()
  // runs), a marker's or a record's (owned here: owned), or null: a command
  // without one.
  cl_event done;
  DirectEnd complete;  // null for a marker
  void* self;
  std::uint64_t seq;       // push order
  bool owned;              // done is the lane's to release
  std::uint64_t launch_time;  // a record's (DirectEnd)
};

// The direct commands of one of a device's vendor queues, in their order
// (DirectSlot): the queue is in order, so they complete front first, and a
// completed event proves every command before it done.
struct Lane {
  // The vendor queue (lane_of() sets it; release_lanes() clears it at exit).
  std::atomic<cl_command_queue> queue{nullptr};
  std::once_flag opened;
  // Set once opened: read at every launch, where std::call_once's own check
  // costs thread-local lookups (as in Context::sched_ctx()).
  std::atomic<bool> open{false};
  std::atomic<bool> used{false};  // a command joined it once: drains look here
  // The event of the newest command that joined (LaneChoice follows a
  // chain there). Compared, never followed: a hint, may be stale.
  std::atomic<const void*> newest{nullptr};
  std::atomic<unsigned> turn{0};  // lane 0's: the next lane to spread a command to
  std::atomic<unsigned> homes{0};  // lane 0's: the next in-order device queue's home
  std::mutex order;            // one vendor enqueue + push at a time (DirectSlot, markers)
  // Under order: the process is exiting and StarPU releases its vendor
  // queues (lane 0's among them): the waiter calls this lane's queue no more
  // (release_lanes()). A marker pushed on a released queue would crash
  // the process's exit.
  bool closed = false;
  // Under order: launches since the last periodic proof (DirectSlot) or
  // marker, and when that was.
  unsigned since_proof = 0;
  std::uint64_t proof_time = 0;
  // Launches that joined, counted under order after their vendor enqueue:
  // the waiter tells a paused stream by it, records that stay out of the
  // fifo included.
  std::atomic<std::uint64_t> launched{0};
  // In that count: the newest record that joined without an entry (its end
  // does nothing, RecordEnd), the newest launch that has one (stored once
  // it is in the fifo), and through which launch a drain's vendor clFinish
  // returned. A drain finishes the vendor queue for records no entry after
  // them and no clFinish since covers; another drain's clFinish covers them
  // only once it returned (a flag cleared at a drain's start would let a
  // second clFinish of the lane return before the records it came for have
  // run).
  std::atomic<std::uint64_t> last_unlisted{0}, last_listed{0}, finished_through{0};
  std::mutex mutex;
  RingQueue<Pending> fifo;
  std::uint64_t pushed = 0;
  std::condition_variable wake;  // the waiter: a command joined an empty lane
  std::once_flag waiter_started;
  // Entries a harvest took and is still completing (outside the lock): a
  // drain returns once they are done too, so that after clFinish even a
  // record's end (its device counters) has run.
  unsigned completing = 0;
  std::condition_variable settled;
};

// Every device's lanes, kMaxLanes per StarPU worker. Never destroyed: a
// waiter thread may still wait on its lane at exit.
extern Lane* const g_lanes;

inline Lane& lane_slot(const core::Device& device, unsigned index) {
  return g_lanes[device.worker().worker_id * kMaxLanes + index];
}
// Opens the lane: its vendor queue made on first use (lane 0: StarPU's).
Lane& open_lane(const core::Device& device, unsigned index);
inline Lane& lane_of(const core::Device& device, unsigned index = 0) {
  Lane& lane = lane_slot(device, index);
  return lane.open.load(std::memory_order_acquire) ? lane : open_lane(device, index);
}
inline cl_command_queue queue_of(const Lane& lane) {
  return lane.queue.load(std::memory_order_relaxed);
}

// Wakes the lane's waiter (started on first use): a command joined an
// empty lane.
void wake_waiter(Lane& lane);
// Whether this launch is the lane's periodic proof (under its order lock).
bool periodic_proof(Lane& lane);
// A retained event whose completion proves a command done: its own (done),
// else a marker behind it. Null if the vendor refused the marker.
cl_event retained_proof(Lane& lane, cl_event done);
// Finishes the lane's vendor queue and completes what it held (see lane.cpp).
std::optional<cl_int> finish_lane(Lane& lane, bool against_close = false);
// Arms a callback that completes the command of `done` (null: one without
// an event of its own) promptly.
void arm_for(Lane& lane, cl_event done);

// direct_progress() (core::Event's hook, layer_hooks.cpp) arms the event's
// callback and flushes its vendor queue (wait: blocks until the vendor
// completed it, then completes it); drain_direct() (clFinish) waits for
// everything direct on device's lanes so far, its completion work included
// (records have no event to wait for); flush_direct() (clFlush) submits it.
void direct_progress(core::Event& event, bool wait);
void drain_direct(const core::Device& device);
void flush_direct(const core::Device& device);

// A lane's vendor queue (data leases wait behind it).
cl_command_queue lane_queue(const core::Device& device, unsigned lane);

// At shutdown, before StarPU releases the vendor contexts: every lane is
// closed (its waiter calls its vendor queue no more), and the lanes' own
// vendor queues (all but StarPU's) are finished and released.
void release_lanes();

// Calls f(lane) for every lane of device a command ever joined (none for a
// device with no StarPU worker of this process: another rank's, which a
// context queue's finish() and flush() meet among its context's devices).
template <class F>
void for_each_used_lane(const core::Device& device, F&& f) {
  if (device.worker().worker_id < 0) return;
  for (unsigned i = 0; i < kMaxLanes; ++i) {
    Lane& lane = lane_slot(device, i);
    if (lane.used.load(std::memory_order_relaxed)) f(lane);
  }
}

}  // namespace parasol::runtime
