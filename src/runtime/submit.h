// The one place that decides how a command runs. The API layer (src/icd/)
// validates the call and describes the command; from here on:
// - a kernel launch or a transfer that nobody asks about (no event out, no
//   wait list) goes to its vendor as a record, when its device's lane and
//   data allow (core::CommandQueue::try_record());
// - one with an event or a wait list goes the same way with an event but no
//   command object, when they allow (try_record_with_event());
// - a kernel with a divide function on a context queue runs its divide
//   function (runtime/divided_launch.h);
// - everything else becomes a Command through submit(): ordered in its
//   queue, sent to a vendor queue at once when its dependencies and data
//   allow (the direct path, runtime/direct_launch.h), else wired into the
//   event graph, where it launches once they are done (runtime/command.h:
//   the direct path again, or a StarPU task).
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "core/command_queue.h"
#include "core/kernel.h"
#include "runtime/command.h"
#include "runtime/host_command.h"
#include "runtime/kernel_command.h"

namespace parasol::runtime {

// command may be null: a marker or barrier, which completes once its
// dependencies have. Returns the event (one internal reference, the Ref's).
core::Ref<core::Event> submit(core::CommandQueue& queue, cl_command_type type,
                              std::unique_ptr<Command> command,
                              std::span<core::Event* const> wait_list,
                              core::Ordering ordering = core::Ordering::Normal);

// clEnqueueNDRangeKernel of a range with work-items: args reads the
// kernel's arguments in place (held by the caller, every one set). Returns
// the launch's event; null when it went as a record (only if !wants_event).
core::Ref<core::Event> submit_kernel(core::CommandQueue& queue, core::Kernel& kernel,
                                     core::Kernel::ArgsView& args, const NDRange& range,
                                     std::span<core::Event* const> wait_list, bool wants_event);

// A transfer between the host and memory objects (read, write, copy, fill,
// map, unmap): body does it on their main-RAM copies; vendor_form, when
// given, is the same transfer as the vendor of a device holding the data
// does it. blocking: the caller waits for the event next. Returns the
// event; null when it went as a record (only if !wants_event and
// !blocking).
core::Ref<core::Event> submit_transfer(core::CommandQueue& queue, cl_command_type type,
                                       HostAccesses&& accesses, std::function<cl_int()>&& body,
                                       std::size_t bytes,
                                       std::optional<VendorTransfer>&& vendor_form,
                                       std::span<core::Event* const> wait_list, bool blocking,
                                       bool wants_event);

// clFlush: the queue's direct commands go to their vendors' devices.
void flush(const core::CommandQueue& queue);
// clFinish: returns once every command enqueued so far has finished.
void finish(core::CommandQueue& queue);

}  // namespace parasol::runtime
