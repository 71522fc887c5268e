// What the runtime layer plugs into the layers below it, which cannot call
// up: core's events make direct commands progress through the direct path;
// when a buffer's storage goes, its leases forget it; at the process's exit,
// initial placements end and leased data comes back while StarPU runs, the
// lanes stop before StarPU does, and the stats and the trace are written
// after it stopped.
#include <starpu.h>

#include "backend/buffer_storage.h"
#include "backend/starpu_runtime.h"
#include "core/event.h"
#include "runtime/data_leases.h"
#include "runtime/device_stats.h"
#include "runtime/direct_launch.h"
#include "runtime/initial_placement.h"
#include "runtime/lane.h"
#include "runtime/trace.h"
#include "util/settings.h"

namespace parasol::runtime {
namespace {

void forget_leases(starpu_data_handle_t handle) { DataLeases::instance().forget(handle); }

void recall_leases() {
  wait_for_initial_placements();
  DataLeases::instance().recall_everything();
}

void before_starpu_stops() {
  if (settings::stats()) print_device_stats();
  release_lanes();
}

// Static initialisation: the hooks are in place before StarPU starts or any
// event or buffer exists (all wait for the first OpenCL call).
const bool kInstalled = [] {
  core::Event::set_direct_progress(&direct_progress);
  backend::BufferStorage::set_release_hook(&forget_leases);
  backend::StarpuRuntime::set_shutdown_hooks({&recall_leases, &before_starpu_stops, &trace::write_file});
  return true;
}();

}  // namespace
}  // namespace parasol::runtime
