#include "runtime/kernel_command.h"

#include "backend/image_mirrors.h"
#include "backend/native/native_compiler.h"
#include "core/command_queue.h"
#include "runtime/direct_launch.h"
#include "runtime/kernel_codelets.h"
#include "runtime/trace.h"
#include "schedulers/starpu_path_cost.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cmath>
#include <functional>
#include <string>

#include "util/clock.h"
#include "util/error_name.h"
#include "util/log.h"

namespace parasol::runtime {

KernelCommand::KernelCommand(core::Kernel* kernel, core::KernelArgs args,
                             const NDRange& range, core::Device* pinned, unsigned sched_ctx)
    : TaskCommand(pinned, sched_ctx, kernel->program()->context()), kernel_(kernel),
      owned_(std::move(args)), args_(owned_), range_(range) {
  index_buffers();
}

KernelCommand::KernelCommand(core::Kernel* kernel, core::Kernel::ArgsView& view,
                             const NDRange& range, core::Device* pinned, unsigned sched_ctx)
    : TaskCommand(pinned, sched_ctx, kernel->program()->context()), kernel_(kernel),
      borrowed_(&view), range_(range) {
  view.hold();  // a record's refused launch let it go
  args_ = view.args();
  index_buffers();
}

void KernelCommand::index_buffers() {
  // Filled in place (built aside and moved in, it would cost every launch
  // a copy and a clear).
  const auto& info = kernel_->arg_info();
  for (size_t i = 0; i < args_.size(); ++i) {
    const auto& a = args_[i];
    std::size_t index = 0;  // not a buffer: unused
    if (a.kind == core::KernelArg::Kind::Buffer && a.buffer) {
      // Read-only when the kernel cannot write it: a const or __constant
      // pointer, or a buffer created read-only.
      bool read_only = (info[i].type_qualifier & CL_KERNEL_ARG_TYPE_CONST) ||
                       info[i].address == CL_KERNEL_ARG_ADDRESS_CONSTANT ||
                       (a.buffer->flags() & CL_MEM_READ_ONLY);
      index = access(*a.buffer, read_only ? STARPU_R : STARPU_RW);
    } else if (a.kind == core::KernelArg::Kind::Image) {
      index = access(*a.buffer, image_read_only(i) ? STARPU_R : STARPU_RW);
    }
    buffer_index_.push_back(index);
  }
}

bool KernelCommand::image_read_only(std::size_t index) const {
  return kernel_->arg_info()[index].access == CL_KERNEL_ARG_ACCESS_READ_ONLY;
}

namespace {

// The devices of a context queue's context that could run kernel, and
// whether one of their lanes goes without vendor events.
struct Able {
  int devices = 0;
  bool unevented = false;
};
Able able_devices(const core::Context& context, const core::Kernel& kernel) {
  Able able;
  context.any_in_rotation([&](core::Device* d) {
    if (kernel.runs_on(d)) {
      ++able.devices;
      able.unevented |= lane_goes_without_events(*d);
    }
    return false;
  });
  return able;
}

}  // namespace

bool KernelCommand::may_record(const core::CommandQueue& queue, const core::Kernel& kernel) {
  if (queue.device()) return true;
  const Able able = able_devices(*queue.context(), kernel);
  return able.devices < 2 || able.unevented;
}

bool KernelCommand::may_record_with_event(const core::CommandQueue& queue,
                                          const core::Kernel& kernel) {
  if (const core::Device* d = queue.device()) return direct_capable(*d);
  return able_devices(*queue.context(), kernel).devices < 2;
}

starpu_codelet* KernelCommand::codelet() { return kernel_codelet(kernel_->model_symbol()); }

bool KernelCommand::launch_direct(core::Event& event, std::span<core::Event* const> deps,
                                  std::span<core::Event* const> named) {
  // What may need the arguments after the vendor has them: placing the
  // command again on another device of a context queue after a
  // device-level failure (a StarPU task), and the trace.
  if (!pinned() || trace::enabled()) keep_inputs();
  return try_direct(event, deps, named);
}

void KernelCommand::keep_inputs() {
  if (!borrowed_) return;
  owned_ = borrowed_->copy();  // lets go of the view: a callback may set the arguments
  borrowed_ = nullptr;
  args_ = owned_;
}

namespace {

// policy_keeps_on() and policy_places_without_data() ask StarPU's models
// about every device: a CRC of the launch shape and a history lookup per
// device, about a third of a context-queue launch on PoCL. A device they
// name changes only as the models learn, so each enqueuing thread keeps it
// a few milliseconds (no lock), keyed by kernel, launch shape, resident
// device (null: a command without data) and scheduling context. A refusal
// is asked again every time: the command goes through StarPU then, which
// costs far more, and the models it teaches may turn the answer at once.
struct PlaceMemo {
  const core::Kernel* kernel = nullptr;
  const core::Device* resident = nullptr;
  std::uint64_t shape = 0;
  unsigned sched_ctx = 0;
  std::uint64_t until = 0;
  core::Device* chosen = nullptr;
};
constexpr std::uint64_t kPlaceMemoNs = 10'000'000;
thread_local std::array<PlaceMemo, 8> t_place_memo;  // devices named only

// The footprint's inputs (NDRange, buffer sizes) mixed cheaply: a key for
// the memo, not the footprint StarPU's saved models are keyed by.
std::uint64_t shape_key(std::span<const core::KernelArg> args, const NDRange& range) {
  std::uint64_t h = 0xcbf29ce484222325u;
  auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0x100000001b3u; };
  for (int d = 0; d < 3; ++d) {
    mix(range.global[d]);
    mix(range.local[d]);
  }
  for (const auto& a : args) {
    if (a.kind == core::KernelArg::Kind::Buffer && a.buffer) mix(a.buffer->size());
    if (a.kind == core::KernelArg::Kind::Local) mix(a.local_size);  // can_run_on() weighs it
  }
  return h;
}

}  // namespace

bool KernelCommand::policy_keeps_on(const core::Device& resident) const {
  const std::uint64_t shape = shape_key(args_, range_);
  const std::uint64_t now = now_ns();
  PlaceMemo& memo =
      t_place_memo[(shape ^ (reinterpret_cast<std::uintptr_t>(kernel_.get()) >> 4)) % t_place_memo.size()];
  if (memo.kernel == kernel_.get() && memo.resident == &resident && memo.shape == shape &&
      memo.sched_ctx == sched_ctx() && now < memo.until)
    return true;
  // The direct path bypasses StarPU: its launches teach the models nothing,
  // so the models must know this launch shape on every device first. And
  // data on one device holds the command there only if that device is not
  // far slower than another: else work that calibration left on a slow
  // device would stay there.
  const std::uint32_t fp = footprint();
  starpu_codelet* cl = kernel_codelet(kernel_->model_symbol());
  double here = NAN, best = INFINITY, best_elsewhere = INFINITY;
  for (core::Device* d : kernel_->program()->context()->devices()) {
    if (!can_run_on(*d)) continue;
    double t = schedulers::model_expected_us(cl, fp, d->worker().worker_id, sched_ctx());
    if (std::isnan(t)) {
      log::debug("kernel ", kernel_->name(), ": no model of its launch shape on ", d->label(),
                 " yet: StarPU places it");
      return false;
    }
    // A device only StarPU's path reaches pays that path on every command
    // (0 for the others).
    best = std::min(best, t + schedulers::starpu_path_us(d->worker().worker_id));
    if (d == &resident)
      here = t;
    else if (d->worker().traits.own_memory && kernel_->program()->context()->in_rotation(d))
      best_elsewhere = std::min(best_elsewhere, t);
  }
  if (std::isnan(here) || here > kResidentSlowdown * best) {
    log::debug("kernel ", kernel_->name(), ": ", resident.label(), " holds its data but takes ",
               here, " us against ", best, " us on the fastest device: StarPU places it");
    return false;
  }
  log::debug("kernel ", kernel_->name(), ": stays on ", resident.label(), " (", here,
             " us there, ", best_elsewhere, " us on the fastest other device)");
  memo = {kernel_.get(), &resident, shape, sched_ctx(), now + kPlaceMemoNs,
          const_cast<core::Device*>(&resident)};
  return true;
}

core::Device* KernelCommand::policy_places_without_data() const {
  const std::uint64_t shape = shape_key(args_, range_);
  const std::uint64_t now = now_ns();
  PlaceMemo& memo =
      t_place_memo[(shape ^ (reinterpret_cast<std::uintptr_t>(kernel_.get()) >> 4)) % t_place_memo.size()];
  if (memo.kernel == kernel_.get() && !memo.resident && memo.shape == shape &&
      memo.sched_ctx == sched_ctx() && now < memo.until)
    return memo.chosen;
  // Nothing to move: the fastest device by the models, as a time-based
  // policy would place it once calibrated (only StarPU's launches teach the
  // models, so every device must know this launch shape first). A device
  // only StarPU's path reaches pays that path on every command: if one
  // still wins, StarPU places the command.
  const std::uint32_t fp = footprint();
  starpu_codelet* cl = kernel_codelet(kernel_->model_symbol());
  core::Device* best = nullptr;
  double best_us = INFINITY;
  for (core::Device* d : kernel_->program()->context()->devices()) {
    if (!can_run_on(*d) || !kernel_->program()->context()->in_rotation(d)) continue;
    const double t = schedulers::model_expected_us(cl, fp, d->worker().worker_id, sched_ctx());
    if (std::isnan(t)) {
      log::debug("kernel ", kernel_->name(), ": no model of its launch shape on ", d->label(),
                 " yet: StarPU places it");
      return nullptr;
    }
    const double cost = t + schedulers::starpu_path_us(d->worker().worker_id);
    if (cost < best_us) {
      best_us = cost;
      best = d;
    }
  }
  if (!best || !direct_capable(*best)) return nullptr;
  log::debug("kernel ", kernel_->name(), " (no data): goes to ", best->label(), " (", best_us,
             " us there)");
  memo = {kernel_.get(), nullptr, shape, sched_ctx(), now + kPlaceMemoNs, best};
  return best;
}

bool KernelCommand::can_run_on(const core::Device& device) const {
  // A task runs on a StarPU worker of this process: another rank's device,
  // which has none, takes its launches as remote ones (runtime/rank_choice.h).
  if (device.worker().worker_id < 0) return false;
  if (const backend::native::NativeKernel* nk = kernel_->native_for(&device))
    return backend::native::local_bytes(*nk, core::local_arg_bytes(args_)) <= backend::native::kLocalMemBytes;
  return kernel_->runs_on(&device);
}

cl_int KernelCommand::execute_on_host(void* buffers[], core::Device& device) {
  const backend::native::NativeKernel* k = kernel_->native_for(&device);
  if (!k) {
    log::error("kernel ", kernel_->name(), " is not built for ", device.name());
    return CL_INVALID_PROGRAM_EXECUTABLE;
  }
  const auto native_args = native_arguments(args_, [&](std::size_t i) {
    return reinterpret_cast<std::byte*>(STARPU_VARIABLE_GET_PTR(buffers[buffer_index_[i]]));
  });
  return backend::native::run(*k, native_args, native_launch(range_));
}

namespace {

// Alike launches: same NDRange, same buffer sizes (values may differ).
std::uint32_t shape_hash(std::span<const core::KernelArg> args, const NDRange& range,
                         std::uint32_t seed) {
  std::uint32_t h = starpu_hash_crc32c_be_n(range.global.data(), sizeof range.global, seed);
  h = starpu_hash_crc32c_be_n(range.local.data(), sizeof range.local, h);
  for (const auto& a : args)
    if (a.kind == core::KernelArg::Kind::Buffer && a.buffer)
      h = starpu_hash_crc32c_be(static_cast<std::uint32_t>(a.buffer->size()), h);
  return h;
}

}  // namespace

std::uint32_t KernelCommand::footprint() const { return shape_hash(args_, range_, 0); }

std::uint32_t KernelCommand::footprint_of(std::span<const core::KernelArg> args,
                                          const NDRange& range) {
  return shape_hash(args, range, 0);
}

std::uint64_t KernelCommand::launch_key(const core::Kernel& kernel,
                                        std::span<const core::KernelArg> args,
                                        const NDRange& range) {
  auto kernel_id = static_cast<std::uint64_t>(std::hash<std::string>{}(kernel.model_symbol()));
  return (kernel_id << 32) ^ shape_hash(args, range, static_cast<std::uint32_t>(kernel_id));
}

std::size_t KernelCommand::size() const { return range_.global[0] * range_.global[1] * range_.global[2]; }

cl_int KernelCommand::execute(void* buffers[], core::Device& device, const VendorPlace& place,
                              cl_event* done) {
  // A record's refusal is not logged: the launch then takes its event,
  // whose attempt meets it again and says so once.
  const bool say = !as_record_;
  const core::Kernel::VendorLaunch vendor = kernel_->vendor_launch(&device);
  cl_kernel k = vendor.kernel;
  if (!k) {
    if (say)
      log::error("kernel ", kernel_->name(), " is not built for ", device.label(),
                 ": CL_INVALID_PROGRAM_EXECUTABLE");
    return CL_INVALID_PROGRAM_EXECUTABLE;
  }
  // Held until the windows below are released.
  backend::VendorLock lock = backend::lock_vendor(device.worker());
  std::lock_guard launching(kernel_->launch_mutex());
  backend::VendorArgValues& set_values = *vendor.values;
  // Read after the leases were pinned (DirectSlot comes after them).
  const std::uint64_t epoch = place.leased ? lease_epoch() : 0;
  // Vendor sub-buffers for Parasol sub-buffers: released once enqueued (the
  // vendor keeps what an enqueued kernel uses alive).
  std::vector<backend::VendorMem> windows;
  // The images the kernel takes, with their vendor images.
  struct Mirrored {
    backend::ImageMirrors* mirrors;
    cl_mem storage;
    std::size_t offset;
    cl_mem image;
    bool writable;
  };
  SmallVector<Mirrored, 2> mirrored;
  for (cl_uint i = 0; i < args_.size(); ++i) {
    const auto& a = args_[i];
    cl_int err = CL_SUCCESS;
    switch (a.kind) {
      case core::KernelArg::Kind::Value:
        err = set_values.set(k, i, a.bytes.size(), a.bytes.data());
        break;
      case core::KernelArg::Kind::Local:
        err = set_values.set(k, i, a.local_size, nullptr);
        break;
      case core::KernelArg::Kind::Buffer: {
        cl_mem mem = nullptr;
        std::uint64_t held = 0;  // the lease epoch mem is held under, if any
        if (a.buffer) {
          void* iface = buffers[buffer_index_[i]];
          mem = reinterpret_cast<cl_mem>(STARPU_VARIABLE_GET_DEV_HANDLE(iface));
          held = epoch;
          size_t offset = STARPU_VARIABLE_GET_OFFSET(iface) + a.buffer->origin();
          if (offset != 0 || a.buffer->size() != a.buffer->storage().size()) {
            cl_buffer_region region{offset, a.buffer->size()};
            mem = clCreateSubBuffer(mem, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region,
                                    &err);
            if (err != CL_SUCCESS) break;
            windows.emplace_back(mem);
            held = 0;  // a window of this launch's own
          }
        }
        err = set_values.set_buffer(k, i, mem, held);
        break;
      }
      case core::KernelArg::Kind::Image: {
        // The device's vendor image, filled from the device's copy before
        // the kernel (and that copy from it after, if it may write).
        void* iface = buffers[buffer_index_[i]];
        Mirrored m{&a.buffer->mirrors(),
                   reinterpret_cast<cl_mem>(STARPU_VARIABLE_GET_DEV_HANDLE(iface)),
                   STARPU_VARIABLE_GET_OFFSET(iface) + a.buffer->origin(), nullptr,
                   !image_read_only(i)};
        m.image = m.mirrors->on(device.worker(), err);
        if (err == CL_SUCCESS) err = set_values.set(k, i, sizeof m.image, &m.image);
        mirrored.push_back(m);
        break;
      }
      case core::KernelArg::Kind::Sampler: {
        cl_sampler sampler = a.sampler->on(device.worker(), err);
        if (err == CL_SUCCESS) err = set_values.set(k, i, sizeof sampler, &sampler);
        break;
      }
      case core::KernelArg::Kind::Unset:
        err = CL_INVALID_KERNEL_ARGS;
        break;
    }
    if (err != CL_SUCCESS) {
      if (say)
        log::error("kernel ", kernel_->name(), " on ", device.label(), ": argument ", i,
                   " refused by the vendor: ", error_name(err), " (", err, ")");
      return err;
    }
  }
  // Images' fills, the kernel, images' drains, in order on the launch's
  // in-order vendor queue: the first waits for the launch's waits, the last
  // gives its event.
  std::span<const cl_event> waits = place.waits;
  cl_int err = CL_SUCCESS;
  for (const Mirrored& m : mirrored) {
    err = m.mirrors->fill(place.queue, m.storage, m.offset, m.image, waits, nullptr);
    waits = {};
    if (err != CL_SUCCESS) break;
  }
  const Mirrored* last_drain = nullptr;
  for (const Mirrored& m : mirrored)
    if (m.writable) last_drain = &m;
  bool local_given = range_.local[0] != 0;
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(place.queue, k, range_.work_dim, range_.offset.data(),
                                 range_.global.data(), local_given ? range_.local.data() : nullptr,
                                 static_cast<cl_uint>(waits.size()),
                                 waits.empty() ? nullptr : waits.data(),
                                 last_drain ? nullptr : done);
  for (const Mirrored& m : mirrored) {
    if (err != CL_SUCCESS) break;
    if (m.writable)
      err = m.mirrors->drain(place.queue, m.image, m.storage, m.offset,
                             &m == last_drain ? done : nullptr);
  }
  // The vendor has the arguments: the kernel's may be set again (a record
  // then goes on to its hand-over, which may call the application back).
  if (borrowed_) {
    borrowed_->release();
    borrowed_ = nullptr;
    args_ = {};  // the kernel's, free to change now
  }
  if (err != CL_SUCCESS) {
    if (say)
      log::error("kernel ", kernel_->name(), " on ", device.label(),
                 ": the vendor refused the launch: ", error_name(err), " (", err, ")");
    if (done) *done = nullptr;
    return err;
  }
  return CL_COMPLETE;
}

}  // namespace parasol::runtime
