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

Device* Device::create_remote(const backend::RankDevices& rank, std::uint32_t index,
                              const backend::DeviceAnswers& answers) {
  backend::VendorWorker worker;
  worker.traits.direct_launch = false;  // its node runs its commands
  return create<Device>(worker, backend::remote_device(rank, index, answers));
}

cl_int Device::partition(const cl_device_partition_property* properties,
                         std::vector<Device*>& out) {
  std::vector<std::unique_ptr<backend::DeviceBackend>> parts;
  if (cl_int err = backend_->partition(properties, parts); err != CL_SUCCESS) return err;
  for (auto& part : parts) {
    Device* sub = create<Device>(worker_, std::move(part));
    sub->parent_ = Ref<Device>(this);
    sub->label_ = label_ + " sub-device " + std::to_string(out.size());
    out.push_back(sub);
  }
  return CL_SUCCESS;
}

void Device::set_index(std::size_t index) {
  label_ = name() + " [" + vendor_platform_name() + "] (device " + std::to_string(index) + ")";
}

// The native device's platform is none: it is alike to no vendor's device.
// A sub-device shares its root's worker: it is alike to no device.
bool Device::alike(const Device& other) const {
  return !parent_ && !other.parent_ && worker_.platform &&
         worker_.platform == other.worker_.platform && type() == other.type() && compute_units() == other.compute_units() &&
         global_mem_size() == other.global_mem_size() && name() == other.name();
}

}  // namespace parasol::core
