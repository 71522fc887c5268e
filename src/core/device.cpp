#include "core/device.h"

#include <starpu.h>

namespace parasol::core {

Device::Device(const backend::VendorWorker& worker, std::unique_ptr<backend::DeviceBackend> backend)
    : worker_(worker), backend_(std::move(backend)) {}

Device* Device::create_vendor(const backend::VendorWorker& worker) {
  return create<Device>(worker, backend::vendor_device(worker));
}

Device* Device::create_native(int worker_id) {
  backend::VendorWorker worker;
  worker.worker_id = worker_id;
  worker.memory_node = STARPU_MAIN_RAM;
  worker.traits = backend::native::native_traits();
  return create<Device>(worker, backend::native::native_device());
}

void Device::set_index(std::size_t index) {
  label_ = name() + " [" + vendor_platform_name() + "] (device " + std::to_string(index) + ")";
}

// The native device's platform is none: it is alike to no vendor's device.
bool Device::alike(const Device& other) const {
  return worker_.platform && worker_.platform == other.worker_.platform &&
         type() == other.type() && compute_units() == other.compute_units() &&
         global_mem_size() == other.global_mem_size() && name() == other.name();
}

}  // namespace parasol::core
