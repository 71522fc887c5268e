#include "runtime/direct_launch.h"

#include <starpu.h>

#include <cstdlib>

#include "runtime/vendor_lock.h"
#include "util/callback_scope.h"

namespace parasol::runtime {

bool direct_path_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("PARASOL_DIRECT");
    return !(v && *v == '0');
  }();
  return on;
}

bool direct_capable(const core::Device& device) {
  return !device.is_native() && vendor_is_thread_safe(device.worker().platform);
}

bool may_wait_for_starpu() { return starpu_worker_get_id() < 0 && !CallbackScope::active(); }

bool dependencies_allow(const core::Device& device, std::span<core::Event* const> deps) {
  for (core::Event* e : deps) {
    cl_int s = e->status();
    if (s == CL_COMPLETE) continue;
    if (s < 0 || !e->queued_direct_on(&device)) return false;
  }
  return true;
}

}  // namespace parasol::runtime
