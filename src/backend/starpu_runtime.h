// Starting and stopping StarPU, and what it found: the StarPU side of device
// discovery.
//
// StarPU's OpenCL driver enumerates devices through the ICD loader, so it sees
// Parasol's own platform too. While StarPU starts, Parasol's platform must
// report no device (see discovering()), and StarPU is started lazily, on the
// first device query, never while the loader loads Parasol.
#pragma once

#include <CL/cl.h>

#include <functional>
#include <string>
#include <vector>

#include "backend/vendor_traits.h"

namespace parasol::backend {

// One StarPU OpenCL worker: a vendor device with the context and queue
// StarPU made for it.
struct VendorWorker {
  int worker_id = -1;   // StarPU worker id
  int devid = -1;       // StarPU OpenCL device id
  unsigned memory_node = 0;
  cl_device_id device = nullptr;
  cl_platform_id platform = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  VendorTraits traits;
};

// What the layers above do at the process's exit, as StarPU shuts down
// (runtime/backend_hooks.cpp sets them): each may be null.
struct ShutdownHooks {
  void (*while_running)() = nullptr;  // first, StarPU still running: data lent to vendors comes back
  void (*before_stop)() = nullptr;    // deferred releases done, before starpu_shutdown
  void (*after_stop)() = nullptr;     // after StarPU stopped: every task callback has run
};

class StarpuRuntime {
 public:
  static void set_shutdown_hooks(const ShutdownHooks& hooks);
  // Starts StarPU on first use; nullptr if it could not start (logged).
  static StarpuRuntime* get();
  // True while StarPU is starting: the recursion guard of device discovery.
  static bool discovering();
  // False before StarPU started and after it shut down (at exit): objects
  // released that late leave their StarPU resources to the process's end.
  static bool running();
  // Runs fn if StarPU is running, and never while it shuts down: for
  // StarPU calls that may come from another thread during the process's exit
  // (deferred releases: a command ended by the waiter lets go of its
  // buffers and context then). Whether fn ran.
  static bool while_running(const std::function<void()>& fn);

  const std::vector<VendorWorker>& vendor_workers() const { return vendor_workers_; }
  const VendorWorker* worker_for_devid(int devid) const;
  // The StarPU CPU worker of the native CPU device, or -1 when there is none.
  int native_worker() const { return native_worker_; }

 private:
  StarpuRuntime() = default;
  bool start();
  static void shutdown_at_exit();

  std::vector<VendorWorker> vendor_workers_;
  int native_worker_ = -1;
};

}  // namespace parasol::backend
