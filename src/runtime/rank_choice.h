// Which rank runs a kernel whose context holds devices of other ranks of an
// MPI job (schedulers/rank_placement.h): a context queue's kernel goes to
// this process's devices of the context (where StarPU's policy, the
// context's own, then chooses among them) or to one device of another rank,
// whichever the placement expects to finish it first; a device queue's
// kernel on another rank's device is counted and measured there. The one
// place the runtime tells another rank's device from this process's
// (backend::DeviceBackend::remote_place()) for a launch.
#pragma once

#include <optional>
#include <span>

#include "core/command_queue.h"
#include "core/event.h"
#include "core/kernel.h"
#include "runtime/kernel_command.h"
#include "schedulers/rank_placement.h"

namespace parasol::runtime {

struct RankChoice {
  // Another rank's device, whose node runs the command
  // (runtime/remote_kernel_command.h); null: this process's devices.
  core::Device* remote = nullptr;
  schedulers::RankPlacement::Ticket ticket;
};

// Nothing for a device queue of this process's device, nor for a context
// queue whose context holds only this process's devices: they go as they
// always did. wait_list: the launch's.
std::optional<RankChoice> choose_rank(core::CommandQueue& queue, const core::Kernel& kernel,
                                      std::span<const core::KernelArg> args, const NDRange& range,
                                      std::span<core::Event* const> wait_list);

// The command of `choice` is event's: its end is measured and ends its
// count (an event callback).
void follow_choice(core::Event& event, const RankChoice& choice);

}  // namespace parasol::runtime
