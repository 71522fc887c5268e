// The direct launch path: a command whose dependencies are done or already
// queued on its device, and whose buffers are resident there (data leases),
// goes straight to the device's vendor queue from the enqueuing thread:
// no StarPU task, no worker hand-off, no wait per command. The vendor's
// in-order queue keeps the order; hand_over_direct() completes the Parasol
// event when the vendor's does. Everything else takes StarPU's path.
//
// PARASOL_DIRECT=0 turns it off (every command then goes through StarPU).
#pragma once

#include <CL/cl.h>

#include <span>

#include "core/device.h"
#include "core/event.h"
#include "runtime/data_leases.h"

namespace parasol::runtime {

bool direct_path_enabled();

// A vendor device whose runtime is thread-safe (not the native device, not
// Oclgrind).
bool direct_capable(const core::Device& device);

// Whether this thread may wait for StarPU (to take a lease): not a StarPU
// worker, not inside a callback.
bool may_wait_for_starpu();

// Every dependency completed successfully, or is a direct command queued
// before on device's vendor queue (which runs in order).
bool dependencies_allow(const core::Device& device, std::span<core::Event* const> deps);

// What every direct command does once the vendor took it (done): its
// leases learn which vendor command uses them (unpinned), the command joins
// its device's lane, where complete(self) runs once the vendor completed it,
// and the event becomes a direct dependency for later commands. Who notices
// the completion depends on PARASOL_DIRECT_COMPLETION (direct_launch.cpp):
// by default a waiter thread per device; or a vendor callback per command;
// or (lazy) whichever thread looks first, with callbacks only on awaited
// events (depended on, waited for, polled), on profiling queues and on one
// command in 32. self may be gone after.
void hand_over_direct(core::Event& event, LeasePins& pins, cl_event done,
                      void (*complete)(void*), void* self);

// The hooks of core::Event and core::CommandQueue for direct commands:
// progress() arms the event's callback and flushes its vendor queue (wait:
// blocks until the vendor completed it, then completes it); drain() waits
// for everything direct on device so far; flush() submits it.
void direct_progress(core::Event& event, bool wait);
void drain_direct(const core::Device& device);
void flush_direct(const core::Device& device);

}  // namespace parasol::runtime
