#include "runtime/host_command.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "backend/vendor_handle.h"
#include "core/command_queue.h"
#include "core/device.h"
#include "runtime/data_leases.h"
#include "runtime/device_stats.h"
#include "runtime/direct_launch.h"
#include "runtime/trace.h"
#include "util/error_name.h"
#include "util/log.h"
#include "util/tsan_handover.h"

namespace parasol::runtime {

HostCommand::HostCommand(HostAccesses accesses, std::function<cl_int()> body,
                         std::size_t bytes, std::optional<VendorTransfer> vendor_form)
    : accesses_(std::move(accesses)), body_(std::move(body)), bytes_(bytes),
      vendor_form_(vendor_form) {
  for (const HostAccess& a : accesses_) buffers_.push_back(core::Ref<core::Buffer>(a.buffer));
  if (vendor_form_ && vendor_form_->kind == VendorTransfer::Kind::Fill) {
    const auto* p = static_cast<const std::byte*>(vendor_form_->host);
    for (std::size_t i = 0; i < vendor_form_->pattern_size; ++i) pattern_.push_back(p[i]);
    vendor_form_->host = pattern_.data();
  }
  if (vendor_form_ && vendor_form_->rect) {
    rect_ = *vendor_form_->rect;
    vendor_form_->rect = &*rect_;
  }
}

void HostCommand::plan_acquires() {
  // One acquire per StarPU handle (sub-buffers share their parent's), in
  // address order so two commands never wait on each other's half.
  for (const auto& a : accesses_) {
    starpu_data_handle_t h = a.buffer->storage().handle();
    auto it = std::find_if(acquires_.begin(), acquires_.end(),
                           [h](const Acquire& x) { return x.handle == h; });
    if (it == acquires_.end())
      acquires_.push_back({h, a.mode});
    else
      it->mode = static_cast<starpu_data_access_mode>(it->mode | a.mode);
  }
  std::sort(acquires_.begin(), acquires_.end(),
            [](const Acquire& a, const Acquire& b) { return a.handle < b.handle; });
}

void HostCommand::launch_task(core::Event& event) {
  event_ = &event;
  plan_acquires();
  SmallVector<starpu_data_handle_t, 2> handles;
  SmallVector<starpu_data_access_mode, 2> modes;
  for (const Acquire& a : acquires_) {
    handles.push_back(a.handle);
    modes.push_back(a.mode);
  }
  claim_ = DataLeases::instance().claim(handles, modes);
  // Only a device holding the data drives its way to main RAM.
  demand_ = backend::WorkerDemand::raise(backend::workers_holding(handles));
  acquire_next();
}

void HostCommand::acquire_next() {
  if (next_ < acquires_.size()) {
    const Acquire a = acquires_[next_++];
    // Its callback may run on a StarPU thread, reached through StarPU's own
    // locks (util/tsan_handover.h): nothing of this object is read after.
    tsan::release(this);
    starpu_data_acquire_on_node_cb(a.handle, STARPU_MAIN_RAM, a.mode, &HostCommand::on_acquired,
                                   this);
    return;
  }
  event_->set_running();
  cl_int status = body_ ? body_() : copy_in_main_ram();
  for (const Acquire& a : acquires_) starpu_data_release_on_node(a.handle, STARPU_MAIN_RAM);
  claim_.release();
  demand_.drop();
  if (trace::enabled()) trace::record(*event_, nullptr, bytes_, status);
  event_->complete(status);  // may destroy this command: nothing after
}

namespace {

constexpr const char* kWhat[] = {"read", "write", "copy", "fill",
                                 "read (rect)", "write (rect)", "copy (rect)"};

bool reads_to_host(VendorTransfer::Kind k) {
  return k == VendorTransfer::Kind::Read || k == VendorTransfer::Kind::ReadRect;
}
bool writes_from_host(VendorTransfer::Kind k) {
  return k == VendorTransfer::Kind::Write || k == VendorTransfer::Kind::WriteRect;
}

// Bytes between the host and the device: a copy or fill moves none.
void count_transfer(const core::Device& device, const VendorTransfer& t) {
  if (reads_to_host(t.kind) || writes_from_host(t.kind))
    record_host_transfer(device.worker(), t.size, writes_from_host(t.kind));
}

// A box in a buffer's window that starts `base` bytes into the vendor's
// buffer: the vendor computes origin[2] * slice + origin[1] * row +
// origin[0], so the base goes into origin[0].
std::array<std::size_t, 3> vendor_origin(const RectRegion& r, std::size_t base) {
  return {r.origin[0] + base, r.origin[1], r.origin[2]};
}

}  // namespace

DirectTransfer::LeaseKeys DirectTransfer::lease_keys() const {
  LeaseKeys keys;
  for (const HostAccess& a : accesses) {
    const starpu_data_handle_t h = a.buffer->storage().handle();
    // A copy within one buffer (or between sub-buffers of one): one lease,
    // both modes (lease_index()).
    if (keys.count > 0 && keys.handle_at[0] == h) {
      keys.mode_at[0] = static_cast<starpu_data_access_mode>(keys.mode_at[0] | a.mode);
      continue;
    }
    keys.handle_at[keys.count] = h;
    keys.mode_at[keys.count++] = a.mode;  // W for a whole overwrite: its lease brings no data
  }
  return keys;
}

std::size_t DirectTransfer::lease_index(std::size_t i) const {
  return i > 0 && accesses[i].buffer->storage().handle() == accesses[0].buffer->storage().handle()
             ? 0
             : i;
}

core::Device* DirectTransfer::device(const core::CommandQueue& queue, const LeaseKeys& keys,
                                     bool may_take, LeasePins& pins, bool& take) const {
  const auto handles = keys.handles();
  // Whichever device holds the data does the transfer: the host side of a
  // read or write does not care which device's copy it meets.
  auto* device =
      const_cast<core::Device*>(DataLeases::instance().pin_holder(handles, keys.modes(), pins));
  take = !device;
  if (take && may_take && !writes_application_memory()) device = lease_target(queue, handles[0]);
  if (!device || !direct_capable(*device)) return nullptr;
  return device;
}

bool HostCommand::launch_direct(core::Event& event, std::span<core::Event* const> deps,
                                std::span<core::Event* const> named) {
  if (!vendor_form_ || !direct_path_enabled()) return false;
  const DirectTransfer transfer = direct();
  const DirectTransfer::LeaseKeys keys = transfer.lease_keys();
  LeasePins pins;  // unpinned at return unless handed over
  bool take = false;
  core::Device* device = transfer.device(*event.queue(), keys, true, pins, take);
  if (!device || !dependencies_allow(*device, deps)) return false;
  if (take && !pin_direct_leases(*device, keys.handles(), keys.modes(), pins)) return false;
  event_ = &event;
  event.begin_direct(device, deps, named);
  const char* what = kWhat[static_cast<int>(vendor_form_->kind)];
  const LaneChoice lane(event, deps);
  log::debug(what, " (event ", event.id(), ") goes directly to ", device->label(), ", lane ",
             lane.lane(), ", behind ", lane.waits().size(), " events of its other lanes");
  count_direct(device->worker(), lane.lane(), DirectPath::WithCommand, lane.waits().size());
  DirectSlot slot(event, lane);
  if (cl_int err = transfer.enqueue(pins, slot.place(), slot.event_out(done_)); err != CL_SUCCESS) {
    slot.release();
    count_path_event(device->worker(), PathEvent::VendorRefusal);
    log::error(what, " of buffer data on ", device->label(),
               " refused by the vendor: ", error_name(err), " (", err, ")");
    pins.unused();
    done_ = nullptr;
    if (trace::enabled()) trace::record(event, nullptr, bytes_, err);
    event.complete(err);  // may destroy this command
    return true;
  }
  hand_over_direct(slot, event, pins, done_, &HostCommand::on_vendor_done,
                   this);  // this may be gone after
  return true;
}

namespace {
void on_record_done(void* device, cl_int status, std::uint64_t) {
  if (status < 0) {
    const auto& d = *static_cast<core::Device*>(device);
    log::error("a transfer without an event on ", d.label(), " failed in the vendor: ",
               error_name(status), " (", status, "); its buffer's contents are not to be trusted");
    count_path_event(d.worker(), PathEvent::VendorFailure);
  }
}
}  // namespace

core::Device* DirectTransfer::record(const core::CommandQueue& queue, core::Event* previous,
                                     const core::Device* tail, bool blocking,
                                     LaneMark* finished) const {
  // Traces are of events.
  if (!direct_path_enabled() || trace::enabled() || form.owned_host) return nullptr;
  LeasePins pins;  // unpinned at return unless handed over
  bool take = false;
  core::Device* target = device(queue, lease_keys(), false, pins, take);
  if (!target || (tail && target != tail)) return nullptr;
  const std::optional<unsigned> lane = record_lane(*target, queue.home_lane(), previous);
  if (!lane) return nullptr;
  DirectSlot slot(*target, *lane);
  cl_event done = nullptr;
  // A blocking call gives its event, whose status says whether it failed
  // while running (a vendor may return success from the call all the same).
  cl_event own = nullptr;
  const cl_int err = enqueue(pins, slot.place(), blocking ? &own : slot.event_out(done), blocking);
  const bool failed =
      err != CL_SUCCESS ||
      (blocking && (!own || backend::vendor_event_status(own, CL_COMPLETE) != CL_COMPLETE));
  if (failed) {
    // With an event, the same attempt (run again, if it ran) says why and
    // fails that event.
    slot.release();
    if (own) clReleaseEvent(own);
    return nullptr;
  }
  if (own) {
    if (slot.wants_event())
      done = own;  // the lane's proof
    else
      clReleaseEvent(own);
  }
  log::debug(kWhat[static_cast<int>(form.kind)], " (no event) goes directly to ",
             target->label(), ", lane ", *lane, ",");
  count_direct(target->worker(), *lane, DirectPath::Record);
  // Counted now: clFinish may return before the record's end has run.
  count_transfer(*target, form);
  hand_over_record(slot, pins, done, &on_record_done, target, 0,
                   blocking ? RecordEnd::Finished : RecordEnd::OwnFailure, finished);
  return target;
}

bool DirectTransfer::record_with_event(core::Event& event, std::span<core::Event* const> deps,
                                       std::span<core::Event* const> named,
                                       const core::Device* tail, bool blocking) const {
  if (!direct_path_enabled() || trace::enabled() || form.owned_host) return false;
  LeasePins pins;  // unpinned at return unless handed over
  bool take = false;
  core::Device* device = this->device(*event.queue(), lease_keys(), false, pins, take);
  if (!device || (tail && tail != device) || !dependencies_allow(*device, deps)) return false;
  event.begin_direct(device, deps, named, /*shared=*/false);  // an enqueue's new event
  const char* what = kWhat[static_cast<int>(form.kind)];
  const LaneChoice lane(event, deps);
  DirectSlot slot(event, lane, blocking);
  cl_event done = nullptr;
  const bool in_vendor = blocking && blocks_in_vendor();
  const cl_int err = enqueue(pins, slot.place(), slot.event_out(done), in_vendor);
  if (err != CL_SUCCESS || (slot.wants_event() && !done)) {
    slot.release();
    if (done) clReleaseEvent(done);  // a blocking call that failed while running
    // Without the event it was asked for, nothing could tell when the
    // transfer is done: failed rather than trusted.
    const cl_int status = err != CL_SUCCESS ? err : CL_OUT_OF_RESOURCES;
    log::error(what, " of buffer data on ", device->label(),
               err != CL_SUCCESS ? " refused by the vendor: " : " returned no vendor event: ",
               error_name(status), " (", status, ")");
    count_path_event(device->worker(), PathEvent::VendorRefusal);
    pins.unused();
    event.complete(status);
    return true;
  }
  log::debug(what, " (event ", event.id(), ", no command kept) goes directly to ",
             device->label(), ", lane ", lane.lane(), ", behind ", lane.waits().size(),
             " events of its other lanes");
  count_direct(device->worker(), lane.lane(), DirectPath::WithoutCommand, lane.waits().size());
  // Counted now, as a record's: its end has no form to count.
  count_transfer(*device, form);
  hand_over_direct(slot, event, pins, done, &DirectTransfer::on_event_record_done, &event,
                   DoneHolder::Event);
  return true;
}

void DirectTransfer::on_event_record_done(void* self, cl_int proof_status, std::uint64_t) {
  auto& event = *static_cast<core::Event*>(self);
  event.complete(event_record_status(event, proof_status, "transfer"));
}

cl_int DirectTransfer::enqueue(const LeasePins& pins, const VendorPlace& at, cl_event* done,
                               bool blocking) const {
  // The vendor's buffer and the window's offset in it, for the i-th access.
  auto place = [&](std::size_t i, std::size_t offset) {
    void* iface = pins.interface(lease_index(i));
    return std::pair{reinterpret_cast<cl_mem>(STARPU_VARIABLE_GET_DEV_HANDLE(iface)),
                     STARPU_VARIABLE_GET_OFFSET(iface) + accesses[i].buffer->origin() + offset};
  };
  cl_command_queue q = at.queue;
  const auto n = static_cast<cl_uint>(at.waits.size());
  const cl_event* waits = n ? at.waits.data() : nullptr;
  const VendorTransfer& t = form;
  auto [mem, offset] = place(0, t.offset);
  switch (t.kind) {
    case VendorTransfer::Kind::Read:
      return clEnqueueReadBuffer(q, mem, blocking, offset, t.size, t.host, n, waits, done);
    case VendorTransfer::Kind::Write:
      return clEnqueueWriteBuffer(q, mem, blocking, offset, t.size, t.host, n, waits, done);
    case VendorTransfer::Kind::Copy: {
      auto [dst, dst_offset] = place(1, t.dst_offset);
      return clEnqueueCopyBuffer(q, mem, dst, offset, dst_offset, t.size, n, waits, done);
    }
    case VendorTransfer::Kind::Fill:
      return clEnqueueFillBuffer(q, mem, t.host, t.pattern_size, offset, t.size, n, waits, done);
    case VendorTransfer::Kind::ReadRect:
    case VendorTransfer::Kind::WriteRect: {
      const VendorRect& r = *t.rect;
      const auto at = vendor_origin(r.buffer, offset);
      if (t.kind == VendorTransfer::Kind::ReadRect)
        return clEnqueueReadBufferRect(q, mem, blocking, at.data(), r.other.origin, r.region,
                                       r.buffer.row_pitch, r.buffer.slice_pitch,
                                       r.other.row_pitch, r.other.slice_pitch, t.host, n, waits,
                                       done);
      return clEnqueueWriteBufferRect(q, mem, blocking, at.data(), r.other.origin, r.region,
                                      r.buffer.row_pitch, r.buffer.slice_pitch,
                                      r.other.row_pitch, r.other.slice_pitch, t.host, n, waits,
                                      done);
    }
    case VendorTransfer::Kind::CopyRect: {
      const VendorRect& r = *t.rect;
      auto [dst, dst_base] = place(1, 0);
      const auto from = vendor_origin(r.buffer, offset);
      const auto to = vendor_origin(r.other, dst_base);
      return clEnqueueCopyBufferRect(q, mem, dst, from.data(), to.data(), r.region,
                                     r.buffer.row_pitch, r.buffer.slice_pitch, r.other.row_pitch,
                                     r.other.slice_pitch, n, waits, done);
    }
  }
  return CL_INVALID_OPERATION;
}

// Where a command that no lease covers goes on the direct path. A write or
// copy goes to the queue's device or, on a context queue under a
// data-aware policy, to the one device the data it reads or overwrites is
// valid on (where that policy keeps its commands): its result is left
// where the next kernel runs, as by the vendor's own command. (The StarPU
// path works in main RAM, and StarPU moves the result later: a second move
// before the next kernel can start.) A read goes to a device only where
// main RAM has no valid copy and the device has one: taking a lease must
// not move data.
bool DirectTransfer::writes_application_memory() const {
  for (const HostAccess& a : accesses) {
    if (!(a.mode & STARPU_W)) continue;
    const core::Buffer* root = a.buffer;
    while (root->parent()) root = root->parent();
    if (root->flags() & CL_MEM_USE_HOST_PTR) return true;
  }
  return false;
}

core::Device* DirectTransfer::lease_target(const core::CommandQueue& queue,
                                           starpu_data_handle_t from) const {
  const bool reading = reads_to_host(form.kind);
  if (reading && starpu_data_is_on_node(from, STARPU_MAIN_RAM)) return nullptr;
  if (core::Device* d = queue.device())
    return !reading || starpu_data_is_on_node(from, d->worker().memory_node) ? d : nullptr;
  return sole_resident(*queue.context(), {&from, 1}, [](const core::Device&) { return true; });
}

void HostCommand::on_vendor_done(void* self, cl_int status, std::uint64_t) {
  auto* cmd = static_cast<HostCommand*>(self);
  if (cmd->done_) clReleaseEvent(cmd->done_);
  const core::Device& device = *cmd->event_->executed_on();
  if (status < 0) {
    log::error("transfer of event ", cmd->event_->id(), " failed in the vendor: ", error_name(status),
               " (", status, ")");
    count_path_event(device.worker(), PathEvent::VendorFailure);
  } else {
    count_transfer(device, *cmd->vendor_form_);
  }
  if (trace::enabled()) trace::record(*cmd->event_, nullptr, cmd->bytes_, status);
  cmd->event_->complete(status < 0 ? status : CL_COMPLETE);  // may destroy cmd
}

cl_int HostCommand::copy_in_main_ram() const {
  const VendorTransfer& t = *vendor_form_;
  std::byte* first = accesses_[0].buffer->host_bytes();
  switch (t.kind) {
    case VendorTransfer::Kind::Read:
      if (t.host != first + t.offset) std::memcpy(t.host, first + t.offset, t.size);  // else mapped in place
      break;
    case VendorTransfer::Kind::Write:
      std::memcpy(first + t.offset, t.host, t.size);
      break;
    case VendorTransfer::Kind::Copy:
      std::memmove(accesses_[1].buffer->host_bytes() + t.dst_offset, first + t.offset, t.size);
      break;
    case VendorTransfer::Kind::Fill:
      for (std::size_t i = 0; i < t.size; i += t.pattern_size)
        std::memcpy(first + t.offset + i, t.host, t.pattern_size);
      break;
    case VendorTransfer::Kind::ReadRect:
      copy_rect(static_cast<std::byte*>(t.host), t.rect->other, first, t.rect->buffer,
                t.rect->region);
      break;
    case VendorTransfer::Kind::WriteRect:
      copy_rect(first, t.rect->buffer, static_cast<const std::byte*>(t.host), t.rect->other,
                t.rect->region);
      break;
    case VendorTransfer::Kind::CopyRect:
      copy_rect(accesses_[1].buffer->host_bytes(), t.rect->other, first, t.rect->buffer,
                t.rect->region);
      break;
  }
  return CL_COMPLETE;
}

void HostCommand::on_acquired(void* self) {
  tsan::acquire(self);
  auto* cmd = static_cast<HostCommand*>(self);
  cmd->acquire_next();
}

void copy_rect(std::byte* dst, const RectRegion& d, const std::byte* src, const RectRegion& s,
               const std::size_t region[3]) {
  for (std::size_t z = 0; z < region[2]; ++z)
    for (std::size_t y = 0; y < region[1]; ++y) {
      std::byte* to = dst + (d.origin[2] + z) * d.slice_pitch + (d.origin[1] + y) * d.row_pitch +
                      d.origin[0];
      const std::byte* from = src + (s.origin[2] + z) * s.slice_pitch +
                              (s.origin[1] + y) * s.row_pitch + s.origin[0];
      std::memmove(to, from, region[0]);
    }
}

}  // namespace parasol::runtime
