#include "runtime/data_leases.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "backend/deferred_release.h"
#include "backend/vendor_handle.h"
#include "backend/worker_parking.h"
#include "core/device.h"
#include "runtime/direct_launch.h"
#include "runtime/lane.h"
#include "util/log.h"

namespace parasol::runtime {

std::atomic<std::uint64_t> g_lease_epoch{1};

struct Lease {
  starpu_data_handle_t handle;
  const core::Device* device;
  unsigned node;
  starpu_data_access_mode mode;  // STARPU_R or STARPU_RW
  std::size_t bytes;
  // Twice the pins (direct commands between pin and vendor enqueue), plus
  // kRecalled once out of the table (given back when the last pin goes and
  // its uses completed). One word, so a command's unpin needs no lock:
  // whichever of the last unpin and the recall comes second sees the other
  // and gives the lease back.
  std::atomic<unsigned> state{0};
  static constexpr unsigned kRecalled = 1, kPin = 2;
  // The lease itself, from a recall that found it pinned until the last
  // unpin gave it back: pins are plain pointers.
  std::shared_ptr<Lease> keep_alive;
  // The device's lanes where vendor commands used it (a bit each): the
  // give-back waits behind a marker on each. Not their vendor events, even
  // where they have one: retaining and pruning every command's event under
  // the table's lock would cost each command far more than a bit's load. A
  // recall may then wait for later commands of those lanes too; recalls are
  // rare, uses are every command.
  std::atomic<unsigned> used_lanes{0};
};

namespace {

bool covers(starpu_data_access_mode held, starpu_data_access_mode wanted) {
  return (wanted & ~held & STARPU_RW) == 0;
}

bool conflicts(starpu_data_access_mode a, starpu_data_access_mode b) {
  return (a & STARPU_W) || (b & STARPU_W);
}

// Waits until every command enqueued on queue so far has completed: a
// marker's event, else the whole queue.
void wait_behind(cl_command_queue queue) {
  cl_event marker = nullptr;
  if (clEnqueueMarkerWithWaitList(queue, 0, nullptr, &marker) == CL_SUCCESS) {
    clWaitForEvents(1, &marker);
    clReleaseEvent(marker);
  } else {
    clFinish(queue);
  }
}

// Hands the acquisition back to StarPU once every vendor command that used
// it has completed. On the deferred thread: it waits, and a release may run
// StarPU callbacks that must not run under the caller's locks.
void give_back(Lease& lease) {
  g_lease_epoch.fetch_add(1, std::memory_order_acq_rel);  // before the release below
  SmallVector<cl_command_queue, kMaxLanes> behind;
  const unsigned lanes = lease.used_lanes.load(std::memory_order_relaxed);
  for (unsigned i = 0; i < kMaxLanes; ++i)
    if (lanes & (1u << i)) behind.push_back(lane_queue(*lease.device, i));
  backend::defer_release([handle = lease.handle, node = lease.node, behind = std::move(behind)] {
    for (cl_command_queue q : behind) wait_behind(q);
    starpu_data_release_on_node(handle, static_cast<int>(node));
  });
}

}  // namespace

void* LeasePins::interface(std::size_t i) const { return interfaces_[i]; }

void LeasePins::hold(const PinnedLeases& found, std::span<const starpu_data_handle_t> handles,
                     unsigned node) {
  for (std::size_t i = 0; i < handles.size(); ++i) {
    found[i]->state.fetch_add(Lease::kPin, std::memory_order_relaxed);
    interfaces_.push_back(starpu_data_get_interface_on_node(handles[i], node));
  }
  leases_ = found;
}

class LeaseTable {
 public:
  std::mutex mutex;
  struct PerHandle {
    std::vector<std::shared_ptr<Lease>> leases;
    int reading_claims = 0, writing_claims = 0;  // DataClaims held, by mode
    int reading_takers = 0, writing_takers = 0;  // lease takers waiting for StarPU, by mode

    static int& by_mode(starpu_data_access_mode mode, int& reading, int& writing) {
      return (mode & STARPU_W) ? writing : reading;
    }
    int& claims(starpu_data_access_mode mode) {
      return by_mode(mode, reading_claims, writing_claims);
    }
    int& takers(starpu_data_access_mode mode) {
      return by_mode(mode, reading_takers, writing_takers);
    }
    // Someone (a claim; a taker, after the caller's own acquisition) wants
    // the handle in a mode conflicting with a lease in `mode`.
    bool wanted_against(starpu_data_access_mode mode) const {
      return writing_claims > 0 || writing_takers > 0 ||
             ((mode & STARPU_W) && (reading_claims > 0 || reading_takers > 0));
    }
  };
  std::unordered_map<starpu_data_handle_t, PerHandle> handles;
  std::unordered_map<unsigned, std::size_t> leased_bytes;  // per memory node

  // Under mutex. Takes lease out of the table; gives it back now or at unpin.
  void detach(const std::shared_ptr<Lease>& lease) {
    auto& v = handles[lease->handle].leases;
    std::erase(v, lease);
    leased_bytes[lease->node] -= lease->bytes;
    lease->keep_alive = lease;  // before the mark: a last unpin may follow it at once
    if (lease->state.fetch_or(Lease::kRecalled, std::memory_order_acq_rel) == 0) {
      give_back(*lease);
      lease->keep_alive.reset();
    }
  }

  const std::shared_ptr<Lease>* find(starpu_data_handle_t h, unsigned node,
                                     starpu_data_access_mode mode) {
    auto it = handles.find(h);
    if (it == handles.end()) return nullptr;
    for (auto& l : it->second.leases)
      if (l->node == node && covers(l->mode, mode)) return &l;
    return nullptr;
  }
};

static LeaseTable& table() {
  // Never destroyed: leases may be given back during exit.
  static auto* t = new LeaseTable();
  return *t;
}

// The leases this thread last found in the table, a few handles' worth: a
// stream of commands on the same buffers pins them again without the
// table's lock and lookups (a tenth of what Parasol adds to PoCL's own
// 64-byte write). A reference keeps a lease's memory, not its standing:
// only a lease not yet recalled is pinned.
class RememberedLeases {
 public:
  // Pins the leases remembered for every handle, on node (any node, for
  // kAnyNode: the first handle's), covering its mode; else pins none.
  static constexpr unsigned kAnyNode = ~0u;
  const Lease* pin(std::span<const starpu_data_handle_t> handles,
                   std::span<const starpu_data_access_mode> modes, unsigned node,
                   LeasePins& out) {
    const Lease* first = nullptr;
    for (std::size_t i = 0; i < handles.size(); ++i) {
      const Entry& e = entries_[find(handles[i])];
      if (e.handle != handles[i] || !covers(e.lease->mode, modes[i]) ||
          (node != kAnyNode && e.lease->node != node) || !pin_unless_recalled(*e.lease)) {
        out.unused();
        return nullptr;
      }
      out.hold_remembered(*e.lease, e.interface);
      if (!first) first = e.lease.get();
      if (node == kAnyNode) node = first->node;
    }
    return first;
  }
  // Under the table's lock: out's leases were just found for handles.
  void remember(std::span<const starpu_data_handle_t> handles,
                std::span<const std::shared_ptr<Lease>* const> found, const LeasePins& out) {
    for (std::size_t i = 0; i < handles.size(); ++i) {
      std::size_t at = find(handles[i]);
      if (entries_[at].handle != handles[i]) at = next_++ % kEntries;  // the oldest goes
      entries_[at] = {handles[i], *found[i], out.interface(i)};
    }
  }

 private:
  struct Entry {
    starpu_data_handle_t handle = nullptr;
    std::shared_ptr<Lease> lease;
    void* interface = nullptr;
  };
  // The slot remembering h, else 0 (its handle differs). Searched whole,
  // not placed by the handle's address: a stream rotating over a few
  // buffers keeps every one of them (placed by address, two of them often
  // shared a slot and went through the table's lock and lookup).
  std::size_t find(starpu_data_handle_t h) {
    if (entries_[hint_].handle == h) return hint_;  // a stream on one buffer: the last one
    for (std::size_t i = 0; i < kEntries; ++i)
      if (entries_[i].handle == h) return hint_ = i;
    return 0;
  }
  // Against detach()'s mark on the same word: whichever comes second sees
  // the other, so a recall either finds this pin (and leaves the give-back
  // to the last unpin) or this finds the recall (and pins nothing).
  static bool pin_unless_recalled(Lease& lease) {
    unsigned state = lease.state.load(std::memory_order_relaxed);
    while (!(state & Lease::kRecalled))
      if (lease.state.compare_exchange_weak(state, state + Lease::kPin, std::memory_order_acq_rel,
                                            std::memory_order_relaxed))
        return true;
    return false;
  }
  static constexpr std::size_t kEntries = 8;
  std::array<Entry, kEntries> entries_;
  std::size_t next_ = 0;  // the slot remember() fills next with a new handle
  std::size_t hint_ = 0;  // the slot last found
};

namespace {
thread_local RememberedLeases t_remembered;
}  // namespace

void LeasePins::hold_remembered(Lease& lease, void* interface) {
  leases_.push_back(&lease);
  interfaces_.push_back(interface);
}

void LeasePins::unpin(unsigned lanes) {
  for (Lease* l : leases_) {
    if ((l->used_lanes.load(std::memory_order_relaxed) & lanes) != lanes)
      l->used_lanes.fetch_or(lanes, std::memory_order_relaxed);
    // Pins and recalled both went: the recall saw a pin and left the
    // give-back, and the lease itself, to this last unpin.
    if (l->state.fetch_sub(Lease::kPin, std::memory_order_acq_rel) ==
        Lease::kPin + Lease::kRecalled) {
      give_back(*l);
      std::shared_ptr<Lease> last = std::move(l->keep_alive);  // l goes with it
    }
  }
  leases_.clear();
  interfaces_.clear();
}

DataLeases& DataLeases::instance() {
  static DataLeases leases;
  return leases;
}

bool DataLeases::pin(const core::Device& device, std::span<const starpu_data_handle_t> handles,
                     std::span<const starpu_data_access_mode> modes, bool may_block,
                     LeasePins& out) {
  if (handles.empty()) return true;  // a kernel without buffers: nothing to pin
  const unsigned node = device.worker().memory_node;
  RememberedLeases& remembered = t_remembered;
  if (remembered.pin(handles, modes, node, out)) return true;
  LeaseTable& t = table();
  // A few rounds: leases taken in one round may be recalled by a command
  // racing this one before the next.
  for (int round = 0; round < 3; ++round) {
    std::vector<std::size_t> missing;
    {
      std::lock_guard lock(t.mutex);
      PinnedLeases found;
      SmallVector<const std::shared_ptr<Lease>*, 4> shared;
      for (std::size_t i = 0; i < handles.size(); ++i) {
        if (const std::shared_ptr<Lease>* l = t.find(handles[i], node, modes[i])) {
          found.push_back(l->get());
          shared.push_back(l);
        } else {
          missing.push_back(i);
        }
      }
      if (missing.empty()) {
        out.hold(found, handles, node);
        remembered.remember(handles, shared, out);
        return true;
      }
      if (!may_block) return false;
      std::size_t need = 0;
      for (std::size_t i : missing) {
        // A claimed handle may be one a StarPU task is still to be granted:
        // leasing it now could leave the task waiting for the lease while
        // this thread waits for a handle the task holds. Nor does a taker
        // queue behind another one: StarPU's path instead.
        auto it = t.handles.find(handles[i]);
        if (it != t.handles.end() && it->second.wanted_against(modes[i])) return false;
        need += starpu_data_get_size(handles[i]);
      }
      // Make room: past the cap, every other lease on this device goes back.
      const std::size_t cap = device.global_mem_size() / 2;
      if (need > cap) return false;
      if (t.leased_bytes[node] + need > cap) {
        log::debug("direct path: leases on ", device.name(), " reach ", t.leased_bytes[node],
                   " bytes; giving them back to make room");
        for (auto& [h, per] : t.handles)
          for (auto l : std::vector(per.leases))
            if (l->node == node) t.detach(l);
      }
    }
    // Handle order, so two takers never hold each other's first handle.
    std::sort(missing.begin(), missing.end(),
              [&](std::size_t a, std::size_t b) { return handles[a] < handles[b]; });
    for (std::size_t i : missing) {
      {
        // In one step: the leases this one conflicts with are given back,
        // and this taker is counted, so that a conflicting lease finished
        // after this either was in the table here or sees this taker.
        std::lock_guard lock(t.mutex);
        auto& per = t.handles[handles[i]];
        for (auto l : std::vector(per.leases))
          if (l->node != node ? conflicts(l->mode, modes[i]) : !covers(l->mode, modes[i]))
            t.detach(l);
        ++per.takers(modes[i]);
      }
      {
        // The workers that bring the data: the device's own and those of
        // the devices holding a valid copy (worker_parking.h).
        backend::WorkerDemand demand = backend::WorkerDemand::raise(
            backend::worker_bit(device.worker().worker_id) |
            backend::workers_holding({&handles[i], 1}));
        starpu_data_acquire_on_node(handles[i], static_cast<int>(node), modes[i]);
      }
      std::lock_guard lock(t.mutex);
      auto lease = std::make_shared<Lease>();
      lease->handle = handles[i];
      lease->device = &device;
      lease->node = node;
      lease->mode = (modes[i] & STARPU_W) ? STARPU_RW : STARPU_R;
      lease->bytes = starpu_data_get_size(handles[i]);
      auto& per = t.handles[handles[i]];
      --per.takers(modes[i]);
      per.leases.push_back(lease);
      t.leased_bytes[node] += lease->bytes;
      // Someone came to want this handle in a conflicting mode (a claim,
      // another taker) while StarPU brought it here: it may be waiting for
      // this very acquisition. Give it back right away.
      if (per.wanted_against(lease->mode)) t.detach(lease);
    }
  }
  return false;
}

bool DataLeases::pin_held(const core::Device& device, starpu_data_handle_t handle,
                          starpu_data_access_mode mode, LeasePins& out) {
  return pin(device, {&handle, 1}, {&mode, 1}, false, out);
}

DataClaim DataLeases::claim(std::span<const starpu_data_handle_t> handles,
                            std::span<const starpu_data_access_mode> modes) {
  LeaseTable& t = table();
  std::lock_guard lock(t.mutex);
  DataClaim c;
  for (std::size_t i = 0; i < handles.size(); ++i) {
    auto& per = t.handles[handles[i]];
    ++per.claims(modes[i]);
    for (auto l : std::vector(per.leases))
      if (conflicts(l->mode, modes[i])) t.detach(l);
  }
  c.handles_.assign(handles.begin(), handles.end());
  c.modes_.assign(modes.begin(), modes.end());
  return c;
}

DataClaim& DataClaim::operator=(DataClaim&& o) noexcept {
  if (this != &o) {
    release();
    handles_ = std::move(o.handles_);
    modes_ = std::move(o.modes_);
  }
  return *this;
}

void DataClaim::release() {
  if (handles_.empty()) return;
  LeaseTable& t = table();
  std::lock_guard lock(t.mutex);
  for (std::size_t i = 0; i < handles_.size(); ++i) {
    auto it = t.handles.find(handles_[i]);
    if (it == t.handles.end()) continue;  // forgotten: the buffer went first
    int& n = it->second.claims(modes_[i]);
    if (n > 0) --n;
  }
  handles_.clear();
  modes_.clear();
}

void DataLeases::recall_everything() {
  LeaseTable& t = table();
  std::lock_guard lock(t.mutex);
  for (auto& [h, per] : t.handles) {
    for (auto l : std::vector(per.leases)) t.detach(l);
  }
}

void DataLeases::forget(starpu_data_handle_t handle) {
  LeaseTable& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.handles.find(handle);
  if (it == t.handles.end()) return;
  for (auto l : std::vector(it->second.leases)) t.detach(l);
  t.handles.erase(it);
}

const core::Device* DataLeases::pin_holder(std::span<const starpu_data_handle_t> handles,
                                           std::span<const starpu_data_access_mode> modes,
                                           LeasePins& out) {
  if (handles.empty()) return nullptr;
  RememberedLeases& remembered = t_remembered;
  if (const Lease* l = remembered.pin(handles, modes, RememberedLeases::kAnyNode, out))
    return l->device;
  LeaseTable& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.handles.find(handles[0]);
  if (it == t.handles.end()) return nullptr;
  for (auto& first : it->second.leases) {
    if (!covers(first->mode, modes[0])) continue;
    PinnedLeases found;
    SmallVector<const std::shared_ptr<Lease>*, 4> shared;
    found.push_back(first.get());
    shared.push_back(&first);
    for (std::size_t i = 1; i < handles.size(); ++i) {
      const std::shared_ptr<Lease>* l = t.find(handles[i], first->node, modes[i]);
      if (!l) break;
      found.push_back(l->get());
      shared.push_back(l);
    }
    if (found.size() != handles.size()) continue;
    const core::Device* holder = first->device;
    out.hold(found, handles, first->node);
    remembered.remember(handles, shared, out);
    return holder;
  }
  return nullptr;
}

}  // namespace parasol::runtime
