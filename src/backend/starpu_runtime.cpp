#include "backend/starpu_runtime.h"

#include <starpu.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "backend/cluster.h"
#include "backend/deferred_release.h"
#include "backend/native/native_compiler.h"
#include "backend/vendor_lock.h"
#include "backend/vendor_traits.h"
#include "backend/worker_parking.h"
#include "util/error_name.h"
#include "util/log.h"
#include "util/settings.h"

namespace parasol::backend {
namespace {

std::atomic<bool> g_discovering{false};
std::atomic<bool> g_running{false};
// Held by while_running()'s calls and by the shutdown while it marks StarPU
// stopped: a release on another thread either ends before starpu_shutdown
// begins or sees StarPU stopped (a check alone could pass just before).
std::mutex g_stopping;
// Set before StarPU starts (static initialisation of the runtime layer).
ShutdownHooks g_shutdown_hooks;

// Parasol's defaults for StarPU; a user's own STARPU_* settings win.
void set_default_environment() {
  setenv("STARPU_OPENCL_ON_CPUS", "1", 0);  // PoCL and other CPU OpenCL devices count
  // Vendor devices run on OpenCL workers; the native CPU device is one CPU
  // worker whose launches spread over every core (backend/native/).
  setenv("STARPU_NCPU", native::available() ? "1" : "0", 0);
  setenv("STARPU_SILENT", "1", 0);
  // Vendors run their own threads; pinning StarPU's driver threads on top of
  // them only fights the vendor's placement.
  setenv("STARPU_WORKERS_NOBIND", "1", 0);
  // Keep measuring and save the models at exit. StarPU 1.3 saves them only
  // while its calibrate flag is set; it raises the flag itself when it meets
  // an uncalibrated model, but every scheduling context created afterwards
  // (one per Parasol context with a context queue) resets it to this
  // setting: without it, a program that creates a second context loses its
  // measurements.
  setenv("STARPU_CALIBRATE", "1", 0);
  // Models count as calibrated after 3 measurements per (kernel, device,
  // launch shape), StarPU's default being 10: until then every such command
  // goes through StarPU, and a kernel launched once per step (nbody's
  // update) takes that path, with the kernels behind it, for as many steps.
  // The models keep learning from every StarPU command after that.
  setenv("STARPU_CALIBRATE_MINIMUM", "3", 0);
  // StarPU flushes a history entry once as many of its measurements fell
  // outside +-50% of the mean as inside. A short kernel measured through
  // StarPU (its worker's launch and wait included) on a loaded host varies
  // more than that, and one outlier flushes an entry of one or two
  // samples: with 3 measurements required, such a kernel could stay on
  // StarPU's path for dozens of launches. 400% still catches a model wrong
  // by a factor of five.
  setenv("STARPU_HISTORY_MAX_ERROR", "400", 0);
}

std::string platform_name(cl_platform_id p) {
  char name[256] = "";
  clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
  return name;
}

std::string device_name(cl_device_id d) {
  char name[256] = "";
  clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name, nullptr);
  return name;
}

// Says which vendor platforms failed to list their devices, and why each
// vendor device StarPU made no worker for is not a Parasol device. Runs while
// discovering() still holds, so Parasol's own platform answers "no device".
void log_vendors(const std::vector<VendorWorker>& workers) {
  cl_uint n = 0;
  if (cl_int err = clGetPlatformIDs(0, nullptr, &n); err != CL_SUCCESS || n == 0) {
    log::warn("the ICD loader lists no OpenCL platform (", error_name(err), ", ", err,
              "): Parasol has no vendor to re-export");
    return;
  }
  std::vector<cl_platform_id> platforms(n);
  clGetPlatformIDs(n, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    const std::string vendor = platform_name(p);
    if (vendor == "Parasol") continue;
    cl_uint count = 0;
    cl_int err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
    if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && count == 0)) {
      log::info("vendor platform '", vendor, "' has no device");
      continue;
    }
    if (err != CL_SUCCESS) {
      log::warn("vendor platform '", vendor, "' failed to list its devices: ", error_name(err),
                " (", err, "); its devices are left out");
      continue;
    }
    std::vector<cl_device_id> devices(count);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr);
    for (cl_device_id d : devices) {
      bool kept = std::any_of(workers.begin(), workers.end(),
                              [d](const VendorWorker& w) { return w.device == d; });
      if (kept) continue;
      cl_device_type type = 0;
      clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
      const char* nopencl = settings::starpu_nopencl();
      std::string why;
      if ((type & CL_DEVICE_TYPE_CPU) && !settings::starpu_opencl_on_cpus())
        why = "a CPU device while STARPU_OPENCL_ON_CPUS is 0";
      else if (nopencl)
        why = std::string("STARPU_NOPENCL=") + nopencl + " limits StarPU's OpenCL devices";
      else
        why = "see STARPU_OPENCL_ONLY_ON_CPUS and StarPU's limit of " +
              std::to_string(STARPU_MAXOPENCLDEVS) + " OpenCL devices";
      log::info("vendor device ", device_name(d), " [", vendor,
                "] left out: StarPU made no OpenCL worker for it (", why, ")");
    }
  }
}

}  // namespace

bool StarpuRuntime::discovering() { return g_discovering.load(std::memory_order_acquire); }
bool StarpuRuntime::running() { return g_running.load(std::memory_order_acquire); }

bool StarpuRuntime::while_running(const std::function<void()>& fn) {
  std::lock_guard lock(g_stopping);
  if (!running()) return false;
  fn();
  return true;
}

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
  if (rc != 0) {
    g_discovering.store(false, std::memory_order_release);
    log::error("StarPU failed to start (starpu_init returned ", rc,
               "); Parasol reports no devices");
    return false;
  }
  g_running.store(true);
  // Bus profiling feeds the per-device byte counters (clGetDeviceStatsPARASOL).
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  start_worker_parking();
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
    if (cl_int err = clGetDeviceInfo(vw.device, CL_DEVICE_PLATFORM, sizeof vw.platform,
                                     &vw.platform, nullptr);
        err != CL_SUCCESS) {
      log::warn("StarPU OpenCL worker ", w, " (device '", device_name(vw.device),
                "') left out: its vendor cannot name the device's platform (",
                error_name(err), ", ", err, ")");
      continue;
    }
    vw.traits = device_traits(vw.platform, vw.device);
    vendor_workers_.push_back(vw);
  }
  if (log::enabled(log::Level::Warn)) log_vendors(vendor_workers_);
  g_discovering.store(false, std::memory_order_release);
  log::info("StarPU started with ", nworkers, " workers, ", vendor_workers_.size(),
            " of them vendor OpenCL devices");
  return true;
}

const VendorWorker* StarpuRuntime::worker_for_devid(int devid) const {
  for (const auto& w : vendor_workers_)
    if (w.devid == devid) return &w;
  return nullptr;
}

void StarpuRuntime::set_shutdown_hooks(const ShutdownHooks& hooks) { g_shutdown_hooks = hooks; }

void StarpuRuntime::shutdown_at_exit() {
  const ShutdownHooks hooks = g_shutdown_hooks;
  if (hooks.while_running) hooks.while_running();
  drain_deferred_releases();
  bool was_running;
  {
    std::lock_guard lock(g_stopping);  // after a release in progress elsewhere
    was_running = g_running.exchange(false);
  }
  if (was_running) {
    if (hooks.before_stop) hooks.before_stop();
    stop_cluster_commands();  // StarPU-MPI ends before StarPU
    stop_worker_parking();
    starpu_shutdown();
  }
  if (hooks.after_stop) hooks.after_stop();
}

}  // namespace parasol::backend
