#include "runtime/direct_launch.h"

#include <starpu.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "backend/deferred_release.h"
#include "backend/vendor_handle.h"
#include "backend/vendor_lock.h"
#include "core/command_queue.h"
#include "runtime/device_stats.h"
#include "runtime/lane.h"
#include "util/callback_scope.h"
#include "util/clock.h"
#include "util/error_name.h"
#include "util/log.h"
#include "util/settings.h"

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
    if (!d->worker().traits.own_memory || !eligible(*d)) return false;
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

unsigned lane_count(const core::Device& device) {
  if (const auto n = settings::lanes(kMaxLanes)) return *n;
  return (device.type() & CL_DEVICE_TYPE_GPU) ? 4 : 1;
}

unsigned next_home_lane(const core::Device* device) {
  static std::atomic<unsigned> context_queues{0};
  // A device without a StarPU worker here (another rank's) has no lanes.
  std::atomic<unsigned>& turn =
      device && device->worker().worker_id >= 0 ? lane_slot(*device, 0).homes : context_queues;
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
  const bool unevented = lane_goes_without_events(device);
  periodic_ = periodic_proof(lane_);
  wants_event_ = event_needed || periodic_ || !unevented;
}

DirectSlot::DirectSlot(const core::Device& device, unsigned lane)
    : DirectSlot(device, lane, false, {}) {}

DirectSlot::DirectSlot(const core::Event& event, const LaneChoice& choice, bool waited)
    : DirectSlot(*event.executed_on(), choice.lane(),
                 waited || event.profiled() || event.awaited(), choice.waits()) {}

std::uint64_t DirectSlot::join(LeasePins& pins, cl_event done,
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
    return launched;
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
  return launched;
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
  if (status < 0) {
    log::error(what, " (event ", event.id(), ") on ", event.executed_on()->label(),
               " failed in the vendor: ", error_name(status), " (", status, ")",
               event.direct_done() ? "" : ", as the later event proving it done did");
    count_path_event(event.executed_on()->worker(), PathEvent::VendorFailure);
  }
  return status;
}

void hand_over_record(DirectSlot& slot, LeasePins& pins, cl_event done, DirectEnd complete,
                      void* self, std::uint64_t launch_time, RecordEnd end, LaneMark* finished) {
  const bool periodic = slot.periodic();
  // An end that only reports the record's own failure has nothing to do
  // without its own event: a later proof's status is the later command's.
  const bool listed = done || end == RecordEnd::Always;
  // Every entry pushed so far is ahead of it in the vendor's queue (pushes
  // hold the slot's order lock), and so is its own, if it gets one.
  if (finished && end == RecordEnd::Finished)
    *finished = {&slot.lane_, slot.lane_.pushed + (listed ? 1 : 0)};
  const std::uint64_t launched =
      slot.join(pins, done, complete, self, true, launch_time, nullptr, listed);
  if (end == RecordEnd::Finished) {
    // The vendor's in-order queue ran everything through it: as a drain's
    // clFinish that returned (Lane::finished_through).
    Lane& lane = slot.lane_;
    std::uint64_t seen = lane.finished_through.load(std::memory_order_relaxed);
    while (seen < launched && !lane.finished_through.compare_exchange_weak(
                                  seen, launched, std::memory_order_acq_rel))
      ;
  }
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

}  // namespace parasol::runtime
