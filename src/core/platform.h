// The one Parasol platform: every vendor device found, under one name.
#pragma once

#include <span>
#include <vector>

#include "core/device.h"
#include "core/object.h"

namespace parasol::core {

class Platform final : public Object<Platform, _cl_platform_id, ObjectKind::Platform> {
 public:
  static Platform& instance();

  // Every Parasol device; empty while StarPU itself is discovering devices
  // (the recursion guard) or when StarPU could not start.
  std::span<Device* const> devices();
  bool has_device(const Device* d);
  // The device a StarPU worker drives (null for a worker of no device).
  Device* device_for_worker(int worker_id);

  static void destroy(Platform*) {}

 private:
  Platform() = default;
  friend Platform* create<Platform>();
  void add_remote_devices();
  std::vector<Device*> devices_;
};

}  // namespace parasol::core
