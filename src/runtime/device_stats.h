// Per-device counters: commands run, time busy running them, bytes moved in
// and out (StarPU's bus profiling, plus the host transfers vendors did on
// the direct path). Read through the
// clGetDeviceStatsPARASOL extension; printed at exit when PARASOL_STATS=1.
#pragma once

#include <CL/cl_parasol.h>

#include <cstdint>

#include "backend/starpu_runtime.h"

namespace parasol::runtime {

void record_command(int worker_id, std::uint64_t busy_ns);
// A read or write between the host and the device's memory that StarPU did
// not see (the direct launch path).
void record_host_transfer(const backend::VendorWorker& worker, std::uint64_t bytes, bool to_device);
cl_parasol_device_stats device_stats(const backend::VendorWorker& worker);
void reset_device_stats(const backend::VendorWorker& worker);
// One line per device on stderr (PARASOL_STATS=1 at exit).
void print_device_stats();

}  // namespace parasol::runtime
