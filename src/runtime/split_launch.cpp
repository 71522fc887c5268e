#include "runtime/split_launch.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "backend/deferred_release.h"
#include "backend/native/access_ranges.h"
#include "backend/vendor_lock.h"
#include "backend/worker_parking.h"
#include "core/device.h"
#include "runtime/command.h"
#include "runtime/data_leases.h"
#include "runtime/device_stats.h"
#include "runtime/kernel_codelets.h"
#include "runtime/submit.h"
#include "runtime/trace.h"
#include "schedulers/calibration_guard.h"
#include "schedulers/split_shares.h"
#include "util/clock.h"
#include "util/error_name.h"
#include "util/log.h"

namespace parasol::runtime {
namespace {

using backend::native::Access;
using backend::native::BlockBytes;
using backend::native::KernelRanges;
using backend::native::RangeLaunch;

// [lo, hi) of a buffer's storage.
struct Span {
  std::size_t lo = 0, hi = 0;
  bool empty() const { return lo >= hi; }
  std::size_t size() const { return hi - lo; }
};

// What one device does: its block of groups and, per buffer argument, the
// bytes of the storage it reads and writes.
struct Part {
  core::Device* device;
  std::size_t g0, g1;
  std::vector<Span> reads, writes;  // per argument (empty for non-buffers)
};

// A block's bytes of argument a, clamped to the argument's window and made
// storage offsets.
Span storage_span(const BlockBytes& b, const core::Buffer& buffer) {
  const auto size = static_cast<std::int64_t>(buffer.size());
  std::int64_t lo = b.whole ? 0 : std::clamp<std::int64_t>(b.lo, 0, size);
  std::int64_t hi = b.whole ? size : std::clamp<std::int64_t>(b.hi, 0, size);
  if (hi < lo) hi = lo;
  return {buffer.origin() + static_cast<std::size_t>(lo), buffer.origin() + static_cast<std::size_t>(hi)};
}

bool overlap(const Span& a, const Span& b) { return !a.empty() && !b.empty() && a.lo < b.hi && b.lo < a.hi; }

// One vendor in-order queue per device for the parts of split launches,
// apart from StarPU's and the direct path's lanes (their order is theirs).
// Made on first use, under the vendor's lock; kept for the process.
cl_command_queue part_queue(const backend::VendorWorker& worker, cl_int& err) {
  static std::mutex mutex;
  static std::vector<std::pair<int, cl_command_queue>> queues;  // never released: used to exit
  std::lock_guard lock(mutex);
  for (const auto& [id, q] : queues)
    if (id == worker.worker_id) {
      err = CL_SUCCESS;
      return q;
    }
  cl_command_queue q =
      clCreateCommandQueue(worker.context, worker.device, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) return nullptr;
  queues.emplace_back(worker.worker_id, q);
  return q;
}

class SplitLaunch final : public Command {
 public:
  SplitLaunch(core::Kernel& kernel, core::KernelArgs args, const NDRange& range, unsigned dim,
              std::vector<Part> parts, std::uint64_t key)
      : kernel_(&kernel), args_(std::move(args)), range_(range), dim_(dim),
        parts_(std::move(parts)), key_(key) {}

 private:
  void launch_task(core::Event& event) override {
    event_ = &event;
    // What the event tells of the parts, before it can complete.
    auto info = std::make_unique<core::Event::SplitParts>();
    core::Device* largest = parts_.front().device;
    for (const Part& p : parts_) {
      info->devices.push_back(p.device);
      info->groups.push_back(p.g1 - p.g0);
      if (p.g1 - p.g0 > largest_groups_) {
        largest_groups_ = p.g1 - p.g0;
        largest = p.device;
      }
    }
    event.set_executed_on(largest);
    event.set_split_parts(std::move(info));
    backend::defer_split_launch([this] { run(); });
  }

  struct Acquire {
    starpu_data_handle_t handle;
    starpu_data_access_mode mode;
  };
  // One acquisition per StarPU handle (sub-buffers share their parent's),
  // read-write where a part writes it, in address order.
  std::vector<Acquire> acquisitions() const {
    std::vector<Acquire> out;
    for (std::size_t i = 0; i < args_.size(); ++i) {
      const core::KernelArg& a = args_[i];
      if (a.kind != core::KernelArg::Kind::Buffer || !a.buffer) continue;
      bool written = false;
      for (const Part& p : parts_) written |= !p.writes[i].empty();
      const starpu_data_handle_t h = a.buffer->storage().handle();
      const starpu_data_access_mode m = written ? STARPU_RW : STARPU_R;
      auto it = std::find_if(out.begin(), out.end(), [h](const Acquire& x) { return x.handle == h; });
      if (it == out.end())
        out.push_back({h, m});
      else
        it->mode = static_cast<starpu_data_access_mode>(it->mode | m);
    }
    std::sort(out.begin(), out.end(), [](const Acquire& a, const Acquire& b) { return a.handle < b.handle; });
    return out;
  }

  // The part's block as a launch of its own.
  NDRange block(const Part& p) const {
    NDRange r = range_;
    r.offset[dim_] = range_.offset[dim_] + p.g0 * range_.local[dim_];
    r.global[dim_] = (p.g1 - p.g0) * range_.local[dim_];
    return r;
  }

  // What a vendor part left running: its commands' events (in order), and
  // what it moved.
  struct Running {
    std::vector<cl_event> events;
    std::size_t bytes_in = 0, bytes_out = 0;
    cl_int status = CL_SUCCESS;
    std::uint64_t host_start = 0;
  };

  Running start_vendor(const Part& p) {
    Running run;
    run.host_start = now_ns();
    const backend::VendorWorker& w = p.device->worker();
    const core::Kernel::VendorLaunch vendor = kernel_->vendor_launch(p.device);
    backend::VendorLock lock = backend::lock_vendor(w);
    cl_int err = CL_SUCCESS;
    cl_command_queue q = part_queue(w, err);
    if (!q) {
      run.status = err;
      return run;
    }
    std::vector<backend::VendorMem> windows;
    auto keep = [&](cl_event e) { run.events.push_back(e); };
    // In: every byte the block reads or writes (a written range's gaps keep
    // what main RAM holds).
    std::vector<cl_mem> mems(args_.size(), nullptr), copies(args_.size(), nullptr);
    for (std::size_t i = 0; i < args_.size() && err == CL_SUCCESS; ++i) {
      const core::KernelArg& a = args_[i];
      if (a.kind != core::KernelArg::Kind::Buffer || !a.buffer) continue;
      backend::BufferStorage& storage = a.buffer->storage();
      cl_mem copy = storage.vendor_copies().on(w, err);
      if (err != CL_SUCCESS) break;
      copies[i] = copy;
      // One transfer where the two ranges meet (an update in place).
      Span in[2] = {p.reads[i], p.writes[i]};
      if (!in[0].empty() && !in[1].empty() && in[0].lo <= in[1].hi && in[1].lo <= in[0].hi) {
        in[0] = {std::min(in[0].lo, in[1].lo), std::max(in[0].hi, in[1].hi)};
        in[1] = {};
      }
      for (const Span& s : in) {
        if (s.empty()) continue;
        cl_event e = nullptr;
        err = clEnqueueWriteBuffer(q, copy, CL_FALSE, s.lo, s.size(), storage.host() + s.lo, 0,
                                   nullptr, &e);
        if (err != CL_SUCCESS) break;
        keep(e);
        run.bytes_in += s.size();
      }
      mems[i] = copy;
      if (a.buffer->origin() != 0 || a.buffer->size() != storage.size()) {
        cl_buffer_region region{a.buffer->origin(), a.buffer->size()};
        mems[i] = clCreateSubBuffer(copy, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region,
                                    &err);
        if (err != CL_SUCCESS) break;
        windows.emplace_back(mems[i], w.platform);
      }
    }
    if (err == CL_SUCCESS) {
      std::lock_guard launching(kernel_->launch_mutex());
      backend::VendorArgValues& values = *vendor.values;
      for (cl_uint i = 0; i < args_.size() && err == CL_SUCCESS; ++i) {
        const core::KernelArg& a = args_[i];
        switch (a.kind) {
          case core::KernelArg::Kind::Value:
            err = values.set(vendor.kernel, i, a.bytes.size(), a.bytes.data());
            break;
          case core::KernelArg::Kind::Local:
            err = values.set(vendor.kernel, i, a.local_size, nullptr);
            break;
          case core::KernelArg::Kind::Buffer:
            err = values.set_buffer(vendor.kernel, i, mems[i], 0);
            break;
          default:
            err = CL_INVALID_KERNEL_ARGS;  // refused before: images, samplers
        }
      }
      if (err == CL_SUCCESS) {
        const NDRange r = block(p);
        cl_event e = nullptr;
        err = clEnqueueNDRangeKernel(q, vendor.kernel, r.work_dim, r.offset.data(), r.global.data(),
                                     r.local.data(), 0, nullptr, &e);
        if (err == CL_SUCCESS) keep(e);
      }
    }
    // Out: the bytes the block wrote, back to main RAM.
    for (std::size_t i = 0; i < args_.size() && err == CL_SUCCESS; ++i) {
      const core::KernelArg& a = args_[i];
      if (a.kind != core::KernelArg::Kind::Buffer || !a.buffer || p.writes[i].empty()) continue;
      backend::BufferStorage& storage = a.buffer->storage();
      const Span s = p.writes[i];
      cl_event e = nullptr;
      err = clEnqueueReadBuffer(q, copies[i], CL_FALSE, s.lo, s.size(),
                                storage.host() + s.lo, 0, nullptr, &e);
      if (err != CL_SUCCESS) break;
      keep(e);
      run.bytes_out += s.size();
    }
    if (err == CL_SUCCESS && clFlush(q) != CL_SUCCESS) err = CL_OUT_OF_RESOURCES;
    // Commands enqueued before a failure still run: the last one enqueued
    // is waited for either way (the queue is in order).
    if (err != CL_SUCCESS) {
      log::error("kernel ", kernel_->name(), ": the part of a split launch on ", p.device->label(),
                 " failed to enqueue: ", error_name(err), " (", err, ")");
      run.status = err;
    }
    return run;
  }

  cl_int run_native(const Part& p) const {
    const backend::native::NativeKernel* k = kernel_->native_for(p.device);
    const auto native_args =
        native_arguments(args_, [&](std::size_t i) { return args_[i].buffer->storage().host(); });
    return backend::native::run(*k, native_args, native_launch(block(p)));
  }

  // Waits for a vendor part's commands; the first failure's status among
  // them (a vendor whose failures are not sticky fails only the kernel's
  // event), else CL_COMPLETE.
  static cl_int wait_vendor(const backend::VendorWorker& w, std::span<const cl_event> events) {
    const cl_event last = events.back();
    if (w.traits.thread_safe) {
      clWaitForEvents(1, &last);
    } else {
      for (;;) {
        cl_int s;
        {
          backend::VendorLock lock = backend::lock_vendor(w);
          s = backend::vendor_event_status(last, CL_COMPLETE);
        }
        if (s <= CL_COMPLETE) break;
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    }
    backend::VendorLock lock = backend::lock_vendor(w);
    for (cl_event e : events)
      if (const cl_int s = backend::vendor_event_status(e, CL_COMPLETE); s < 0) return s;
    return CL_COMPLETE;
  }

  // The part's time on its device, from its first command queued to its
  // last one's end (the vendor's clock); 0 if the vendor does not say.
  static double vendor_seconds(const backend::VendorWorker& w, cl_event first, cl_event last) {
    backend::VendorLock lock = backend::lock_vendor(w);
    cl_ulong queued = 0, end = 0;
    if (clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_QUEUED, sizeof queued, &queued,
                                nullptr) != CL_SUCCESS ||
        clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) !=
            CL_SUCCESS ||
        end <= queued)
      return 0;
    return static_cast<double>(end - queued) * 1e-9;
  }

  void run() {
    const std::vector<Acquire> acquires = acquisitions();
    std::vector<starpu_data_handle_t> handles;
    std::vector<starpu_data_access_mode> modes;
    for (const Acquire& a : acquires) {
      handles.push_back(a.handle);
      modes.push_back(a.mode);
    }
    DataClaim claim = DataLeases::instance().claim(handles, modes);
    backend::WorkerDemand demand = backend::WorkerDemand::raise(backend::workers_holding(handles));
    std::size_t held = 0;
    for (const Acquire& a : acquires) {
      if (starpu_data_acquire_on_node(a.handle, STARPU_MAIN_RAM, a.mode) != 0) break;
      ++held;
    }
    if (held < acquires.size()) {
      log::error("kernel ", kernel_->name(), ": StarPU refused a split launch its data in main RAM");
      for (std::size_t i = 0; i < held; ++i)
        starpu_data_release_on_node(acquires[i].handle, STARPU_MAIN_RAM);
      event_->complete(CL_OUT_OF_RESOURCES);  // may destroy this command: nothing after
      return;
    }
    event_->set_running();

    // The vendors' parts go first, then the native one runs here meanwhile.
    std::vector<Running> running(parts_.size());
    for (std::size_t i = 0; i < parts_.size(); ++i)
      if (!kernel_->native_for(parts_[i].device)) running[i] = start_vendor(parts_[i]);
    std::vector<double> seconds(parts_.size(), 0.0);
    std::vector<std::uint64_t> ended(parts_.size(), 0);
    cl_int status = CL_COMPLETE;
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      if (!kernel_->native_for(parts_[i].device)) continue;
      running[i].host_start = now_ns();
      const cl_int s = run_native(parts_[i]);
      ended[i] = now_ns();
      seconds[i] = static_cast<double>(ended[i] - running[i].host_start) * 1e-9;
      if (s < 0 || (s != CL_SUCCESS && s != CL_COMPLETE)) {
        log::error("kernel ", kernel_->name(), ": the part of a split launch on ",
                   parts_[i].device->label(), " failed: ", error_name(s), " (", s, ")");
        status = s < 0 ? s : CL_OUT_OF_RESOURCES;
      }
    }
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      if (kernel_->native_for(parts_[i].device)) continue;
      Running& r = running[i];
      const backend::VendorWorker& w = parts_[i].device->worker();
      cl_int s = r.status;
      if (!r.events.empty()) {
        const cl_int done = wait_vendor(w, r.events);
        if (s == CL_SUCCESS && done < 0) {
          log::error("kernel ", kernel_->name(), ": the part of a split launch on ",
                     parts_[i].device->label(), " failed while running: ", error_name(done));
          s = done;
        }
        seconds[i] = vendor_seconds(w, r.events.front(), r.events.back());
      }
      ended[i] = now_ns();
      if (!seconds[i]) seconds[i] = static_cast<double>(ended[i] - r.host_start) * 1e-9;
      if (s != CL_SUCCESS && status == CL_COMPLETE) status = s < 0 ? s : CL_OUT_OF_RESOURCES;
      {
        backend::VendorLock lock = backend::lock_vendor(w);
        for (cl_event e : r.events) clReleaseEvent(e);
      }
      record_host_transfer(w, r.bytes_in, true);
      record_host_transfer(w, r.bytes_out, false);
    }
    for (const Acquire& a : acquires) starpu_data_release_on_node(a.handle, STARPU_MAIN_RAM);
    claim.release();
    demand.drop();

    std::vector<std::size_t> groups;
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      const Part& p = parts_[i];
      groups.push_back(p.g1 - p.g0);
      record_command(p.device->worker().worker_id,
                     static_cast<std::uint64_t>(seconds[i] * 1e9));
      if (trace::enabled())
        trace::record_part(*event_, *p.device, kernel_->name().c_str(), running[i].host_start,
                           ended[i], p.g1 - p.g0, running[i].bytes_in + running[i].bytes_out,
                           status);
    }
    if (status == CL_COMPLETE) schedulers::split_shares().record(key_, groups, seconds);
    event_->complete(status);  // may destroy this command: nothing after
  }

  core::Ref<core::Kernel> kernel_;
  core::KernelArgs args_;
  NDRange range_;
  unsigned dim_;
  std::vector<Part> parts_;
  std::uint64_t key_;
  core::Event* event_ = nullptr;
  std::size_t largest_groups_ = 0;
};

// Reports a launch's time, from its dependencies met to its end, to the
// shares: run whole or split.
struct Measurement {
  std::uint64_t key;
  bool whole;

  static void CL_CALLBACK on_complete(cl_event e, cl_int status, void* self) {
    std::unique_ptr<Measurement> m(static_cast<Measurement*>(self));
    if (status != CL_COMPLETE) return;
    const core::Event* event = core::Event::from(e);
    if (event->time_end() <= event->time_submit()) return;
    const double seconds = static_cast<double>(event->time_end() - event->time_submit()) * 1e-9;
    log::debug("a launch ", m->whole ? "run whole" : "split", " took ", seconds * 1e3, " ms");
    if (m->whole)
      schedulers::split_shares().record_whole(m->key, seconds);
    else
      schedulers::split_shares().record_split(m->key, seconds);
  }
};

void measure(core::Event& event, std::uint64_t key, bool whole) {
  auto m = std::make_unique<Measurement>(Measurement{key, whole});
  event.add_callback({&Measurement::on_complete, m.release(), CL_COMPLETE});
}

// By default a launch of fewer work-items runs whole: a split launch costs
// a thread hand-over, StarPU's acquisitions and a launch and transfers per
// device (the context property CL_CONTEXT_SPLIT_PARASOL = CL_TRUE splits
// every launch that can be).
constexpr std::size_t kMinSplitItems = std::size_t{1} << 20;

// A local size for a launch that gave none: along each dimension the
// largest divisor of the global size that every device takes (up to 64
// work-items along dimension 0, one along the others), or a required size.
bool choose_local(const core::Kernel& kernel, std::span<core::Device* const> devices, NDRange& range) {
  if (range.local[0] != 0) return true;
  std::size_t total = SIZE_MAX;
  std::array<std::size_t, 3> items{SIZE_MAX, SIZE_MAX, SIZE_MAX};
  for (core::Device* d : devices) {
    const core::Kernel::WorkGroupLimits l = kernel.work_group_limits(d);
    if (l.reqd[0]) {
      for (unsigned i = 0; i < 3; ++i) range.local[i] = l.reqd[i];
      return true;
    }
    total = std::min(total, l.max_total);
    for (unsigned i = 0; i < 3; ++i) items[i] = std::min(items[i], l.max_items[i]);
  }
  for (unsigned i = 0; i < 3; ++i) range.local[i] = 1;
  const std::size_t cap = std::min<std::size_t>({64, total, items[0]});
  for (std::size_t l = cap; l >= 1; --l)
    if (range.global[0] % l == 0) {
      range.local[0] = l;
      break;
    }
  return true;
}

// Whether commands of the context's queues are in flight that a launch does
// not wait for: an application's own independent blocks, which keep the
// devices busy already. A split would take devices from them, and put each
// block's bytes on several devices, to be gathered again by its next launch
// run whole: such a launch runs whole. Counted as before it: on an in-order
// queue, the queue's commands in flight; the wait list's unfinished commands
// of the context's other queues. An ancestor neither counts is taken as
// beside it (the launch runs whole, never wrong). Once a kernel's launch
// ran beside others, its later launches run whole too: the first block of
// an application's burst comes before the others do, alone.
bool runs_beside_others(const core::CommandQueue& queue, std::span<core::Event* const> wait_list) {
  const core::Context& context = *queue.context();
  std::uint64_t before = queue.in_order() ? queue.in_flight() : 0;
  for (const core::Event* e : wait_list) {
    const core::CommandQueue* q = e->queue();
    if (q && q->context() == &context && !q->device() && !(q == &queue && queue.in_order()) &&
        !e->finished())
      ++before;
  }
  return context.context_commands_in_flight() > before;
}

}  // namespace

core::Ref<core::Event> try_split_launch(core::CommandQueue& queue, core::Kernel& kernel,
                                        core::Kernel::ArgsView& view, const NDRange& whole,
                                        std::span<core::Event* const> wait_list) {
  core::Context& context = *queue.context();
  const core::Context::Split mode = context.splits_launches();
  if (queue.device() || mode == core::Context::Split::Never || kernel.has_divide_function() ||
      kernel.has_socl_divide_function())
    return {};
  std::size_t items = 1;
  for (unsigned d = 0; d < whole.work_dim; ++d) items *= whole.global[d];
  if (mode == core::Context::Split::Large) {
    if (items < kMinSplitItems || kernel.launches_beside_others()) return {};
    if (runs_beside_others(queue, wait_list)) {
      kernel.launched_beside_others();
      return {};
    }
  }
  // The devices that could take a part: one per StarPU worker.
  std::vector<core::Device*> devices;
  context.any_in_rotation([&](core::Device* d) {
    if (kernel.runs_on(d) &&
        std::none_of(devices.begin(), devices.end(),
                     [d](core::Device* x) { return x->worker().worker_id == d->worker().worker_id; }))
      devices.push_back(d);
    return false;
  });
  if (devices.size() < 2) return {};
  const KernelRanges* ranges = kernel.access_ranges();
  if (!ranges || !kernel.split_dims()) return {};

  std::span<const core::KernelArg> args = view.args();
  NDRange range = whole;
  choose_local(kernel, devices, range);
  RangeLaunch values;
  for (unsigned d = 0; d < 3; ++d) {
    if (range.local[d] == 0 || range.global[d] % range.local[d] != 0) return {};
    values.geometry.offset[d] = range.offset[d];
    values.geometry.global[d] = range.global[d];
    values.geometry.local[d] = range.local[d];
  }
  values.geometry.work_dim = range.work_dim;
  for (const core::KernelArg& a : args) {
    std::uint64_t v = 0;
    switch (a.kind) {
      case core::KernelArg::Kind::Value:
        std::memcpy(&v, a.bytes.data(), std::min<std::size_t>(a.bytes.size(), sizeof v));
        break;
      case core::KernelArg::Kind::Buffer:
      case core::KernelArg::Kind::Local:
        break;
      default:
        log::debug("kernel ", kernel.name(), ": an image or sampler argument: launched whole");
        return {};
    }
    values.args.push_back(v);
  }
  // Native devices run a block only where its __local memory fits.
  std::erase_if(devices, [&](core::Device* d) {
    const backend::native::NativeKernel* nk = kernel.native_for(d);
    return nk && backend::native::local_bytes(*nk, core::local_arg_bytes(args)) >
                     backend::native::kLocalMemBytes;
  });
  if (devices.size() < 2) return {};

  // Shares are kept per launch shape and set of devices.
  std::uint64_t key = KernelCommand::launch_key(kernel, args, whole);
  for (core::Device* d : devices)
    key = (key ^ static_cast<std::uint64_t>(d->worker().worker_id + 1)) * 0x100000001b3u;
  const std::uint32_t footprint = KernelCommand::footprint_of(args, whole);
  const unsigned sched_ctx = context.sched_ctx();
  std::vector<double> guesses;
  for (core::Device* d : devices)
    guesses.push_back(schedulers::model_expected_us(kernel_codelet(kernel.model_symbol()),
                                                    footprint, d->worker().worker_id, sched_ctx) *
                      1e-6);
  const backend::native::SplitAbility able = backend::native::split_ability(*ranges);

  // The dimension: the outermost one the code and this launch allow, whose
  // written arguments that must be apart are.
  auto apart = [&](unsigned d) {
    for (const auto& [x, y] : able.distinct[d]) {
      if (x >= args.size() || y >= args.size()) return false;
      const core::KernelArg &a = args[x], &b = args[y];
      if (a.kind != core::KernelArg::Kind::Buffer || b.kind != core::KernelArg::Kind::Buffer ||
          !a.buffer || !b.buffer)
        continue;
      if (&a.buffer->storage() == &b.buffer->storage() &&
          overlap({a.buffer->origin(), a.buffer->origin() + a.buffer->size()},
                  {b.buffer->origin(), b.buffer->origin() + b.buffer->size()}))
        return false;
    }
    return true;
  };
  int dim = -1;
  for (int d = static_cast<int>(range.work_dim) - 1; d >= 0 && dim < 0; --d) {
    std::string why;
    if (!(able.dims & (1u << d)) || range.global[d] / range.local[d] < 2) continue;
    if (!apart(static_cast<unsigned>(d))) {
      log::debug("kernel ", kernel.name(), ": two written arguments share bytes: not split along ", d);
      continue;
    }
    if (!backend::native::blocks_write_apart(*ranges, values, static_cast<unsigned>(d), why)) {
      log::debug("kernel ", kernel.name(), ": not split along ", d, ": ", why);
      continue;
    }
    dim = d;
  }
  if (dim < 0) return {};
  const auto udim = static_cast<unsigned>(dim);
  const std::size_t groups = range.global[udim] / range.local[udim];

  bool measure_whole = false;
  const std::vector<std::size_t> shares = schedulers::split_shares().plan(
      key, guesses, groups, mode != core::Context::Split::Always, measure_whole);
  if (shares.empty() && !measure_whole) return {};  // whole is faster: any launch's way
  if (shares.empty()) {  // whole, measured
    auto work = std::make_unique<KernelCommand>(&kernel, view.copy(), whole, nullptr, sched_ctx);
    core::Ref<core::Event> event = submit(queue, CL_COMMAND_NDRANGE_KERNEL, std::move(work), wait_list);
    measure(*event, key, true);
    return event;
  }

  std::vector<Part> parts;
  std::size_t g = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (!shares[i]) continue;
    Part p{devices[i], g, g + shares[i], std::vector<Span>(args.size()), std::vector<Span>(args.size())};
    g += shares[i];
    for (std::size_t a = 0; a < args.size(); ++a) {
      if (args[a].kind != core::KernelArg::Kind::Buffer || !args[a].buffer) continue;
      const auto arg = static_cast<cl_uint>(a);
      p.reads[a] = storage_span(
          backend::native::block_bytes(*ranges, arg, Access::Read, values, p.g0, p.g1, udim),
          *args[a].buffer);
      const BlockBytes w =
          backend::native::block_bytes(*ranges, arg, Access::Write, values, p.g0, p.g1, udim);
      if (w.whole) return {};
      p.writes[a] = storage_span(w, *args[a].buffer);
    }
    parts.push_back(std::move(p));
  }
  if (parts.size() < 2) return {};
  // Each part gives back one range per argument: those of different parts
  // (any arguments of one storage) must not share a byte.
  for (std::size_t i = 0; i < parts.size(); ++i)
    for (std::size_t j = i + 1; j < parts.size(); ++j)
      for (std::size_t a = 0; a < args.size(); ++a)
        for (std::size_t b = 0; b < args.size(); ++b) {
          if (!parts[i].writes[a].empty() && !parts[j].writes[b].empty() &&
              &args[a].buffer->storage() == &args[b].buffer->storage() &&
              overlap(parts[i].writes[a], parts[j].writes[b])) {
            log::debug("kernel ", kernel.name(), ": the blocks' written ranges overlap: launched whole");
            return {};
          }
        }

  if (log::enabled(log::Level::Debug)) {
    std::string what;
    for (const Part& p : parts)
      what += " " + p.device->label() + ": groups [" + std::to_string(p.g0) + ", " +
              std::to_string(p.g1) + ")";
    log::debug("kernel ", kernel.name(), " split along dimension ", dim, ":", what);
  }
  auto work = std::make_unique<SplitLaunch>(kernel, view.copy(), range, udim, std::move(parts), key);
  core::Ref<core::Event> event = submit(queue, CL_COMMAND_NDRANGE_KERNEL, std::move(work), wait_list);
  measure(*event, key, false);
  return event;
}

}  // namespace parasol::runtime
