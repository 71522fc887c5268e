// clEnqueueNDRangeKernel of a kernel that has a divide function, on a
// context queue: the strategy picks a factor; the kernel runs undivided or
// the divide function runs, here, on the enqueuing thread. It only enqueues
// sub-commands after `before` (a marker standing for the command's
// dependencies) and returns `after`; the caller gets an event that completes
// with `after`. Nothing waits for the sub-commands, so iterations pipeline.
#pragma once

#include <functional>
#include <span>

#include "core/command_queue.h"
#include "core/kernel.h"

namespace parasol::schedulers {

// True while k's divide function runs on this thread: the divide function's
// own launches of k then run undivided.
bool dividing(const core::Kernel* k);

// enqueue_kernel(waits) enqueues the undivided kernel after `waits`.
// key: what the statistics are kept per (kernel, NDRange, buffer sizes).
core::Ref<core::Event> enqueue_divided(
    core::CommandQueue& queue, core::Kernel& kernel, std::uint64_t key,
    std::span<core::Event* const> waits,
    const std::function<core::Ref<core::Event>(std::span<core::Event* const>)>& enqueue_kernel);

}  // namespace parasol::schedulers
