// Work that must not run on the thread that triggers it.
//
// The last reference to a buffer can drop inside a StarPU callback, where
// unregistering its data handle (a blocking StarPU call) would deadlock. Such
// teardown runs on one background thread instead, in order.
#pragma once

#include <functional>

namespace parasol::backend {

void defer_release(std::function<void()> work);
// Runs everything deferred so far (at shutdown, before StarPU stops).
void drain_deferred_releases();

// A command whose dependencies completed inside a vendor's completion
// callback, where vendor calls are undefined, is launched on another thread
// (its own: never behind a release that may block), so it may still go to
// its vendor directly.
void defer_launch(std::function<void()> launch);
// Marks this thread as running a vendor's completion callback while alive;
// may_call_vendors_here() is false there.
class InVendorCallback {
 public:
  InVendorCallback();
  ~InVendorCallback();
  InVendorCallback(const InVendorCallback&) = delete;
  InVendorCallback& operator=(const InVendorCallback&) = delete;
};
bool may_call_vendors_here();

// A split launch (runtime/split_launch.h) runs on a thread of its own,
// which waits for StarPU to bring its data to main RAM and for the devices
// to run their parts: never behind a launch or release of the others.
void defer_split_launch(std::function<void()> launch);

// A command launched on a StarPU thread whose direct path needed to take a
// lease, which blocks on StarPU (not allowed there), is launched again on a
// thread of its own that may (runtime/direct_launch.h: take_lease_wait_needed).
void defer_launch_taking_leases(std::function<void()> launch);

}  // namespace parasol::backend
