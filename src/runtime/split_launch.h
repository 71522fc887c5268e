// One kernel launch over several devices: on a context queue whose context
// holds two devices or more, a kernel that Parasol's compiler shows safe to
// split (backend/native/access_ranges.h) runs as blocks of work-groups along
// one dimension, one block per device, each a launch of the same kernel
// with its own global offset and size and the launch's local size.
//
// Safe means: along that dimension no two blocks write the same byte (the
// analysis, then this launch's values), every buffer the kernel writes is
// bounded, the written arguments that must be apart are, and every block's
// written bytes lie apart from every other block's (their hulls, so that
// each device gives back one range per argument). Anything else, and
// launches with images or samplers, run whole. By default a launch splits
// only where it is large and alone: no command of the context's queues in
// flight beside it (an application's own blocks keep the devices busy), nor
// beside an earlier launch of the same kernel object.
//
// The data: the command holds every buffer argument's StarPU data in main
// RAM (read, or read-write where a block writes it) for its whole run. Each
// vendor device writes the bytes its block reads, and the bytes it writes
// (a written range may have gaps the kernel keeps), from main RAM into its
// full-size copy of the buffer (backend/vendor_copies.h), runs its block on
// a vendor queue of its own, and reads the bytes it wrote back to main RAM;
// the native device runs its block on the main-RAM bytes. The devices run
// side by side; the event completes when every part has, with the first
// failure's status if one failed.
//
// The shares come from the devices' performance models, then from the
// parts' measured times (schedulers/split_shares.h). CL_EVENT_SPLIT_DEVICES_
// PARASOL and CL_EVENT_SPLIT_GROUPS_PARASOL name the parts; the trace shows
// each on its device's lane. PARASOL_SPLIT=0 or the context property
// CL_CONTEXT_SPLIT_PARASOL = CL_FALSE turn it off; a kernel with a divide
// function keeps its own.
#pragma once

#include <span>

#include "core/command_queue.h"
#include "core/kernel.h"
#include "runtime/kernel_command.h"

namespace parasol::runtime {

// The event of the launch split across devices, or null: the launch is not
// split (the caller runs it whole). Reads args in place; copies them when
// it splits.
core::Ref<core::Event> try_split_launch(core::CommandQueue& queue, core::Kernel& kernel,
                                        core::Kernel::ArgsView& args, const NDRange& range,
                                        std::span<core::Event* const> wait_list);

}  // namespace parasol::runtime
