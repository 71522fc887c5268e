// Data leases: the direct launch path's hold on buffers resident on a device.
//
// A command sent straight to a device's vendor queue (runtime/direct_launch)
// needs its buffers valid on that device and untouched by StarPU while the
// vendor runs it. A lease is a StarPU acquisition of the buffer's handle on
// the device's memory node, kept across commands: the first direct command
// pays for the acquisition (and the transfer, if any), the following ones
// reuse the device copy as the vendor's own buffer, at the vendor's cost.
//
// Anything else that touches the data (a StarPU task, a host command) first
// claims it (DataClaim): the leases its access conflicts with are given
// back to StarPU once the vendor commands that used them have completed, on
// the deferred-release thread, so the claiming command simply waits for the
// data in StarPU's own arbitration; and no conflicting lease is taken until
// the claim ends. The buffer's release gives every lease back. Read leases
// of several devices coexist; a write lease is exclusive. A lease taker
// never waits on a lease another taker got meanwhile: whoever's acquisition
// raced a conflicting want gives its lease back at once.
//
// Leases pin memory StarPU cannot evict: the bytes leased on a device are
// capped (half of what StarPU may use there); going past the cap recalls the
// device's other leases first.
#pragma once

#include <CL/cl.h>
#include <starpu.h>

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "util/small_vector.h"

namespace parasol::core {
class Device;
}

namespace parasol::runtime {

// Moves (from 1 up) whenever a lease is given back, before StarPU may free or
// move its device copy. While it has not moved, every lease held when it was
// read is still held, with the same vendor buffer: a launch that reads it
// after pinning its leases may take a vendor kernel's buffer argument set
// under the same value as still naming the same buffer
// (VendorArgValues::set_buffer()).
extern std::atomic<std::uint64_t> g_lease_epoch;
inline std::uint64_t lease_epoch() { return g_lease_epoch.load(std::memory_order_acquire); }

struct Lease;
class RememberedLeases;
// Every direct command pins a list of leases, in place for the usual few. A
// pin keeps its lease alive: the table holds it, and once recalled while
// pinned the lease holds itself until its last unpin (data_leases.cpp).
using PinnedLeases = SmallVector<Lease*, 4>;

// One direct command's hold on its buffers' leases, from before its vendor
// enqueue to after it (a recall meanwhile waits for the vendor command).
class LeasePins {
 public:
  LeasePins() = default;
  LeasePins(const LeasePins&) = delete;
  LeasePins& operator=(const LeasePins&) = delete;
  ~LeasePins() {  // unpins without a vendor command (launch not made)
    if (!leases_.empty()) unused();
  }

  // The device copy of the i-th handle pinned (its StarPU interface).
  void* interface(std::size_t i) const;
  // Every handle's, in the order pinned: the buffers[] a launch's execute()
  // takes, valid until the pins are let go (used_on(), unused()).
  void** interfaces() { return interfaces_.data(); }
  // The vendor command that uses the leases went to that lane of their
  // device (with or without a vendor event of its own): giving the leases
  // back then waits for a marker behind it there. Unpins them.
  void used_on(unsigned lane) { unpin(1u << lane); }
  // No vendor command was enqueued: unpins them.
  void unused() { unpin(0); }

 private:
  friend class DataLeases;
  friend class RememberedLeases;
  // lanes: where a vendor command used the leases (a bit each; 0: none).
  void unpin(unsigned lanes);
  // Pins found (one lease per handle, all on node), under the table's lock.
  void hold(const PinnedLeases& found, std::span<const starpu_data_handle_t> handles,
            unsigned node);
  // One lease pinned without the table (its device copy's interface known).
  void hold_remembered(Lease& lease, void* interface);
  PinnedLeases leases_;
  SmallVector<void*, 8> interfaces_;
};

// A StarPU task's or host command's hold on its handles, from before it asks
// StarPU for them until it gave them back: no lease is taken meanwhile in a
// mode conflicting with it. StarPU grants a task its handles one at a time;
// a lease taken between the claim and that grant could hold a handle the
// task waits for while the lease's taker waits for one the task already
// holds. Released explicitly (release()) when StarPU's use ends, or at
// destruction.
class DataClaim {
 public:
  DataClaim() = default;
  DataClaim(DataClaim&& o) noexcept
      : handles_(std::move(o.handles_)), modes_(std::move(o.modes_)) {}
  DataClaim& operator=(DataClaim&& o) noexcept;
  ~DataClaim() { release(); }
  void release();

 private:
  friend class DataLeases;
  std::vector<starpu_data_handle_t> handles_;
  std::vector<starpu_data_access_mode> modes_;
};

class DataLeases {
 public:
  static DataLeases& instance();

  // Pins leases covering every handle in its mode on device (taking the
  // missing ones; that blocks this thread while StarPU brings the data).
  // False when they cannot be had now (a claim or another taker conflicts
  // with a missing one; one came while StarPU brought it, so it went back):
  // the caller takes StarPU's path.
  // may_block: false where this thread must not wait on StarPU (its
  // callbacks); then only leases already held are used.
  bool pin(const core::Device& device, std::span<const starpu_data_handle_t> handles,
           std::span<const starpu_data_access_mode> modes, bool may_block, LeasePins& out);
  // Pins only leases already held (host reads and writes of resident data).
  bool pin_held(const core::Device& device, starpu_data_handle_t handle,
                starpu_data_access_mode mode, LeasePins& out);

  // Before StarPU is asked for these handles (a task, a host command's
  // acquisitions): gives back the leases the accesses conflict with and
  // keeps conflicting ones from being taken until the claim is released.
  DataClaim claim(std::span<const starpu_data_handle_t> handles,
                  std::span<const starpu_data_access_mode> modes);
  // Before the handle is unregistered: gives back all of its leases (their
  // give-back runs on the deferred thread, before the unregistration).
  void forget(starpu_data_handle_t handle);
  // At shutdown: gives back every lease.
  void recall_everything();

  // The device holding a lease on every handle in a mode that covers it,
  // with those leases pinned in out (one look at the table: a host
  // transfer's whole lease work when they are held); else null.
  const core::Device* pin_holder(std::span<const starpu_data_handle_t> handles,
                                 std::span<const starpu_data_access_mode> modes, LeasePins& out);
};

}  // namespace parasol::runtime
