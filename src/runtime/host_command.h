// A command the host performs on buffers' main-RAM copies (read, write, copy,
// fill, map, unmap): StarPU first brings each buffer's valid data to main
// RAM (acquire), the body runs, then the buffers are released.
#pragma once

#include <starpu.h>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "backend/worker_parking.h"
#include "core/buffer.h"
#include "core/event.h"
#include "runtime/command.h"
#include "runtime/data_leases.h"
#include "runtime/direct_launch.h"
#include "util/small_vector.h"

namespace parasol::runtime {

// A view: whoever keeps the access keeps its buffer (a HostCommand holds
// references; a record, sent within its API call, needs none).
struct HostAccess {
  core::Buffer* buffer;
  starpu_data_access_mode mode;  // STARPU_R, STARPU_W (whole overwrite) or STARPU_RW
};
// In place for the usual one or two (a command's object is made on the
// enqueuing thread and freed where it completes).
using HostAccesses = SmallVector<HostAccess, 2>;

// A box in a byte array: its origin (bytes, rows, slices) and pitches.
struct RectRegion {
  std::size_t origin[3];
  std::size_t row_pitch, slice_pitch;
};

// The boxes of a *Rect command: in the (first) buffer's window, in the other
// side (the host's memory, or the destination buffer's window), and their
// size (bytes, rows, slices).
struct VendorRect {
  RectRegion buffer, other;
  std::size_t region[3];
};

// The same command done by a vendor, on the direct path: a read or write of
// the command's one buffer, [offset, offset + size) of its window, from or
// to host; a copy from the first buffer's window at offset to the second's
// at dst_offset; a fill of the window with host's pattern_size bytes; or
// the *Rect forms of read, write and copy, whose boxes rect gives (size:
// the bytes they move).
struct VendorTransfer {
  enum class Kind { Read, Write, Copy, Fill, ReadRect, WriteRect, CopyRect } kind;
  std::size_t offset, size;
  void* host = nullptr;         // Read, Write, ReadRect, WriteRect; Fill: the pattern
  std::size_t dst_offset = 0;   // Copy
  std::size_t pattern_size = 0;  // Fill
  const VendorRect* rect = nullptr;  // *Rect
  // host's memory where the command owns it (a map's staging), not the
  // caller: kept with the form, so the transfer never goes without a
  // command object to keep it until the vendor is done with it
  // (DirectTransfer::record()).
  std::shared_ptr<const void> owned_host = nullptr;
};

// A read, write or copy done by the vendor of a device that holds its
// buffers (data leases), on the direct launch path: with an event
// (HostCommand::launch_direct()) or as a record, without one (record()). A
// view: the accesses and the form outlive it.
struct DirectTransfer {
  std::span<const HostAccess> accesses;
  const VendorTransfer& form;

  // Sends it to the device already holding leases on its buffers, without
  // a Parasol event or command object (core::CommandQueue::try_record()):
  // the device, or null if it needs an event. No new lease: taking one may
  // block, and the queue's lock is held. blocking (up to
  // kVendorBlockingBytes): the vendor's own blocking call, done on return,
  // with every command of its lane before it (*finished: through where, for
  // harvest_through() once the queue's lock is let go); a failure (the
  // call's, or its vendor event's) sends the command the event path, which
  // runs it again and fails its event.
  core::Device* record(const core::CommandQueue& queue, core::Event* previous,
                       const core::Device* tail, bool blocking = false,
                       LaneMark* finished = nullptr) const;
  // Whether a blocking call of this transfer is the vendor's own (else the
  // caller waits on its event).
  bool blocks_in_vendor() const { return form.size <= kVendorBlockingBytes; }
  // With an event (or a wait list, or blocking), the same way when the
  // device holding its buffers can take it after deps
  // (core::CommandQueue::try_record_with_event(), as
  // TaskCommand::try_record_with_event() for a kernel): the event has no
  // command object and completes from the device's lane. named: the wait
  // list. blocking: the caller waits for the event next; up to
  // kVendorBlockingBytes, the vendor's own blocking call does the waiting.
  // False: the command takes the full path.
  bool record_with_event(core::Event& event, std::span<core::Event* const> deps,
                         std::span<core::Event* const> named, const core::Device* tail,
                         bool blocking) const;
  // A vendor's own blocking read returns sooner than an enqueue and a wait
  // on its event (NVIDIA: about half the time for small reads; alike from
  // 1 MB on, docs/benchmarks.md). The lane stays held during the call (its
  // order is the vendor's): only transfers whose hold is short (about 0.4
  // ms at most) block there.
  static constexpr std::size_t kVendorBlockingBytes = 4 << 20;

  // Each StarPU handle the accesses name, once, with their modes joined,
  // as the lease table takes them. A transfer names one buffer or two.
  struct LeaseKeys {
    std::array<starpu_data_handle_t, 2> handle_at{};
    std::array<starpu_data_access_mode, 2> mode_at{};
    std::size_t count = 0;
    std::span<const starpu_data_handle_t> handles() const { return {handle_at.data(), count}; }
    std::span<const starpu_data_access_mode> modes() const { return {mode_at.data(), count}; }
  };
  LeaseKeys lease_keys() const;
  // The lease (in lease_keys() order) that access i's buffer is in.
  std::size_t lease_index(std::size_t i) const;
  // The device whose vendor does the transfer: the one holding leases on
  // its buffers (pinned in pins), else, if may_take, the one to take them
  // on (take: still to pin). Null if none.
  core::Device* device(const core::CommandQueue& queue, const LeaseKeys& keys, bool may_take,
                       LeasePins& pins, bool& take) const;
  cl_int enqueue(const LeasePins& pins, const VendorPlace& place, cl_event* done,
                 bool blocking = false) const;

 private:
  // Whether it writes a buffer in the application's memory (USE_HOST_PTR).
  // Applications read that memory after a write without mapping it (the
  // CTS's mem_host_flags does; CPU vendors serve it so), so such a transfer
  // takes no lease: it is done there, in main RAM, unless a device already
  // holds the buffer (a kernel wrote it there; the memory is then current
  // once mapped, as the specification says).
  bool writes_application_memory() const;
  core::Device* lease_target(const core::CommandQueue& queue, starpu_data_handle_t from) const;
  static void on_event_record_done(void* event, cl_int proof_status, std::uint64_t);
};

class HostCommand final : public Command {
 public:
  // body returns the command's status (CL_COMPLETE or a negative error);
  // bytes: what it moves between the host and the buffers (for traces).
  // vendor_form: how a device holding the buffer (data lease) can do it
  // instead, on the direct launch path. A read, write, copy or fill needs no
  // body: its vendor form says what to do on the main-RAM copies too.
  HostCommand(HostAccesses accesses, std::function<cl_int()> body,
              std::size_t bytes = 0, std::optional<VendorTransfer> vendor_form = {});
  // vendor_form_ may point into the object (pattern_, rect_).
  HostCommand(const HostCommand&) = delete;
  HostCommand& operator=(const HostCommand&) = delete;
  bool launch_direct(core::Event& event, std::span<core::Event* const> deps,
                     std::span<core::Event* const> named) override;

 private:
  // StarPU's path: the data acquired in main RAM, the body run on the host.
  void launch_task(core::Event& event) override;
  // StarPU's path only (a direct transfer never needs it).
  void plan_acquires();
  static void on_acquired(void* self);
  void acquire_next();
  cl_int copy_in_main_ram() const;  // the vendor form, done by the host
  static void on_vendor_done(void* self, cl_int status, std::uint64_t);
  DirectTransfer direct() const { return {accesses_, *vendor_form_}; }

  struct Acquire {
    starpu_data_handle_t handle;
    starpu_data_access_mode mode;
  };
  HostAccesses accesses_;
  SmallVector<core::Ref<core::Buffer>, 2> buffers_;  // keeps the accessed buffers alive
  SmallVector<Acquire, 2> acquires_;  // one per distinct handle, sorted
  std::size_t next_ = 0;
  DataClaim claim_;  // while StarPU's path holds the data
  backend::WorkerDemand demand_;  // likewise: StarPU's workers bring it to main RAM
  std::function<cl_int()> body_;
  std::size_t bytes_;
  std::optional<VendorTransfer> vendor_form_;
  // A fill's pattern, kept here: vendor_form_ points to it (the
  // application's may be gone when the command runs).
  SmallVector<std::byte, 16> pattern_;
  std::optional<VendorRect> rect_;  // likewise for a *Rect command's boxes
  cl_event done_ = nullptr;  // the vendor's transfer, on the direct path
  core::Event* event_ = nullptr;
};

// Copies a 3D region between two byte arrays with their own pitches (the
// *Rect commands; RectRegion above).
void copy_rect(std::byte* dst, const RectRegion& dst_rect, const std::byte* src,
               const RectRegion& src_rect, const std::size_t region[3]);

}  // namespace parasol::runtime
