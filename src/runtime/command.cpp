#include "runtime/command.h"

#include "backend/deferred_release.h"
#include "runtime/direct_launch.h"

namespace parasol::runtime {

void Command::launch(core::Event& event) {
  // Refused at enqueue because a dependency was a StarPU task or a user
  // event, it may go direct now; else it would go through StarPU, and so
  // would every command enqueued behind it meanwhile.
  if (!refused_when_ready_) {
    take_lease_wait_needed();  // a note left by an earlier attempt here
    if (launch_direct(event, {}, {})) return;
    // On a StarPU thread, which may not wait for a lease: a thread of its
    // own may.
    if (take_lease_wait_needed()) {
      backend::defer_launch_taking_leases(
          [self = core::Ref<core::Event>(&event), this] { launch(*self); });
      return;
    }
  }
  launch_task(event);
}

}  // namespace parasol::runtime
