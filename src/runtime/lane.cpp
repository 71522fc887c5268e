#include "runtime/lane.h"

#include <chrono>
#include <thread>

#include "backend/deferred_release.h"
#include "backend/vendor_handle.h"
#include "core/event.h"
#include "runtime/device_stats.h"
#include "util/callback_scope.h"
#include "util/clock.h"
#include "util/error_name.h"
#include "util/log.h"
#include "util/small_vector.h"
#include "util/thread_name.h"
#include "util/tsan_handover.h"

namespace parasol::runtime {

Lane* const g_lanes = new Lane[STARPU_NMAXWORKERS * kMaxLanes];

namespace {

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

}  // namespace

Lane& open_lane(const core::Device& device, unsigned index) {
  Lane& lane = lane_slot(device, index);
  std::call_once(lane.opened, [&] {
    lane.queue.store(index == 0 ? device.worker().queue : make_lane_queue(device, index),
                     std::memory_order_relaxed);
    lane.open.store(true, std::memory_order_release);
  });
  return lane;
}

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
// lane, so with the queries under it each launch would wait microseconds
// behind the waiter's harvest.
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

void harvest_through(Lane& lane, std::uint64_t seq) {
  {
    std::lock_guard lock(lane.mutex);
    if (lane.fifo.empty() || lane.fifo.front().seq > seq) return;  // harvested already
  }
  // As after a clFinish that succeeded (finish_lane()).
  harvest(lane, seq, CL_COMPLETE);
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
std::optional<cl_int> finish_lane(Lane& lane, bool against_close) {
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
// where every command has an event, that search costs the waiter three
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

void drain_direct(const core::Device& device) {
  for_each_used_lane(device, [&device](Lane& lane) {
    const std::uint64_t unlisted = lane.last_unlisted.load(std::memory_order_acquire);
    if (unlisted > lane.last_listed.load(std::memory_order_acquire) &&
        unlisted > lane.finished_through.load(std::memory_order_acquire)) {
      // The vendor's clFinish: NVIDIA's costs about half a marker and a
      // wait (docs/benchmarks.md). A failure among them shows in the next
      // event of the lane (RecordEnd) and, where the vendor reports it, here.
      const std::uint64_t through = lane.launched.load(std::memory_order_acquire);
      if (const cl_int err = *finish_lane(lane); err != CL_SUCCESS) {
        log::error("commands without an event on ", device.label(),
                   " may have failed in the vendor: its clFinish says ", error_name(err), " (",
                   err, ")");
        count_path_event(device.worker(), PathEvent::FailedDrain);
      }
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
