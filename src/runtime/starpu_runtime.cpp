#include "runtime/starpu_runtime.h"

#include <starpu.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "runtime/deferred_release.h"
#include "runtime/native/native_compiler.h"
#include "runtime/device_stats.h"
#include "util/log.h"

namespace parasol::runtime {
namespace {

std::atomic<bool> g_discovering{false};
std::atomic<bool> g_running{false};

// Parasol's defaults for StarPU; a user's own STARPU_* settings win.
void set_default_environment() {
  setenv("STARPU_OPENCL_ON_CPUS", "1", 0);  // PoCL and other CPU OpenCL devices count
  // Vendor devices run on OpenCL workers; the native CPU device is one CPU
  // worker whose launches spread over every core (runtime/native/).
  setenv("STARPU_NCPU", native::available() ? "1" : "0", 0);
  setenv("STARPU_SILENT", "1", 0);
  // Vendors run their own threads; pinning StarPU's driver threads on top of
  // them only fights the vendor's placement.
  setenv("STARPU_WORKERS_NOBIND", "1", 0);
}

}  // namespace

bool StarpuRuntime::discovering() { return g_discovering.load(std::memory_order_acquire); }
bool StarpuRuntime::running() { return g_running.load(std::memory_order_acquire); }

StarpuRuntime* StarpuRuntime::get() {
  static StarpuRuntime* instance = [] () -> StarpuRuntime* {
    static StarpuRuntime runtime;
    return runtime.start() ? &runtime : nullptr;
  }();
  return instance;
}

bool StarpuRuntime::start() {
  set_default_environment();
  struct starpu_conf conf;
  starpu_conf_init(&conf);

  g_discovering.store(true, std::memory_order_release);
  int rc = starpu_init(&conf);
  g_discovering.store(false, std::memory_order_release);
  if (rc != 0) {
    log::error("StarPU failed to start (starpu_init returned ", rc,
               "); Parasol reports no devices");
    return false;
  }
  g_running.store(true);
  // Bus profiling feeds the per-device byte counters (clGetDeviceStatsPARASOL).
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  std::atexit(&StarpuRuntime::shutdown_at_exit);

  const int nworkers = static_cast<int>(starpu_worker_get_count());
  for (int w = 0; w < nworkers; ++w) {
    if (starpu_worker_get_type(w) == STARPU_CPU_WORKER && native_worker_ < 0 &&
        native::available())
      native_worker_ = w;
    if (starpu_worker_get_type(w) != STARPU_OPENCL_WORKER) continue;
    VendorWorker vw;
    vw.worker_id = w;
    vw.devid = starpu_worker_get_devid(w);
    vw.memory_node = starpu_worker_get_memory_node(w);
    starpu_opencl_get_device(vw.devid, &vw.device);
    starpu_opencl_get_context(vw.devid, &vw.context);
    starpu_opencl_get_queue(vw.devid, &vw.queue);
    if (clGetDeviceInfo(vw.device, CL_DEVICE_PLATFORM, sizeof vw.platform, &vw.platform,
                        nullptr) != CL_SUCCESS) {
      log::warn("StarPU OpenCL worker ", w, " has a device without a platform; left out");
      continue;
    }
    vendor_workers_.push_back(vw);
  }
  log::info("StarPU started with ", nworkers, " workers, ", vendor_workers_.size(),
            " of them vendor OpenCL devices");
  return true;
}

const VendorWorker* StarpuRuntime::worker_for_devid(int devid) const {
  for (const auto& w : vendor_workers_)
    if (w.devid == devid) return &w;
  return nullptr;
}

void StarpuRuntime::shutdown_at_exit() {
  drain_deferred_releases();
  if (const char* s = std::getenv("PARASOL_STATS"); s && *s && *s != '0') print_device_stats();
  if (g_running.exchange(false)) starpu_shutdown();
}

}  // namespace parasol::runtime
