// Every command with an event goes through submit(): the one place that
// decides how it runs. The API layer (src/icd/) validates the call and
// builds the command; submit() orders it in its queue, then sends it to a
// vendor queue at once when its dependencies and data allow (the direct
// path, runtime/direct_launch.h), else wires its dependencies into the
// event graph, where it launches once they are done (runtime/command.h: the
// direct path again, or a StarPU task). Commands without an event (records)
// take the queue's try_record() first, in the API layer.
#pragma once

#include <CL/cl.h>

#include <memory>
#include <span>

#include "core/command_queue.h"
#include "runtime/command.h"

namespace parasol::runtime {

// command may be null: a marker or barrier, which completes once its
// dependencies have. Returns the event (one internal reference, the Ref's).
core::Ref<core::Event> submit(core::CommandQueue& queue, cl_command_type type,
                              std::unique_ptr<Command> command,
                              std::span<core::Event* const> wait_list,
                              core::Ordering ordering = core::Ordering::Normal);

// clFlush: the queue's direct commands go to their vendors' devices.
void flush(const core::CommandQueue& queue);
// clFinish: returns once every command enqueued so far has finished.
void finish(core::CommandQueue& queue);

}  // namespace parasol::runtime
