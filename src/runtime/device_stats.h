// Per-device counters: commands run, time busy running them, bytes moved in
// and out (StarPU's bus profiling, plus the host transfers vendors did on
// the direct path), read through the clGetDeviceStatsPARASOL extension and
// printed at exit when PARASOL_STATS=1; and how commands reached the device
// (direct commands by the way they went and their lane, waits across lanes,
// what the vendor refused or failed), read through clGetDevicePathsPARASOL.
// Both reset together (clResetDeviceStatsPARASOL).
#pragma once

#include <CL/cl_parasol.h>

#include <atomic>
#include <cstddef>
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

// How a direct command went to its vendor (cl_parasol_device_paths).
enum class DirectPath : unsigned { WithCommand, WithoutCommand, Record };
// What else the paths count, per device.
enum class PathEvent : unsigned { Task, VendorRefusal, VendorFailure, FailedDrain };

namespace detail {
// One cache line per lane: lanes are there for commands enqueued side by
// side, from several threads.
struct alignas(64) LanePathCounts {
  std::atomic<std::uint64_t> by_path[3]{};
};
struct DevicePathCounts {
  LanePathCounts lanes[CL_PARASOL_MAX_LANES];
  alignas(64) std::atomic<std::uint64_t> cross_lane_waits{0};
  std::atomic<std::uint64_t> by_event[4]{};
};
// Per StarPU worker (STARPU_NMAXWORKERS). Never destroyed: a lane's waiter
// may still end commands at exit.
extern DevicePathCounts* const g_path_counts;
}  // namespace detail

// Counted where the direct path decides, on its hot paths: one relaxed
// increment each, no lock, no call. cross_lane_waits: how many events of
// the device's other lanes the command waits for on the vendor.
inline void count_direct(const backend::VendorWorker& worker, unsigned lane, DirectPath path,
                         std::size_t cross_lane_waits = 0) {
  detail::DevicePathCounts& c = detail::g_path_counts[worker.worker_id];
  c.lanes[lane].by_path[static_cast<unsigned>(path)].fetch_add(1, std::memory_order_relaxed);
  if (cross_lane_waits) c.cross_lane_waits.fetch_add(1, std::memory_order_relaxed);
}
inline void count_path_event(const backend::VendorWorker& worker, PathEvent what) {
  detail::g_path_counts[worker.worker_id].by_event[static_cast<unsigned>(what)].fetch_add(
      1, std::memory_order_relaxed);
}
cl_parasol_device_paths device_paths(const backend::VendorWorker& worker);

}  // namespace parasol::runtime
