// Alike devices (core::Device::alike: two GPUs of one model) share what is
// measured of a kernel on either.
//
// StarPU keeps one history-based model per device, so two identical GPUs
// learn a kernel apart, each from the few commands it happened to run, and
// their means drift apart with the noise of each measurement, several-fold
// for a short kernel. HEFT then loads the "faster" twin first, and a
// command whose data sits on the "slower" one leaves the direct path for
// StarPU's (runtime/kernel_command.cpp, policy_keeps_on), which costs a
// dependent chain far more per command than the second GPU gains it.
// Recording every measurement for every twin keeps their models equal and
// calibrates them in half the runs.
#pragma once

#include <starpu.h>

#include "core/device.h"

namespace parasol::schedulers {

// Records `us`, a run of task's kernel measured on device, in the history of
// device and of every device alike to it.
void record_measurement(starpu_task* task, const core::Device& device, double us);

}  // namespace parasol::schedulers
