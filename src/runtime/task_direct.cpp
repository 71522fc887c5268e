// A task command's ways around StarPU: where it may go directly (its
// device queue's device, or for a context queue the device holding all of
// its data, under a policy that keeps it there), how it goes there with its
// event, as a record without one, or as an event without a command object,
// and how each of those ends.
#include <optional>

#include "core/context.h"
#include "runtime/data_leases.h"
#include "runtime/device_stats.h"
#include "runtime/direct_launch.h"
#include "runtime/task_command.h"
#include "runtime/trace.h"
#include "util/clock.h"
#include "util/error_name.h"
#include "util/log.h"

namespace parasol::runtime {

bool TaskCommand::holds_output(const core::Device& device) const {
  const unsigned node = device.worker().memory_node;
  for (std::size_t i = 0; i < handles_.size(); ++i)
    if ((modes_[i] & STARPU_W) && starpu_data_is_on_node(handles_[i], node)) return true;
  return false;
}

core::Device* TaskCommand::resident_device() const {
  if (!rotation_) return nullptr;
  return sole_resident(*rotation_, handles_, [this](const core::Device& d) { return can_run_on(d); });
}

core::Device* TaskCommand::direct_target() const {
  core::Device* device = nullptr;
  if (pinned_)
    device = pinned_;
  else if (handles_.empty())
    device = policy_places_without_data();
  else if ((device = resident_device()) && !policy_keeps_on(*device))
    device = nullptr;
  if (!device || !direct_capable(*device) || !can_run_on(*device) || !fits_on(*device))
    return nullptr;
  return device;
}

bool TaskCommand::try_direct(core::Event& event, std::span<core::Event* const> deps,
                             std::span<core::Event* const> named) {
  if (!direct_path_enabled()) return false;
  core::Device* device = direct_target();
  if (!device || !dependencies_allow(*device, deps)) return false;
  LeasePins pins;
  if (!DataLeases::instance().pin(*device, handles_, modes_, false, pins)) {
    before_blocking();
    if (!pin_direct_leases(*device, handles_, modes_, pins)) return false;
  }
  event_ = &event;
  event.begin_direct(device, deps, named);
  const LaneChoice lane(event, deps);
  log::debug("command '", name(), "' (event ", event.id(), ") goes directly to ", device->label(),
             ", lane ", lane.lane(), ", behind ", lane.waits().size(),
             " events of its other lanes");
  count_direct(device->worker(), lane.lane(), DirectPath::WithCommand, lane.waits().size());
  started_ = now_ns();
  DirectSlot slot(event, lane);
  status_ = execute(pins.interfaces(), *device, slot.place(), slot.event_out(done_));
  if (status_ != CL_COMPLETE || (slot.wants_event() && !done_)) {
    // The vendor refused it (the event fails with its error), or there was
    // nothing to enqueue (a migration: the leases brought the data).
    if (status_ != CL_COMPLETE) count_path_event(device->worker(), PathEvent::VendorRefusal);
    slot.release();
    pins.unused();
    on_done(this);
    return true;
  }
  hand_over_direct(slot, event, pins, done_, &TaskCommand::on_direct_done,
                   this);  // this may be gone after
  return true;
}

bool TaskCommand::placeable_elsewhere(const core::Device* device) const {
  bool seen_other = false;
  return rotation_->any_in_rotation([&](core::Device* d) {
    if (d == device || !can_run_on(*d)) return false;
    if (device || seen_other) return true;
    seen_other = true;
    return false;
  });
}

core::Device* TaskCommand::try_record(core::Event* previous, const core::Device* tail,
                                      unsigned home) {
  if (!direct_path_enabled() || trace::enabled()) return nullptr;
  // On a context queue, only where its event could not serve to place it
  // again after a device-level failure: no two devices of the context could
  // run it, or its device's lane goes without vendor events, where a
  // failure while running reaches it through a later event, and then not
  // even an event would place it again (it may have run: on_done()). Not
  // the lane's periodic proof, which has an event of its own (below).
  const bool elsewhere = !pinned_ && placeable_elsewhere(nullptr);
  core::Device* device = direct_target();
  if (!device || (tail && tail != device)) return nullptr;
  if (elsewhere && !lane_goes_without_events(*device)) return nullptr;
  const std::optional<unsigned> lane = record_lane(*device, home, previous);
  if (!lane) return nullptr;
  LeasePins pins;
  if (!DataLeases::instance().pin(*device, handles_, modes_, false, pins)) return nullptr;
  const std::uint64_t launched = now_ns();
  DirectSlot slot(*device, *lane);
  if (elsewhere && slot.wants_event()) {
    slot.release();
    return nullptr;
  }
  cl_event done = nullptr;
  // Refused, or nothing enqueued: the event path does it again and says so.
  if (execute(pins.interfaces(), *device, slot.place(), slot.event_out(done)) != CL_COMPLETE ||
      (slot.wants_event() && !done)) {
    slot.release();
    return nullptr;
  }
  log::debug("command '", name(), "' (no event) goes directly to ", device->label(), ", lane ",
             *lane, ",");
  count_direct(device->worker(), *lane, DirectPath::Record);
  hand_over_record(slot, pins, done, &TaskCommand::on_record_done, device, launched,
                   RecordEnd::Always);
  return device;
}

bool TaskCommand::try_record_with_event(core::Event& event, std::span<core::Event* const> deps,
                                        std::span<core::Event* const> named,
                                        const core::Device* tail) {
  if (!direct_path_enabled() || trace::enabled()) return false;
  core::Device* device = direct_target();
  if (!device || (tail && tail != device) || (!pinned_ && placeable_elsewhere(device)) ||
      !dependencies_allow(*device, deps))
    return false;
  LeasePins pins;
  if (!DataLeases::instance().pin(*device, handles_, modes_, false, pins)) return false;
  event.begin_direct(device, deps, named, /*shared=*/false);  // an enqueue's new event
  const LaneChoice lane(event, deps);
  DirectSlot slot(event, lane);
  cl_event done = nullptr;
  const cl_int status = execute(pins.interfaces(), *device, slot.place(), slot.event_out(done));
  if (status != CL_COMPLETE || (slot.wants_event() && !done)) {
    slot.release();  // refused (execute() said why): the event fails with its error
    if (status != CL_COMPLETE) count_path_event(device->worker(), PathEvent::VendorRefusal);
    pins.unused();
    event.complete(status);
    return true;
  }
  log::debug("command '", name(), "' (event ", event.id(), ", no command kept) goes directly to ",
             device->label(), ", lane ", lane.lane(), ", behind ", lane.waits().size(),
             " events of its other lanes");
  count_direct(device->worker(), lane.lane(), DirectPath::WithoutCommand, lane.waits().size());
  hand_over_direct(slot, event, pins, done, &TaskCommand::on_event_record_done, &event,
                   DoneHolder::Event);
  return true;
}

void TaskCommand::on_event_record_done(void* self, cl_int proof_status, std::uint64_t) {
  auto& event = *static_cast<core::Event*>(self);
  const cl_int status = event_record_status(event, proof_status, "command");
  // From its submission, which its enqueuing thread wrote before the hand-
  // over: its start may be written now by the waiter of another lane (the
  // end of a command it waited for), and may still be 0.
  record_command(event.executed_on()->worker().worker_id, now_ns() - event.time_submit());
  event.complete(status);
}

void TaskCommand::on_record_done(void* device, cl_int proof_status, std::uint64_t launched) {
  const auto& d = *static_cast<const core::Device*>(device);
  if (proof_status < 0) {
    log::error("a command without an event on ", d.label(), " failed in the vendor: ",
               error_name(proof_status), " (", proof_status,
               "); what it wrote is not to be trusted");
    count_path_event(d.worker(), PathEvent::VendorFailure);
  }
  record_command(d.worker().worker_id, now_ns() - launched);
}

void TaskCommand::on_direct_done(void* self, cl_int proof_status, std::uint64_t) {
  auto* cmd = static_cast<TaskCommand*>(self);
  // Its own vendor event's status, or the later event's that proved it done
  // (on_done() reads the former again, and says so).
  if (proof_status < 0)
    count_path_event(cmd->event_->executed_on()->worker(), PathEvent::VendorFailure);
  if (!cmd->done_ && proof_status < 0) {
    const core::Device* d = cmd->event_->executed_on();
    log::error("command '", cmd->name(), "' (event ", cmd->event_->id(), ") on ", d->label(),
               " had no vendor event of its own, and the later one "
               "proving it done ended with ", error_name(proof_status), " (", proof_status,
               "): it is reported failed too");
    cmd->status_ = proof_status;
    cmd->status_unknown_ = true;
  }
  on_done(self);
}

}  // namespace parasol::runtime
