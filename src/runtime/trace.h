// PARASOL_TRACE=path.json: a Chrome / Perfetto trace of every command that
// ran ("which device ran what"). One lane per Parasol device and one for the
// host-side transfers; one complete event ("X") per command, named after it
// (the kernel's name, "read buffer", "migrate"...), with its Parasol event
// id, command type, queue kind, bytes moved and failure status as args.
//
// Recording costs one relaxed load when tracing is off: hooks are written
//   if (trace::enabled()) trace::record(...);
// When on, each command appends one record under a mutex (a few per
// millisecond at most: far below contention); the file is written once, at
// exit (StarpuRuntime::shutdown_at_exit), after StarPU has stopped.
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace parasol::core {
class Device;
class Event;
}  // namespace parasol::core

namespace parasol::runtime::trace {

namespace detail {
extern std::atomic<bool> g_enabled;
}

// True when PARASOL_TRACE names a file and it has not been written yet.
inline bool enabled() { return detail::g_enabled.load(std::memory_order_relaxed); }

// One command that ends now, about to complete its event with status
// (CL_COMPLETE or a negative error). Its lane is the device that ran it
// (event.executed_on()), or "host transfers" for work the host did. Its bar
// starts when the device started it (event.time_start()), or for host work
// when it was handed to the host path (event.time_submit(): bringing the
// buffers to main RAM is part of a host transfer). name: the kernel's name,
// or null to name it after its command type. bytes: what it moved (0: none).
void record(const core::Event& event, const char* name, std::size_t bytes, cl_int status);

// One device's part of a split launch (runtime/split_launch.h), on that
// device's lane: from start_ns to end_ns (its transfers and its block of
// groups work-groups), bytes moved in and out: the launch's event has one
// record per part.
void record_part(const core::Event& event, const core::Device& device, const char* name,
                 std::uint64_t start_ns, std::uint64_t end_ns, std::size_t groups,
                 std::size_t bytes, cl_int status);

// Writes the trace file (once; later calls do nothing) and stops recording.
void write_file();

}  // namespace parasol::runtime::trace
