// clEnqueueNDRangeKernel / clEnqueueTask: the kernel runs on the StarPU
// worker's own vendor context and queue, with the worker's copies of the
// buffers as arguments.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "backend/native/native_compiler.h"
#include "core/kernel.h"
#include "core/sampler.h"
#include "runtime/task_command.h"

namespace parasol::runtime {

struct NDRange {
  cl_uint work_dim = 1;
  std::array<size_t, 3> offset{0, 0, 0};
  std::array<size_t, 3> global{1, 1, 1};
  std::array<size_t, 3> local{0, 0, 0};  // all 0: the vendor chooses
};

// A launch's arguments as a native kernel receives them: values, __local
// sizes, samplers' bits, and buffers and images by their bytes in main RAM,
// storage_bytes(i) being where argument i's storage lies.
template <typename StorageBytes>
std::vector<backend::native::Arg> native_arguments(std::span<const core::KernelArg> args,
                                                   StorageBytes&& storage_bytes) {
  std::vector<backend::native::Arg> out(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    const core::KernelArg& a = args[i];
    backend::native::Arg& n = out[i];
    switch (a.kind) {
      case core::KernelArg::Kind::Value: n.value = a.bytes.data(); break;
      case core::KernelArg::Kind::Local: n.local_size = a.local_size; break;
      case core::KernelArg::Kind::Sampler: n.sampler_bits = a.sampler ? a.sampler->bits() : 0; break;
      case core::KernelArg::Kind::Buffer:
      case core::KernelArg::Kind::Image:
        if (a.buffer) {
          n.data = storage_bytes(i) + a.buffer->origin();
          n.image = a.buffer->image();
        }
        break;
      case core::KernelArg::Kind::Unset: break;
    }
  }
  return out;
}

inline backend::native::Launch native_launch(const NDRange& r) {
  backend::native::Launch launch;
  launch.work_dim = r.work_dim;
  launch.offset = r.offset;
  launch.global = r.global;
  launch.local = r.local;
  return launch;
}

class KernelCommand final : public TaskCommand {
 public:
  // A launch that owns a copy of its arguments.
  KernelCommand(core::Kernel* kernel, core::KernelArgs args, const NDRange& range,
                core::Device* pinned, unsigned sched_ctx);
  // A launch that reads the kernel's arguments in place through the view
  // (held by its API call), and lets go of the view once its vendor has
  // them: a record (record(), on the enqueuing thread's stack), or a launch
  // that copies them unless it goes to its vendor within the call
  // (keep_inputs()).
  KernelCommand(core::Kernel* kernel, core::Kernel::ArgsView& view, const NDRange& range,
                core::Device* pinned, unsigned sched_ctx);
  cl_int execute(void* buffers[], core::Device& device, const VendorPlace& place,
                 cl_event* done) override;
  cl_int execute_on_host(void* buffers[], core::Device& device) override;
  bool launch_direct(core::Event& event, std::span<core::Event* const> deps,
                     std::span<core::Event* const> named) override;
  void keep_inputs() override;
  // Sends the launch to its vendor without a Parasol event, for
  // core::CommandQueue::try_record(): the device, or null if it needs one.
  // home: the queue's home lane (core::CommandQueue::home_lane()).
  core::Device* record(core::Event* previous, const core::Device* tail, unsigned home) {
    as_record_ = true;
    return try_record(previous, tail, home);
  }
  // The same for a launch with an event, for
  // core::CommandQueue::try_record_with_event().
  using TaskCommand::try_record_with_event;
  // Whether a launch of kernel on queue could go as a record at all, looked
  // at before one is built for nothing (TaskCommand::try_record() decides):
  // on a context queue where two devices could run it, only if one of their
  // lanes goes without vendor events.
  static bool may_record(const core::CommandQueue& queue, const core::Kernel& kernel);
  // The same for a launch with an event (try_record_with_event()): on a
  // device queue, a device that takes direct launches; on a context queue,
  // no second device that could run it (one could place the command again
  // after a device-level failure, which needs the command object).
  static bool may_record_with_event(const core::CommandQueue& queue, const core::Kernel& kernel);
  // Launches that are alike (kernel, NDRange, buffer sizes) share a key.
  static std::uint64_t launch_key(const core::Kernel& kernel,
                                  std::span<const core::KernelArg> args, const NDRange& range);
  bool can_run_on(const core::Device& device) const override;
  std::uint32_t footprint() const override;
  // The footprint of a launch of these arguments over range (StarPU's
  // performance models are kept per footprint).
  static std::uint32_t footprint_of(std::span<const core::KernelArg> args, const NDRange& range);
  std::size_t size() const override;

 protected:
  const char* name() const override { return kernel_->name().c_str(); }
  starpu_codelet* codelet() override;

 private:
  bool policy_keeps_on(const core::Device& resident) const override;
  core::Device* policy_places_without_data() const override;
  void before_blocking() override { keep_inputs(); }
  // How much slower than the fastest device the device holding the data may
  // be for a context-queue command to stay there without asking StarPU.
  static constexpr double kResidentSlowdown = 2.0;

  // Where the arguments are read: owned_, or the kernel's own (borrowed_).
  void index_buffers();
  // An image argument the kernel only reads (read_only): not written back.
  bool image_read_only(std::size_t index) const;
  core::Ref<core::Kernel> kernel_;
  core::KernelArgs owned_;
  core::Kernel::ArgsView* borrowed_ = nullptr;
  bool as_record_ = false;  // record(): a refusal is said by the evented retry
  std::span<const core::KernelArg> args_;
  SmallVector<std::size_t, 8> buffer_index_;  // per argument, into buffers[]
  NDRange range_;
};

}  // namespace parasol::runtime
