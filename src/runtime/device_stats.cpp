#include "runtime/device_stats.h"

#include <starpu.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

#include "core/platform.h"
#include "runtime/direct_launch.h"

namespace parasol::runtime {

static_assert(kMaxLanes == CL_PARASOL_MAX_LANES, "a lane without its own path counts");

detail::DevicePathCounts* const detail::g_path_counts =
    new detail::DevicePathCounts[STARPU_NMAXWORKERS];

namespace {

struct Counters {
  std::atomic<std::uint64_t> commands{0}, busy_ns{0};
  std::uint64_t bytes_in = 0, bytes_out = 0;  // baselines, under bus_mutex
};

std::array<Counters, STARPU_NMAXWORKERS>& counters() {
  static std::array<Counters, STARPU_NMAXWORKERS> c;
  return c;
}

std::mutex bus_mutex;  // reading StarPU's bus counters, and the per-worker baselines
// Added to by every direct transfer (no lock: one per command would be
// most of what a record's accounting costs).
std::array<std::atomic<std::uint64_t>, STARPU_MAXNODES> node_in{}, node_out{};

// StarPU's bus counters reset when read: fold them into Parasol's totals.
void collect_bus_traffic() {
  int buses = starpu_bus_get_count();
  for (int b = 0; b < buses; ++b) {
    starpu_profiling_bus_info info{};
    if (starpu_bus_get_profiling_info(b, &info) != 0) continue;
    auto bytes = static_cast<std::uint64_t>(info.transferred_bytes);
    node_out[starpu_bus_get_src(b)].fetch_add(bytes, std::memory_order_relaxed);
    node_in[starpu_bus_get_dst(b)].fetch_add(bytes, std::memory_order_relaxed);
  }
}

}  // namespace

void record_command(int worker_id, std::uint64_t busy_ns) {
  if (worker_id < 0 || worker_id >= STARPU_NMAXWORKERS) return;
  auto& c = counters()[worker_id];
  c.commands.fetch_add(1, std::memory_order_relaxed);
  c.busy_ns.fetch_add(busy_ns, std::memory_order_relaxed);
}

void record_host_transfer(const backend::VendorWorker& w, std::uint64_t bytes, bool to_device) {
  (to_device ? node_in : node_out)[w.memory_node].fetch_add(bytes, std::memory_order_relaxed);
}

cl_parasol_device_stats device_stats(const backend::VendorWorker& w) {
  if (w.worker_id < 0) return {};  // another rank's device: nothing ran here
  std::lock_guard lock(bus_mutex);
  collect_bus_traffic();
  auto& c = counters()[w.worker_id];
  cl_parasol_device_stats s{};
  s.commands = c.commands.load();
  s.busy_ns = c.busy_ns.load();
  s.bytes_in = node_in[w.memory_node].load(std::memory_order_relaxed) - c.bytes_in;
  s.bytes_out = node_out[w.memory_node].load(std::memory_order_relaxed) - c.bytes_out;
  return s;
}

void reset_device_stats(const backend::VendorWorker& w) {
  if (w.worker_id < 0) return;  // another rank's device: nothing ran here
  std::lock_guard lock(bus_mutex);
  collect_bus_traffic();
  auto& c = counters()[w.worker_id];
  c.commands = 0;
  c.busy_ns = 0;
  c.bytes_in = node_in[w.memory_node].load(std::memory_order_relaxed);
  c.bytes_out = node_out[w.memory_node].load(std::memory_order_relaxed);
  detail::DevicePathCounts& p = detail::g_path_counts[w.worker_id];
  for (auto& lane : p.lanes)
    for (auto& n : lane.by_path) n.store(0, std::memory_order_relaxed);
  p.cross_lane_waits.store(0, std::memory_order_relaxed);
  for (auto& n : p.by_event) n.store(0, std::memory_order_relaxed);
}

cl_parasol_device_paths device_paths(const backend::VendorWorker& w) {
  if (w.worker_id < 0) return {};  // another rank's device: nothing ran here
  const detail::DevicePathCounts& c = detail::g_path_counts[w.worker_id];
  auto read = [](const std::atomic<std::uint64_t>& n) { return n.load(std::memory_order_relaxed); };
  cl_parasol_device_paths p{};
  for (unsigned i = 0; i < CL_PARASOL_MAX_LANES; ++i) {
    const auto& by_path = c.lanes[i].by_path;
    const std::uint64_t with = read(by_path[static_cast<unsigned>(DirectPath::WithCommand)]),
                        without = read(by_path[static_cast<unsigned>(DirectPath::WithoutCommand)]),
                        records = read(by_path[static_cast<unsigned>(DirectPath::Record)]);
    p.direct_with_command += with;
    p.direct_without_command += without;
    p.records += records;
    p.lane_commands[i] = with + without + records;
  }
  p.cross_lane_waits = read(c.cross_lane_waits);
  p.tasks = read(c.by_event[static_cast<unsigned>(PathEvent::Task)]);
  p.vendor_refusals = read(c.by_event[static_cast<unsigned>(PathEvent::VendorRefusal)]);
  p.vendor_failures = read(c.by_event[static_cast<unsigned>(PathEvent::VendorFailure)]);
  p.failed_drains = read(c.by_event[static_cast<unsigned>(PathEvent::FailedDrain)]);
  return p;
}

void print_device_stats() {
  for (core::Device* d : core::Platform::instance().devices()) {
    auto s = device_stats(d->worker());
    std::fprintf(stderr,
                 "[parasol] stats: %s (%s): %llu commands, %.3f s busy, %.3f MB in, %.3f MB out\n",
                 d->name().c_str(), d->vendor_platform_name().c_str(),
                 static_cast<unsigned long long>(s.commands), s.busy_ns * 1e-9,
                 s.bytes_in / 1e6, s.bytes_out / 1e6);
  }
}

}  // namespace parasol::runtime
