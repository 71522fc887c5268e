// Data leases: the direct launch path's hold on buffers resident on a device.
//
// A command sent straight to a device's vendor queue (runtime/direct_launch)
// needs its buffers valid on that device and untouched by StarPU while the
// vendor runs it. A lease is a StarPU acquisition of the buffer's handle on
// the device's memory node, kept across commands: the first direct command
// pays for the acquisition (and the transfer, if any), the following ones
// reuse the device copy as the vendor's own buffer, at the vendor's cost.
//
// Anything else that touches the data (a StarPU task, a host command, the
// buffer's release) first recalls the leases its access conflicts with:
// each is given back to StarPU once the vendor commands that used it have
// completed, on the deferred-release thread, so the recalling command simply
// waits for the data in StarPU's own arbitration. Read leases of several
// devices coexist; a write lease is exclusive.
//
// Leases pin memory StarPU cannot evict: the bytes leased on a device are
// capped (half of what StarPU may use there); going past the cap recalls the
// device's other leases first.
#pragma once

#include <CL/cl.h>
#include <starpu.h>

#include <memory>
#include <vector>

namespace parasol::core {
class Device;
}

namespace parasol::runtime {

struct Lease;

// One direct command's hold on its buffers' leases, from before its vendor
// enqueue to after it (a recall meanwhile waits for the vendor command).
class LeasePins {
 public:
  LeasePins() = default;
  LeasePins(const LeasePins&) = delete;
  LeasePins& operator=(const LeasePins&) = delete;
  ~LeasePins();  // unpins without a vendor command (launch not made)

  // The device copy of the i-th handle pinned (its StarPU interface).
  void* interface(std::size_t i) const;
  // The vendor command that uses the leases (null: none was enqueued);
  // unpins them.
  void used_by(cl_event done);

 private:
  friend class DataLeases;
  std::vector<std::shared_ptr<Lease>> leases_;
  std::vector<void*> interfaces_;
};

class DataLeases {
 public:
  static DataLeases& instance();

  // Pins leases covering every handle in its mode on device (taking the
  // missing ones; that blocks this thread while StarPU brings the data).
  // False when they cannot be had now: the caller takes StarPU's path.
  // may_block: false where this thread must not wait on StarPU (its
  // callbacks); then only leases already held are used.
  bool pin(const core::Device& device, const std::vector<starpu_data_handle_t>& handles,
           const std::vector<starpu_data_access_mode>& modes, bool may_block, LeasePins& out);
  // Pins only leases already held (host reads and writes of resident data).
  bool pin_held(const core::Device& device, starpu_data_handle_t handle,
                starpu_data_access_mode mode, LeasePins& out);

  // Before an access to handle in mode by anything but a direct command:
  // gives back the leases it conflicts with.
  void recall(starpu_data_handle_t handle, starpu_data_access_mode mode);
  // Before the handle is unregistered: gives back all of its leases (their
  // give-back runs on the deferred thread, before the unregistration).
  void forget(starpu_data_handle_t handle);
  // At shutdown: gives back every lease.
  void recall_everything();

  // The device holding a lease on every handle in a mode that covers it, or
  // null (context queues place resident commands there).
  const core::Device* holder_of_all(const std::vector<starpu_data_handle_t>& handles,
                                    const std::vector<starpu_data_access_mode>& modes);
};

}  // namespace parasol::runtime
