// The environment variables Parasol reads, each read here and only here, at
// its first use (docs/user-guide.md lists them). The native device's
// compiler reads its own (cache location, diagnostics) in kernels-pass/,
// which builds on its own too (kernels-pass/README.md).
#pragma once

#include <optional>
#include <string>

namespace parasol::settings {

// PARASOL_LOG: the most detailed level printed, 0 error, 1 warn (default),
// 2 info, 3 debug (util/log.h).
int log_level();

// PARASOL_SOCL=1: Parasol answers as StarPU's SOCL 1.3 does where SOCL
// programs look: the platform's name and vendor ("SOCL Platform", "Inria"),
// SOCL's extension function clShutdown, and each program built for a
// device with -DSOCL_DEVICE_TYPE_<GPU|CPU|ACCELERATOR|UNKNOWN> before the
// application's options.
bool socl();

// PARASOL_SCHED: the policy of contexts that name none; empty if unset.
// backend/starpu_policies.h judges it.
const std::string& scheduler();

// PARASOL_DIRECT=0: every command goes through a StarPU task.
bool direct();

// PARASOL_SPLIT=0: no launch is split across devices
// (runtime/split_launch.h).
bool split();

// PARASOL_LANES: vendor queues per device, 1 to max; nullopt (the
// device's default) if unset or out of range (logged).
std::optional<unsigned> lanes(unsigned max);

// PARASOL_PARK_WORKERS=0: StarPU's idle workers keep spinning.
bool park_workers();

// PARASOL_STATS=1: each device's counters printed at exit.
bool stats();

// PARASOL_TRACE: the file a trace of every command is written to at exit;
// empty for none.
const std::string& trace_path();

// PARASOL_NATIVE_DEVICE=0: no native CPU device.
bool native_device();

// PARASOL_NATIVE_THREADS: threads of the native CPU device; nullopt for
// one per hardware thread.
std::optional<unsigned> native_threads();

// PARASOL_DIVIDE_<name>: a knob of the divide-function strategy
// (schedulers/divide_strategy.h); nullopt if unset.
std::optional<double> divide_knob(const char* name);

// Open MPI's place of this process in its job (OMPI_COMM_WORLD_RANK and
// OMPI_COMM_WORLD_SIZE, set by mpirun): size 1 outside mpirun.
struct MpiPlace {
  int rank = 0;
  int size = 1;
};
MpiPlace mpi_place();

// PARASOL_REMOTE_DEVICES=1: rank 0's platform lists the other ranks'
// devices too (backend/cluster.h).
bool remote_devices();

// PARASOL_CLUSTER_TIMEOUT: seconds rank 0 waits at its start for the
// other ranks' device lists (default 60; a rank that has not answered by
// then is left out).
double cluster_timeout_s();

// StarPU's own STARPU_OPENCL_ON_CPUS and STARPU_NOPENCL, read to explain
// why StarPU left a vendor device out.
bool starpu_opencl_on_cpus();
const char* starpu_nopencl();  // null if unset

}  // namespace parasol::settings
