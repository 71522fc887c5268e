// Alike devices (core::Device::alike: two GPUs of one model) share what is
// measured of a kernel on either.
//
// StarPU keeps one history-based model per device, so two identical GPUs
// learn a kernel apart, each from the few commands it happened to run, and
// their means drift apart with the noise of each measurement: on a host
// with two H100s a saxpy block's model read 33.6 us on one and 4.1 us on
// the other. HEFT then loads the "faster" twin first, and a command whose
// data sits on the "slower" one leaves the direct path for StarPU's
// (runtime/kernel_command.cpp, policy_keeps_on), about 100 us a command in
// a dependent chain there: resident saxpy over both GPUs ran at 0.98x of
// one. Recording every measurement for every twin keeps their models equal
// and calibrates them in half the runs.
#pragma once

#include <starpu.h>

#include "core/device.h"

namespace parasol::schedulers {

// Records `us`, a run of task's kernel measured on device, in the history of
// device and of every device alike to it.
void record_measurement(starpu_task* task, const core::Device& device, double us);

}  // namespace parasol::schedulers
