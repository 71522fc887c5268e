#include "runtime/submit.h"

#include <chrono>

#include "core/device.h"
#include "runtime/direct_launch.h"
#include "runtime/divided_launch.h"
#include "runtime/lane.h"
#include "runtime/rank_choice.h"
#include "runtime/remote_kernel_command.h"
#include "runtime/split_launch.h"
#include "util/small_vector.h"

namespace parasol::runtime {
namespace {

// An event standing for the records the queue sent last, on tail: the
// previous command of one that does not queue behind them on that device.
core::Ref<core::Event> behind_records(core::CommandQueue& queue, core::Device& tail) {
  auto watch = core::Ref<core::Event>::adopt(
      core::create<core::Event>(queue.context(), &queue, CL_COMMAND_MARKER, nullptr));
  core::drop_api_reference(watch);
  queue.command_enqueued();
  queue_behind_lane(*watch, tail);
  return watch;
}

}  // namespace

core::Ref<core::Event> submit(core::CommandQueue& queue, cl_command_type type,
                              std::unique_ptr<Command> command,
                              std::span<core::Event* const> wait_list, core::Ordering ordering) {
  Command* const work = command.get();
  auto event = core::Ref<core::Event>::adopt(
      core::create<core::Event>(queue.context(), &queue, type, std::move(command)));
  core::CommandQueue::Order order = queue.order(event, ordering, wait_list.empty());
  if (work) {
    SmallVector<core::Event*, 8> deps;  // every enqueue builds it: on the stack unless long
    for (core::Event* e : wait_list) deps.push_back(e);
    if (order.previous) deps.push_back(order.previous.get());
    for (auto& e : order.since) deps.push_back(e.get());
    {
      DirectTail behind(order.tail);
      if (work->launch_direct(*event, {deps.data(), deps.size()}, wait_list)) return event;
    }
    work->keep_inputs();
    if (!order.tail && all_complete({deps.data(), deps.size()})) work->refused_when_ready();
  }
  // Elsewhere than behind the records on their device: after an event
  // that completes once they have.
  if (order.tail) event->depend_on(behind_records(queue, *order.tail).get(), false);
  for (core::Event* e : wait_list) event->depend_on(e);
  if (order.previous) event->depend_on(order.previous.get(), false);
  for (auto& e : order.since) event->depend_on(e.get(), false);
  event->start();
  return event;
}

namespace {

// A launch on this process's devices: the queue's device, or those of its
// context (StarPU's policy, or a split across them).
core::Ref<core::Event> submit_here(core::CommandQueue& queue, core::Kernel& kernel,
                                   core::Kernel::ArgsView& args, const NDRange& range,
                                   std::span<core::Event* const> wait_list, bool wants_event) {
  core::Device* const pinned = queue.device();
  const unsigned sched_ctx = pinned ? 0 : queue.context()->sched_ctx();
  // A divide function's own launches of its kernel run undivided.
  const bool divisible = !pinned && kernel.has_divide_function() && !dividing(&kernel);
  if (!pinned)
    if (auto split = try_split_launch(queue, kernel, args, range, wait_list)) return split;
  if (!divisible && queue.records_allowed()) {
    if (!wants_event && wait_list.empty() && KernelCommand::may_record(queue, kernel)) {
      KernelCommand launch(&kernel, args, range, pinned, sched_ctx);
      if (queue.try_record([&](core::Event* previous, const core::Device* tail) {
            return launch.record(previous, tail, queue.home_lane());
          }))
        return {};
    }
    if ((wants_event || !wait_list.empty()) && KernelCommand::may_record_with_event(queue, kernel)) {
      KernelCommand launch(&kernel, args, range, pinned, sched_ctx);
      auto launched = queue.try_record_with_event(
          CL_COMMAND_NDRANGE_KERNEL, wait_list,
          [&](core::Event& e, std::span<core::Event* const> deps, const core::Device* tail) {
            return launch.try_record_with_event(e, deps, wait_list, tail);
          });
      if (launched) return launched;
    }
  }
  if (!divisible) {
    // Reads the arguments in place until its vendor has them, or until it
    // must copy them (KernelCommand::keep_inputs()).
    auto work = std::make_unique<KernelCommand>(&kernel, args, range, pinned, sched_ctx);
    return submit(queue, CL_COMMAND_NDRANGE_KERNEL, std::move(work), wait_list);
  }
  core::KernelArgs copy = args.copy();  // lets go of the arguments' lock
  const std::uint64_t key = KernelCommand::launch_key(kernel, copy, range);
  auto undivided = [&](std::span<core::Event* const> after) {
    auto work = std::make_unique<KernelCommand>(&kernel, std::move(copy), range, pinned, sched_ctx);
    return submit(queue, CL_COMMAND_NDRANGE_KERNEL, std::move(work), after);
  };
  return enqueue_divided(queue, kernel, key, wait_list, undivided);
}

}  // namespace

core::Ref<core::Event> submit_kernel(core::CommandQueue& queue, core::Kernel& kernel,
                                     core::Kernel::ArgsView& args, const NDRange& range,
                                     std::span<core::Event* const> wait_list, bool wants_event) {
  // A context holding devices of other ranks: Parasol chooses the rank
  // first (runtime/rank_choice.h). Another rank's device: its node runs the
  // kernel, neither StarPU here nor a vendor queue of this process.
  const std::optional<RankChoice> choice =
      choose_rank(queue, kernel, args.args(), range, wait_list);
  if (choice && choice->remote) {
    auto work = std::make_unique<RemoteKernelCommand>(&kernel, args.copy(), range, choice->remote);
    core::Ref<core::Event> event =
        submit(queue, CL_COMMAND_NDRANGE_KERNEL, std::move(work), wait_list);
    follow_choice(*event, *choice);
    return event;
  }
  if (!choice) return submit_here(queue, kernel, args, range, wait_list, wants_event);
  // This process's devices, measured for the next choices: with an event.
  core::Ref<core::Event> event = submit_here(queue, kernel, args, range, wait_list, true);
  if (event) follow_choice(*event, *choice);
  return event;
}

core::Ref<core::Event> submit_transfer(core::CommandQueue& queue, cl_command_type type,
                                       HostAccesses&& accesses, std::function<cl_int()>&& body,
                                       std::size_t bytes,
                                       std::optional<VendorTransfer>&& vendor_form,
                                       std::span<core::Event* const> wait_list, bool blocking,
                                       bool wants_event) {
  if (vendor_form && queue.records_allowed()) {
    const DirectTransfer direct{accesses, *vendor_form};
    LaneMark finished;
    // A blocking read or write too, where the vendor's own blocking call
    // waits: done on return, it needs no event to wait on. Not a map: kept
    // on its event, which its unmap and the commands after it follow on the
    // direct path.
    const bool blocking_record = blocking && direct.blocks_in_vendor() &&
                                 type != CL_COMMAND_MAP_BUFFER && type != CL_COMMAND_MAP_IMAGE;
    if ((!blocking || blocking_record) && !wants_event && wait_list.empty() &&
        queue.try_record([&](core::Event* previous, const core::Device* tail) {
          return direct.record(queue, previous, tail, blocking, &finished);
        })) {
      // The queue's commands before it are done too: their events say so on
      // return, as a wait would have made them (outside the queue's lock:
      // completions may call the application back).
      if (finished.lane) harvest_through(*finished.lane, finished.seq);
      return {};
    }
    if (!queue.device() || direct_capable(*queue.device())) {
      auto launched = queue.try_record_with_event(
          type, wait_list,
          [&](core::Event& e, std::span<core::Event* const> deps, const core::Device* tail) {
            return direct.record_with_event(e, deps, wait_list, tail, blocking);
          });
      if (launched) return launched;
    }
  }
  auto work = std::make_unique<HostCommand>(std::move(accesses), std::move(body), bytes,
                                            std::move(vendor_form));
  return submit(queue, type, std::move(work), wait_list);
}

void flush(const core::CommandQueue& queue) {
  if (!queue.used_direct()) return;
  for (core::Device* d : queue.devices()) flush_direct(*d);
}

void finish(core::CommandQueue& queue) {
  // Direct commands (of any queue on these devices) are noticed complete
  // here, and again every 10 ms: one may go to its vendor after a drain,
  // launched on another thread when a StarPU task it waited for completed.
  for (;;) {
    if (queue.used_direct())
      for (core::Device* d : queue.devices()) drain_direct(*d);
    if (queue.wait_idle(std::chrono::milliseconds(10))) return;
  }
}

}  // namespace parasol::runtime
