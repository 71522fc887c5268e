// The direct launch path: a command whose dependencies are done or already
// queued on its device, and whose buffers are resident there (data leases),
// goes straight to the device's vendor queue from the enqueuing thread:
// no StarPU task, no worker hand-off, no wait per command. The vendor's
// in-order queue keeps the order; the vendor event's completion callback
// completes the Parasol event. Everything else takes StarPU's path.
//
// PARASOL_DIRECT=0 turns it off (every command then goes through StarPU).
#pragma once

#include <CL/cl.h>

#include <span>

#include "core/device.h"
#include "core/event.h"
#include "util/callback_scope.h"

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

// Hands a vendor command's completion to OnComplete(self), on the vendor's
// callback thread (or on this one, waiting, if the vendor takes no
// callback). done stays retained by the caller.
template <void (*OnComplete)(void*)>
void on_vendor_completion(cl_event done, void* self) {
  auto completed = [](cl_event, cl_int, void* s) {
    CallbackScope scope;
    OnComplete(s);
  };
  if (clSetEventCallback(done, CL_COMPLETE, completed, self) == CL_SUCCESS) return;
  clWaitForEvents(1, &done);
  completed(done, CL_COMPLETE, self);
}

}  // namespace parasol::runtime
