// A Parasol device: one vendor device re-exported (a StarPU OpenCL worker),
// Parasol's own native CPU device (a StarPU CPU worker running kernels
// compiled by kernels-pass/; its memory is main RAM), or, on rank 0 of an
// MPI job, a device of another rank. What differs between them is its
// backend's (backend/device_backend.h) and its traits'.
//
// A sub-device (clCreateSubDevices) answers the queries about its partition
// as its vendor's sub-device does, and runs its commands on its root
// device's worker: the partition is what it reports, not a reservation of
// compute units.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backend/device_backend.h"
#include "backend/starpu_runtime.h"
#include "core/object.h"

namespace parasol::core {

class Device final : public Object<Device, _cl_device_id, ObjectKind::Device> {
 public:
  Device(const backend::VendorWorker& worker, std::unique_ptr<backend::DeviceBackend> backend);
  // A vendor's device, StarPU OpenCL worker `worker`'s.
  static Device* create_vendor(const backend::VendorWorker& worker);
  // The native CPU device, driven by StarPU CPU worker `worker_id`.
  static Device* create_native(int worker_id);
  // Device `index` of another rank of the MPI job; no StarPU worker of this
  // process drives it (worker().worker_id is -1), nor the direct path.
  static Device* create_remote(const backend::RankDevices& rank, std::uint32_t index,
                               const backend::DeviceAnswers& answers);

  // clCreateSubDevices: the sub-devices `properties` asks for (each with
  // one API reference, the caller's), or the backend's error.
  cl_int partition(const cl_device_partition_property* properties, std::vector<Device*>& out);
  // Null for a root device (one of the platform's).
  Device* parent() const { return parent_.get(); }

  const backend::VendorWorker& worker() const { return worker_; }
  const backend::DeviceBackend& backend() const { return *backend_; }
  // The vendor's device (null for the native device).
  cl_device_id vendor() const { return worker_.device; }
  cl_device_type type() const { return facts().type; }
  cl_uint compute_units() const { return facts().compute_units; }
  const std::string& name() const { return facts().name; }
  const std::string& vendor_platform_name() const { return facts().vendor_platform_name; }
  // How logs name the device: "name [vendor platform] (device N)", N its
  // place in the platform's list, so that two GPUs of one model differ.
  const std::string& label() const { return label_; }
  void set_index(std::size_t index);  // Platform numbers its devices once
  cl_uint mem_base_addr_align_bits() const { return facts().base_align_bits; }
  cl_ulong max_mem_alloc_size() const { return facts().max_alloc; }
  // The memory StarPU may use on this device: the vendor's global memory,
  // or less under STARPU_LIMIT_OPENCL_MEM / STARPU_LIMIT_OPENCL_<devid>_MEM.
  // A command whose buffers together exceed it can never run here.
  cl_ulong global_mem_size() const { return facts().global_mem; }
  // The same hardware as other (two GPUs of one model): one vendor
  // platform, the same name, type, compute units and memory. Alike devices
  // share their kernels' measurements (schedulers/shared_measurements.h)
  // and split the work of a context among them (schedulers/alike_placement.h).
  bool alike(const Device& other) const;
  // CL_DEVICE_AVAILABLE: whether contexts may hold it and commands run on it.
  bool available() const { return facts().available; }
  // CL_DEVICE_IMAGE_SUPPORT: the vendor's, or the native device's own.
  bool image_support() const { return facts().image_support; }
  std::vector<cl_image_format> image_formats(cl_mem_flags flags, cl_mem_object_type type) const {
    return backend_->image_formats(flags, type);
  }
  std::array<std::size_t, 3> image_max(cl_mem_object_type type) const {
    return backend_->image_max(type);
  }
  bool has_vendor_extension(std::string_view name) const {
    return backend_->has_vendor_extension(name);
  }
  // Root devices live as long as the process (clRelease/RetainDevice are
  // no-ops on them); a sub-device, until its last reference goes.
  static void destroy(Device* d) {
    if (d->parent_) delete d;
  }

 private:
  const backend::DeviceFacts& facts() const { return backend_->facts(); }

  backend::VendorWorker worker_;
  std::unique_ptr<backend::DeviceBackend> backend_;
  std::string label_;
  Ref<Device> parent_;
};

}  // namespace parasol::core
