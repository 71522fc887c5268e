#include "core/platform.h"

#include <algorithm>
#include <mutex>
#include <string>

#include "backend/cluster.h"
#include "util/log.h"
#include "util/settings.h"

namespace parasol::core {

Platform& Platform::instance() {
  static Platform* platform = create<Platform>();
  return *platform;
}

std::span<Device* const> Platform::devices() {
  // StarPU calls back into the loader, and so into Parasol, from inside
  // starpu_init(): answer "no device" without touching the once-flag below.
  if (backend::StarpuRuntime::discovering()) return {};
  static std::once_flag once;
  std::call_once(once, [this] {
    auto* rt = backend::StarpuRuntime::get();
    if (!rt) return;
    for (const auto& w : rt->vendor_workers()) devices_.push_back(Device::create_vendor(w));
    // Parasol's own device comes last: a vendor's device stays the default.
    if (rt->native_worker() >= 0) devices_.push_back(Device::create_native(rt->native_worker()));
    add_remote_devices();
    for (std::size_t i = 0; i < devices_.size(); ++i) {
      devices_[i]->set_index(i);
      const int worker = devices_[i]->worker().worker_id;
      log::info("device ", i, ": ", devices_[i]->name(), " [", devices_[i]->vendor_platform_name(),
                "]", worker >= 0 ? " (StarPU worker " + std::to_string(worker) + ")" : "");
    }
    if (devices_.empty())
      log::warn("Parasol found no device: its platform has no devices "
                "(PARASOL_LOG=info says why each vendor device was left out)");
    else
      log::info("Parasol platform: ", devices_.size(), " devices");
  });
  return devices_;
}

// Rank 0 of an MPI job joins it whether or not it lists the other ranks'
// devices: the nodes wait for it. Their devices come after this machine's.
void Platform::add_remote_devices() {
  const auto& ranks = backend::join_cluster();
  std::size_t count = 0;
  for (const auto& rank : ranks) count += rank.devices.size();
  if (count == 0) return;
  if (!settings::remote_devices()) {
    log::info("the other ranks report ", count,
              " devices, not listed: PARASOL_REMOTE_DEVICES=1 lists them");
    return;
  }
  for (const auto& rank : ranks)
    for (std::size_t i = 0; i < rank.devices.size(); ++i)
      devices_.push_back(Device::create_remote(rank, static_cast<std::uint32_t>(i), rank.devices[i]));
}

bool Platform::has_device(const Device* d) {
  auto devs = devices();
  return std::find(devs.begin(), devs.end(), d) != devs.end();
}

}  // namespace parasol::core

namespace parasol::core {

Device* Platform::device_for_worker(int worker_id) {
  if (worker_id < 0) return nullptr;  // remote devices have no worker here
  for (Device* d : devices())
    if (d->worker().worker_id == worker_id) return d;
  return nullptr;
}

}  // namespace parasol::core
