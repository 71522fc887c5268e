// What Parasol must know of a device beyond what the API reports: for a
// vendor's, decided here once per platform or device from the vendor's
// identity (the one place that looks at platform names and versions); for
// the native device, native::native_traits() (device_backend.h).
#pragma once

#include <CL/cl.h>

namespace parasol::backend {

struct VendorTraits {
  // The runtime takes calls from any thread at once, as OpenCL requires.
  // Oclgrind's does not (its reference counts and LLVM state are
  // unprotected: Oclgrind issue #28); Parasol serialises calls into it
  // (vendor_lock.h).
  bool thread_safe = true;
  // A command that fails while running fails the later events of its
  // in-order queue too, or nothing Parasol enqueues can fail while running.
  // A later event then proves earlier commands done with their true status,
  // so most direct commands go without a vendor event of their own
  // (direct_launch.h, DirectSlot). Holds on NVIDIA (CUDA's execution errors
  // are sticky: every later command and marker fails as well) and on PoCL's
  // CPU devices of releases 3 to 6 (see vendor_traits.cpp). Elsewhere a
  // failed command may be followed by successful ones, whose events would
  // hide its failure.
  bool later_events_carry_failures = false;
  // The direct path may send its commands straight to the device's vendor
  // queues (runtime/direct_launch.h): a vendor's device whose runtime is
  // thread-safe. Not the native device, whose kernels StarPU's CPU worker
  // runs.
  bool direct_launch = true;
  // Its memory is apart from main RAM: data is there only once moved. The
  // native device's memory is main RAM.
  bool own_memory = true;
  // Runs clEnqueueNativeKernel's host functions: the native device alone.
  bool runs_host_functions = false;
};

// The traits of a platform's runtime (thread_safe).
VendorTraits platform_traits(cl_platform_id platform);
// A device's: its platform's, and those of the device itself.
VendorTraits device_traits(cl_platform_id platform, cl_device_id device);

}  // namespace parasol::backend
