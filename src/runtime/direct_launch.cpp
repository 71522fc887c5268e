#include "runtime/direct_launch.h"

#include <starpu.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "backend/deferred_release.h"
#include "backend/vendor_handle.h"
#include "backend/vendor_lock.h"
#include "core/command_queue.h"
#include "util/callback_scope.h"
#include "util/clock.h"
#include "util/error_name.h"
#include "util/log.h"
#include "util/ring_queue.h"
#include "util/settings.h"
#include "util/small_vector.h"
#include "util/thread_name.h"
#include "util/tsan_handover.h"

namespace parasol::runtime {

bool direct_path_enabled() {
  return settings::direct();
}

bool may_wait_for_starpu() { return starpu_worker_get_id() < 0 && !CallbackScope::active(); }

namespace {
thread_local bool t_lease_wait_needed = false;
}  // namespace

void note_lease_wait_needed() { t_lease_wait_needed = true; }

bool take_lease_wait_needed() { return std::exchange(t_lease_wait_needed, false); }

bool pin_direct_leases(const core::Device& device, std::span<const starpu_data_handle_t> handles,
                       std::span<const starpu_data_access_mode> modes, LeasePins& pins) {
  const bool may_block = may_wait_for_starpu();
  if (DataLeases::instance().pin(device, handles, modes, may_block, pins)) return true;
  if (!may_block) note_lease_wait_needed();  // a missing lease: that is all pin() tried
  return false;
}

bool all_complete(std::span<core::Event* const> events) {
  return std::all_of(events.begin(), events.end(),
                     [](core::Event* e) { return e->status() == CL_COMPLETE; });
}

namespace {
thread_local const core::Device* t_tail_device = nullptr;
}  // namespace

DirectTail::DirectTail(const core::Device* device) { t_tail_device = device; }
DirectTail::~DirectTail() { t_tail_device = nullptr; }

bool dependencies_allow(const core::Device& device, std::span<core::Event* const> deps,
                        int lane) {
  // The first check only: a launch it allows may complete others, whose
  // successors then launch from this thread with dependencies of their own.
  if (const core::Device* tail = std::exchange(t_tail_device, nullptr); tail && tail != &device)
    return false;
  for (core::Event* e : deps) {
    cl_int s = e->status();
    if (s == CL_COMPLETE) continue;
    if (s < 0 || !e->queued_direct_on(&device)) return false;
    if (lane >= 0 && e->direct_lane() != static_cast<unsigned>(lane)) return false;
  }
  return true;
}

core::Device* sole_resident(const core::Context& context,
                            std::span<const starpu_data_handle_t> handles,
                            const std::function<bool(const core::Device&)>& eligible) {
  if (handles.empty() || !context.data_aware()) return nullptr;
  core::Device* only = nullptr;
  const bool second = context.any_in_rotation([&](core::Device* d) {
    if (d->is_native() || !eligible(*d)) return false;
    const unsigned node = d->worker().memory_node;
    if (!std::all_of(handles.begin(), handles.end(),
                     [node](starpu_data_handle_t h) { return starpu_data_is_on_node(h, node); }))
      return false;
    if (only) return true;
    only = d;
    return false;
  });
  return second ? nullptr : only;
}

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
  // (release_lanes()). A marker pushed meanwhile on a released queue crashed
  // 1 exit in about 100 (test_object_info, loaded host).
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
  // only once it returned (a flag cleared at its start let a second
  // clFinish of the lane return before the records it came for had run).
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

namespace {

// Never destroyed: a waiter thread may still wait on its lane at exit.
Lane* const g_lanes = new Lane[STARPU_NMAXWORKERS * kMaxLanes];

Lane& lane_slot(const core::Device& device, unsigned index) {
  return g_lanes[device.worker().worker_id * kMaxLanes + index];
}

// A lane of Parasol's own: a vendor queue beside StarPU's, with its
// properties (profiling) but in order. Null if the vendor refused it.
cl_command_queue make_lane_queue(const core::Device& device, unsigned index) {
  const backend::VendorWorker& w = device.worker();
  cl_command_queue_properties props = 0;
  clGetCommandQueueInfo(w.queue, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr);
  props &= ~static_cast<cl_command_queue_properties>(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(w.context, w.device, props, &err);
  if (err != CL_SUCCESS) {
    log::warn(device.label(), ": the vendor refused lane ", index, "'s queue (", error_name(err),
              ", ", err, "); its commands take lane 0");
    return nullptr;
  }
  return q;
}

// The lane, its vendor queue made on first use (lane 0: StarPU's).
Lane& lane_of(const core::Device& device, unsigned index = 0) {
  Lane& lane = lane_slot(device, index);
  if (!lane.open.load(std::memory_order_acquire))
    std::call_once(lane.opened, [&] {
      lane.queue.store(index == 0 ? device.worker().queue : make_lane_queue(device, index),
                       std::memory_order_relaxed);
      lane.open.store(true, std::memory_order_release);
    });
  return lane;
}

cl_command_queue queue_of(const Lane& lane) { return lane.queue.load(std::memory_order_relaxed); }

}  // namespace

unsigned lane_count(const core::Device& device) {
  if (const auto n = settings::lanes(kMaxLanes)) return *n;
  return (device.type() & CL_DEVICE_TYPE_GPU) ? 4 : 1;
}

unsigned next_home_lane(const core::Device* device) {
  static std::atomic<unsigned> context_queues{0};
  std::atomic<unsigned>& turn = device ? lane_slot(*device, 0).homes : context_queues;
  return turn.fetch_add(1, std::memory_order_relaxed);
}

unsigned home_lane_on(const core::Device& device, unsigned home) {
  const unsigned count = lane_count(device);
  if (count == 1) return 0;
  const unsigned lane = home % count;
  return lane == 0 || queue_of(lane_of(device, lane)) ? lane : 0;  // else the vendor refused it
}

std::optional<unsigned> record_lane(const core::Device& device, unsigned home,
                                    core::Event* previous) {
  const unsigned lane = home_lane_on(device, home);
  core::Event* const before[] = {previous};
  if (!dependencies_allow(device, {before, previous ? 1u : 0u}, static_cast<int>(lane)))
    return std::nullopt;
  return lane;
}

VendorPlace starpu_place(const core::Device& device) { return {device.worker().queue, {}}; }

std::unique_lock<std::mutex> hold_direct_order(const core::Device& device) {
  return std::unique_lock(lane_of(device).order);
}

namespace {

bool lane_empty(Lane& lane) {
  std::lock_guard lock(lane.mutex);
  return lane.fifo.empty();
}

// Harvests completing entries on this thread: a drain from inside their
// completion (a successor's launch) must not wait for itself.
thread_local int t_completing = 0;

// Waits until no harvest is completing entries of the lane any more.
void wait_settled(Lane& lane) {
  if (t_completing) return;
  std::unique_lock lock(lane.mutex);
  lane.settled.wait(lock, [&] { return lane.completing == 0; });
}

// Completes the lane's commands the vendor finished: those pushed up to
// `through` (the caller's proof: a clFinish, a completed event), then those
// up to a completed event it finds.
// How many entries left the lane.
//
// The vendor is asked outside the lane's lock: a status query costs about
// 1.5 us on NVIDIA, and every direct launch takes that lock to join the
// lane (a probe on the H100 host: with the queries under it, the waiter
// held it 2.3-4.6 us per harvest and each 64-byte write waited 0.45 us of
// its launch there).
std::size_t harvest(Lane& lane, std::uint64_t through = 0, cl_int through_status = CL_COMPLETE) {
  // A command with a vendor event of its own always ends with that event's
  // status (event_record_status() relies on it): read below when taken
  // through a caller's proof, or it is the proof a search found (the
  // search stops at the lane's first entry with an event; those before it
  // have none).
  struct Finished {
    Pending p;
    cl_int status;  // of the event proving it (its own, once read)
    bool own_event_status = false;  // still to be read from p.done
  };
  // In batches that fit in place, completed outside the lock: a list of
  // every finished command would cost an allocation per harvest, and grow
  // again and again in a harvest after a long stream.
  constexpr std::size_t kBatch = 32;
  std::size_t total = 0;
  // Entries up to `proven` are done with `proven_status` (a completed
  // proof's): kept across batches, so a proof is asked once.
  std::uint64_t proven = 0;
  cl_int proven_status = CL_COMPLETE;
  for (;;) {
    SmallVector<Finished, kBatch> finished;
    // Takes the front entries up to seq (another harvester may have taken
    // some or all of them meanwhile). Under lane.mutex.
    auto take_through = [&](std::uint64_t seq, cl_int status, bool own_status) {
      while (finished.size() < kBatch && !lane.fifo.empty() && lane.fifo.front().seq <= seq) {
        const Pending& p = lane.fifo.front();
        finished.push_back({p, status, own_status && p.done != nullptr});
        lane.fifo.pop_front();
        ++lane.completing;
      }
    };
    {
      // Proven by the caller (a wait or clFinish): no search up to there.
      std::lock_guard lock(lane.mutex);
      take_through(through, through_status, true);
    }
    while (finished.size() < kBatch) {
      cl_event proof = nullptr;
      std::uint64_t proof_seq = 0;
      {
        std::lock_guard lock(lane.mutex);
        take_through(proven, proven_status, false);
        if (finished.size() == kBatch) break;
        std::size_t i = 0;
        while (i < lane.fifo.size() && lane.fifo[i].done == nullptr) ++i;
        if (i == lane.fifo.size()) break;
        // Retained: once the lock is let go, another harvester may
        // complete its command, which releases the command's reference.
        proof = lane.fifo[i].done;
        proof_seq = lane.fifo[i].seq;
        clRetainEvent(proof);
      }
      const cl_int status = backend::vendor_event_status(proof, CL_QUEUED);
      clReleaseEvent(proof);
      if (status > CL_COMPLETE) break;  // not done yet
      proven = proof_seq;
      proven_status = status;
    }
    ++t_completing;
    for (Finished& f : finished) {
      if (f.own_event_status) f.status = backend::vendor_event_status(f.p.done, CL_COMPLETE);
      if (f.p.complete) f.p.complete(f.p.self, f.status, f.p.launch_time);
      if (f.p.owned) clReleaseEvent(f.p.done);
    }
    --t_completing;
    if (!finished.empty()) {
      std::lock_guard lock(lane.mutex);
      lane.completing -= static_cast<unsigned>(finished.size());
      if (lane.completing == 0) lane.settled.notify_all();
    }
    total += finished.size();
    if (finished.size() < kBatch) return total;
  }
}

void CL_CALLBACK harvest_callback(cl_event, cl_int, void* lane) {
  tsan::acquire(lane);  // from arm(), through the vendor
  CallbackScope scope;
  backend::InVendorCallback in_callback;
  harvest(*static_cast<Lane*>(lane));
}

// Completions of direct commands are noticed by one waiter thread per lane:
// it waits for the newest vendor event of its lane (a marker it enqueues
// when no command there has one) and completes what finished, one wait and
// one implicit flush per batch. Most commands ask the vendor for no event
// (DirectSlot); events someone waits for, depends on or profiles get a
// vendor callback as well, so that they are noticed at once. The enqueuing
// thread pays nothing for the others.
void wake_waiter(Lane& lane);

// Enqueues a marker behind everything in the lane and adds it there: its
// event, retained for the caller (and its place in the lane in *seq); null
// if the vendor refused.
cl_event push_marker(Lane& lane, std::uint64_t* seq = nullptr) {
  cl_event marker = nullptr;
  bool was_empty;
  {
    std::lock_guard order(lane.order);
    if (lane.closed ||
        clEnqueueMarkerWithWaitList(queue_of(lane), 0, nullptr, &marker) != CL_SUCCESS)
      return nullptr;
    clRetainEvent(marker);
    lane.since_proof = 0;
    lane.proof_time = now_ns();
    std::lock_guard lock(lane.mutex);
    was_empty = lane.fifo.empty();
    lane.fifo.push_back({marker, nullptr, nullptr, ++lane.pushed, true, 0});
    if (seq) *seq = lane.pushed;
  }
  // As for a command (DirectSlot::join): the waiter sleeps only on an empty
  // lane. A marker can land on one: a dependency on another lane looks
  // running while the harvest that took it is still completing it, and the
  // marker LaneChoice puts behind it would go unharvested, with the lane's
  // later commands.
  if (was_empty) wake_waiter(lane);
  return marker;
}

// Without a marker: everything in the lane now is done once the vendor
// queue is finished (failed, for those without an event, if clFinish did).
// The vendor's answer. against_close (the waiter's): the clFinish under the
// lane's order, as a marker's enqueue, so that closing the lane at exit
// waits for it; on a closed lane nothing is done (nullopt).
std::optional<cl_int> finish_lane(Lane& lane, bool against_close = false) {
  std::uint64_t through;
  cl_int err;
  {
    std::unique_lock order(lane.order, std::defer_lock);
    if (against_close) {
      order.lock();
      if (lane.closed) return std::nullopt;
    }
    {
      std::lock_guard lock(lane.mutex);
      through = lane.pushed;
    }
    err = clFinish(queue_of(lane));
  }
  harvest(lane, through, err == CL_SUCCESS ? CL_COMPLETE : err);  // outside: it launches
  return err;
}

// A retained event whose completion proves a command done: its own (done),
// else a marker behind it. Null if the vendor refused the marker.
cl_event retained_proof(Lane& lane, cl_event done) {
  if (!done) return push_marker(lane);
  clRetainEvent(done);
  return done;
}

// A retained event proving every command now in the lane done (newest: its
// newest command's) or at least one (the newest that has an event); else,
// if may_mark, a marker's. Null for an empty lane, none found or a refused
// marker. *seq, if given: its place in the lane (harvest_proven() through
// it once complete).
cl_event retained_lane_proof(Lane& lane, bool newest, bool may_mark = true,
                             std::uint64_t* seq = nullptr) {
  {
    std::lock_guard lock(lane.mutex);
    if (lane.fifo.empty()) return nullptr;
    // From the newest back: only the newest itself, if newest.
    const std::size_t n = lane.fifo.size(), stop = newest ? n - 1 : 0;
    for (std::size_t i = n; i-- > stop;) {
      const Pending& p = lane.fifo[i];
      if (!p.done) continue;
      clRetainEvent(p.done);
      if (seq) *seq = p.seq;
      return p.done;
    }
  }
  return may_mark ? push_marker(lane, seq) : nullptr;
}

// Once proof (from retained_lane_proof(), released here) was waited for:
// completes the lane's commands up to it. How many entries left the lane.
// Through its place in the lane, not by asking the vendor for each
// command's status on the way to it (harvest()'s own search): on PoCL,
// where every command had an event, that search cost the waiter three
// vendor calls per command.
std::size_t harvest_proven(Lane& lane, cl_event proof, std::uint64_t seq) {
  const cl_int status = backend::vendor_event_status(proof, CL_QUEUED);
  clReleaseEvent(proof);
  // A status lagging behind the wait: the search then asks again.
  if (status > CL_COMPLETE) return harvest(lane);
  return harvest(lane, seq, status);
}

void arm(Lane& lane, cl_event done) {
  tsan::release(&lane);
  if (clSetEventCallback(done, CL_COMPLETE, &harvest_callback, &lane) != CL_SUCCESS) {
    clWaitForEvents(1, &done);  // a vendor without callbacks: wait here
    harvest(lane);
  }
}

// Arms a callback that completes the command of `done` (null: one without
// an event of its own) promptly.
void arm_for(Lane& lane, cl_event done) {
  if (cl_event proof = retained_proof(lane, done)) {
    arm(lane, proof);
    clReleaseEvent(proof);
  } else {
    finish_lane(lane);
  }
}

void wait_for_lane(Lane& lane) {
  name_this_thread("parasol-wait");
  CallbackScope scope;  // completions launch successors: no waiting on StarPU here
  for (;;) {
    {
      std::unique_lock lock(lane.mutex);
      lane.wake.wait(lock, [&] { return !lane.fifo.empty(); });
    }
    std::uint64_t seq = 0;
    cl_event proof = retained_lane_proof(lane, false, false, &seq);
    if (!proof) {
      // Only commands without an event: one with an event comes within a
      // millisecond (or 1,024 launches) while a stream goes on. A marker
      // (which costs NVIDIA as much as an event, and more while this thread
      // waits on it) only once the stream paused; whoever waits for one of them meanwhile brings
      // its own proof (direct_progress, drain_direct).
      for (std::uint64_t seen = lane.launched.load(std::memory_order_relaxed) - 1;;) {
        const std::uint64_t launched = lane.launched.load(std::memory_order_relaxed);
        if (launched == seen) break;  // no launch for 200 us: paused
        seen = launched;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        proof = retained_lane_proof(lane, false, false, &seq);
        if (proof) break;
      }
      if (!proof) proof = retained_lane_proof(lane, false, true, &seq);
    }
    if (!proof) {
      // Unless harvested meanwhile: the vendor refused a marker, or the
      // lane closed (then this thread ends).
      if (!lane_empty(lane) && !finish_lane(lane, true)) return;
      continue;
    }
    clWaitForEvents(1, &proof);  // also flushes the vendor queue
    // Nothing done yet although the wait returned (a status lagging behind
    // the wait, or another thread harvested it): do not spin.
    if (harvest_proven(lane, proof, seq) == 0) std::this_thread::yield();
  }
}

void wake_waiter(Lane& lane) {
  std::call_once(lane.waiter_started, [&lane] {
    std::thread([&lane] { wait_for_lane(lane); }).detach();
  });
  lane.wake.notify_one();
}

// Whether this launch is the lane's periodic proof (under its order lock):
// once a millisecond, looked at every 32nd launch, and at least every
// 1,024th. A proof every 32nd launch costs NVIDIA streams of small
// commands about a tenth of their time in the event and the flush
// (docs/benchmarks.md); a millisecond bounds how late a command nobody waits
// for is noticed complete, and a stream of long commands still gets a proof
// every 32.
bool periodic_proof(Lane& lane) {
  constexpr unsigned kLook = 32, kMaxRun = 1024;
  constexpr std::uint64_t kGapNs = 1'000'000;
  const unsigned n = ++lane.since_proof;
  if (n % kLook != 0) return false;
  const std::uint64_t now = now_ns();
  if (n < kMaxRun && now - lane.proof_time < kGapNs) return false;
  lane.since_proof = 0;
  lane.proof_time = now;
  return true;
}

// Whether the lane's commands may go without vendor events of their own
// (VendorTraits::later_events_carry_failures).
bool goes_without_events(const core::Device& device) {
  return device.worker().traits.later_events_carry_failures;
}

}  // namespace

bool lane_goes_without_events(const core::Device& device) {
  return goes_without_events(device);
}

LaneChoice::LaneChoice(const core::Event& event, std::span<core::Event* const> deps) {
  const core::Device& device = *event.executed_on();
  const bool spread = event.queue() && !event.queue()->in_order();
  const unsigned count = lane_count(device);
  auto running_here = [&device](const core::Event* e) {
    return e->status() > CL_COMPLETE && e->queued_direct_on(&device);
  };
  if (spread && count > 1) {
    // Continuing a chain on its lane needs no wait; anything else goes to
    // the next lane in turn.
    bool follows = false;
    for (const core::Event* e : deps)
      if (running_here(e) && lane_slot(device, e->direct_lane()).newest.load(
                                 std::memory_order_relaxed) == e) {
        lane_ = e->direct_lane();
        follows = true;
        break;
      }
    if (!follows)
      lane_ = lane_slot(device, 0).turn.fetch_add(1, std::memory_order_relaxed) % count;
    if (!queue_of(lane_of(device, lane_))) lane_ = 0;  // the vendor refused its queue
  } else if (event.queue()) {
    lane_ = home_lane_on(device, event.queue()->home_lane());
  }
  for (const core::Event* e : deps) {
    if (!running_here(e) || e->direct_lane() == lane_) continue;
    Lane& other = lane_of(device, e->direct_lane());
    if (cl_event proof = retained_proof(other, e->direct_done()))
      waits_.push_back(proof);
    else
      finish_lane(other);  // the vendor refused a marker: wait here
    clFlush(queue_of(other));
  }
}

LaneChoice::~LaneChoice() {
  for (cl_event e : waits_) clReleaseEvent(e);
}

DirectSlot::DirectSlot(const core::Device& device, unsigned lane, bool event_needed,
                       std::span<const cl_event> waits)
    : lane_(lane_of(device, lane)),
      index_(lane),
      order_(lane_.order),
      queue_(queue_of(lane_)),
      waits_(waits) {
  const bool unevented = goes_without_events(device);
  periodic_ = periodic_proof(lane_);
  wants_event_ = event_needed || periodic_ || !unevented;
}

DirectSlot::DirectSlot(const core::Device& device, unsigned lane)
    : DirectSlot(device, lane, false, {}) {}

DirectSlot::DirectSlot(const core::Event& event, const LaneChoice& choice, bool waited)
    : DirectSlot(*event.executed_on(), choice.lane(),
                 waited || event.profiled() || event.awaited(), choice.waits()) {}

unsigned DirectSlot::join(LeasePins& pins, cl_event done,
                          DirectEnd complete, void* self, bool owned, std::uint64_t launch_time,
                          const core::Event* event, bool listed) {
  pins.used_on(index_);
  const std::uint64_t launched = lane_.launched.load(std::memory_order_relaxed) + 1;
  lane_.launched.store(launched, std::memory_order_release);  // after the vendor enqueue
  if (!lane_.used.load(std::memory_order_relaxed)) lane_.used.store(true, std::memory_order_relaxed);
  lane_.newest.store(event, std::memory_order_relaxed);
  if (!listed) {
    // No lock, no entry and nothing for the waiter to harvest: a drain
    // finishes the vendor queue (drain_direct()).
    lane_.last_unlisted.store(launched, std::memory_order_release);
    order_.unlock();
    return static_cast<unsigned>(launched);
  }
  bool was_empty;
  {
    std::lock_guard lock(lane_.mutex);
    was_empty = lane_.fifo.empty();
    // self may be gone from here on.
    lane_.fifo.push_back({done, complete, self, ++lane_.pushed, owned, launch_time});
  }
  // This entry's proof proves the records before it: stored once it is in,
  // so that a drain seeing it finds the entry (or finds it harvested).
  lane_.last_listed.store(launched, std::memory_order_release);
  // Before anything that may complete commands: their successors may
  // launch on this device from this thread.
  order_.unlock();
  // The waiter only sleeps on an empty lane.
  if (was_empty) wake_waiter(lane_);
  return static_cast<unsigned>(launched);
}

void hand_over_direct(DirectSlot& slot, core::Event& event, LeasePins& pins, cl_event done,
                      DirectEnd complete, void* self, DoneHolder holder) {
  // A harvest elsewhere may complete (and let go of) the event as soon as
  // the command is in its lane.
  core::Ref<core::Event> keep(&event);
  // The event's own reference to the vendor event, taken now: once in the
  // lane, the command may complete and release its reference any moment.
  if (done && holder == DoneHolder::Command) clRetainEvent(done);
  Lane& lane = slot.lane_;
  slot.join(pins, done, complete, self, false, 0, &event, true);
  // Published only once in the lane: whoever sees it queued may arm a
  // callback, whose harvest must find the command there. Whoever came to
  // await the event before (a successor registering between launch and
  // here: its flush found it not queued) is seen now; flush_direct() and
  // wait() mark first and look second, so one side always sees the other
  // (else a successor could wait for a command nobody flushed or armed).
  event.queued_direct(done, slot.index_);
  const bool periodic = slot.periodic();
  const bool awaited = event.awaited();
  // Where promptness matters, a callback: an awaited event, and a profiled
  // one (its end time is taken when it is noticed; the waiter notices a
  // batch at once).
  if ((event.profiled() || awaited) && event.take_direct_arming()) arm_for(lane, done);
  // Awaited: what flush_direct() would have done had it seen the command
  // queued (PoCL may not start a command before a flush). And now and
  // then, so that a vendor holding commands back starts them.
  if (awaited || periodic) clFlush(queue_of(lane));
}

cl_int event_record_status(const core::Event& event, cl_int status, const char* what) {
  if (status < 0)
    log::error(what, " (event ", event.id(), ") on ", event.executed_on()->label(),
               " failed in the vendor: ", error_name(status), " (", status, ")",
               event.direct_done() ? "" : ", as the later event proving it done did");
  return status;
}

void hand_over_record(DirectSlot& slot, LeasePins& pins, cl_event done, DirectEnd complete,
                      void* self, std::uint64_t launch_time, RecordEnd end) {
  const bool periodic = slot.periodic();
  // An end that only reports the record's own failure has nothing to do
  // without its own event: a later proof's status is the later command's.
  const bool listed = done || end == RecordEnd::Always;
  slot.join(pins, done, complete, self, true, launch_time, nullptr, listed);
  if (periodic) clFlush(queue_of(slot.lane_));
}

namespace {
void complete_watch(void* event, cl_int, std::uint64_t) {
  static_cast<core::Event*>(event)->complete(CL_COMPLETE);
}
}  // namespace

void queue_behind_lane(core::Event& event, core::Device& device) {
  event.begin_direct(&device);
  DirectSlot slot(device, home_lane_on(device, event.queue()->home_lane()));
  LeasePins none;
  hand_over_direct(slot, event, none, nullptr, &complete_watch, &event);
}

void direct_progress(core::Event& event, bool wait) {
  Lane& lane = lane_of(*event.executed_on(), event.direct_lane());
  if (wait) {
    cl_event proof = retained_proof(lane, event.direct_done());
    if (!proof) {
      finish_lane(lane);
      return;
    }
    clWaitForEvents(1, &proof);
    clReleaseEvent(proof);
  } else {
    if (event.take_direct_arming()) arm_for(lane, event.direct_done());
    clFlush(queue_of(lane));
  }
  harvest(lane);
}

namespace {
// Calls f(lane) for every lane of device a command ever joined.
template <class F>
void for_each_used_lane(const core::Device& device, F&& f) {
  for (unsigned i = 0; i < kMaxLanes; ++i) {
    Lane& lane = lane_slot(device, i);
    if (lane.used.load(std::memory_order_relaxed)) f(lane);
  }
}
}  // namespace

void drain_direct(const core::Device& device) {
  for_each_used_lane(device, [&device](Lane& lane) {
    const std::uint64_t unlisted = lane.last_unlisted.load(std::memory_order_acquire);
    if (unlisted > lane.last_listed.load(std::memory_order_acquire) &&
        unlisted > lane.finished_through.load(std::memory_order_acquire)) {
      // The vendor's clFinish: NVIDIA's costs about half a marker and a
      // wait (docs/benchmarks.md). A failure among them shows in the next
      // event of the lane (RecordEnd) and, where the vendor reports it, here.
      const std::uint64_t through = lane.launched.load(std::memory_order_acquire);
      if (const cl_int err = *finish_lane(lane); err != CL_SUCCESS)
        log::error("commands without an event on ", device.label(),
                   " may have failed in the vendor: its clFinish says ", error_name(err), " (",
                   err, ")");
      std::uint64_t seen = lane.finished_through.load(std::memory_order_relaxed);
      while (seen < through && !lane.finished_through.compare_exchange_weak(
                                   seen, through, std::memory_order_acq_rel))
        ;
    } else if (!lane_empty(lane)) {
      // The newest command's own event, else the vendor's clFinish (cheaper
      // than a marker and a wait).
      std::uint64_t seq = 0;
      if (cl_event newest = retained_lane_proof(lane, true, false, &seq)) {
        clWaitForEvents(1, &newest);
        harvest_proven(lane, newest, seq);
      } else {
        finish_lane(lane);
      }
    }
    wait_settled(lane);
  });
}

void flush_direct(const core::Device& device) {
  for_each_used_lane(device, [](Lane& lane) {
    clFlush(queue_of(lane));  // the lane's waiter notices completions
  });
}

cl_command_queue lane_queue(const core::Device& device, unsigned lane) {
  return queue_of(lane_of(device, lane));
}

void release_lanes() {
  for (unsigned i = 0; i < STARPU_NMAXWORKERS * kMaxLanes; ++i) {
    Lane& lane = g_lanes[i];
    if (!lane.open.load(std::memory_order_acquire)) continue;
    std::lock_guard order(lane.order);
    lane.closed = true;
    if (i % kMaxLanes == 0) continue;  // StarPU's queue: StarPU releases it
    cl_command_queue q = queue_of(lane);
    // A lane still holding commands (a detached thread's, at exit) keeps
    // its queue: releasing it under them would be worse than the leak.
    if (!q || !lane_empty(lane)) continue;
    clFinish(q);
    lane.queue.store(nullptr, std::memory_order_relaxed);
    clReleaseCommandQueue(q);
  }
}

}  // namespace parasol::runtime
