// A Parasol device: one vendor device re-exported (a StarPU OpenCL worker),
// or Parasol's own native CPU device (a StarPU CPU worker running kernels
// compiled by kernels-pass/; its memory is main RAM).
#pragma once

#include <array>
#include <string>
#include <vector>
#include <string_view>

#include "backend/starpu_runtime.h"
#include "core/object.h"

namespace parasol::core {

class Device final : public Object<Device, _cl_device_id, ObjectKind::Device> {
 public:
  explicit Device(const backend::VendorWorker& worker);
  // The native CPU device, driven by StarPU CPU worker `worker_id`.
  static Device* create_native(int worker_id);

  bool is_native() const { return worker_.device == nullptr; }

  const backend::VendorWorker& worker() const { return worker_; }
  cl_device_id vendor() const { return worker_.device; }
  cl_device_type type() const { return type_; }
  cl_uint compute_units() const { return compute_units_; }
  const std::string& name() const { return name_; }
  const std::string& vendor_platform_name() const { return vendor_platform_name_; }
  // How logs name the device: "name [vendor platform] (device N)", N its
  // place in the platform's list, so that two GPUs of one model differ.
  const std::string& label() const { return label_; }
  void set_index(std::size_t index);  // Platform numbers its devices once
  cl_uint mem_base_addr_align_bits() const { return base_align_bits_; }
  cl_ulong max_mem_alloc_size() const { return max_alloc_; }
  // The memory StarPU may use on this device: the vendor's global memory,
  // or less under STARPU_LIMIT_OPENCL_MEM / STARPU_LIMIT_OPENCL_<devid>_MEM.
  // A command whose buffers together exceed it can never run here.
  cl_ulong global_mem_size() const { return global_mem_; }
  // The same hardware as other (two GPUs of one model): one vendor
  // platform, the same name, type, compute units and memory. Alike devices
  // share their kernels' measurements (schedulers/shared_measurements.h)
  // and split the work of a context among them (schedulers/alike_placement.h).
  bool alike(const Device& other) const;
  // CL_DEVICE_IMAGE_SUPPORT: the vendor's, or the native device's own.
  bool image_support() const { return image_support_; }
  // The image formats the device takes for images of `type` created with
  // `flags` (clGetSupportedImageFormats).
  std::vector<cl_image_format> image_formats(cl_mem_flags flags, cl_mem_object_type type) const;
  // The largest image of `type` the device takes: width, height (or
  // layers of a 1D array), depth (or layers of a 2D array), in pixels.
  std::array<std::size_t, 3> image_max(cl_mem_object_type type) const;
  // Whether the vendor device reports the extension (the native device
  // reports none of the vendors').
  bool has_vendor_extension(std::string_view name) const;
  // Root devices live as long as the process; clRelease/RetainDevice are no-ops.
  static void destroy(Device*) {}

 private:
  backend::VendorWorker worker_;
  cl_device_type type_ = 0;
  cl_uint compute_units_ = 1;
  std::string name_;
  std::string vendor_platform_name_;
  std::string label_;
  cl_uint base_align_bits_ = 1024;
  cl_ulong max_alloc_ = 0;
  cl_ulong global_mem_ = 0;
  bool image_support_ = false;

  Device() = default;
  friend Device* create<Device>();
};

}  // namespace parasol::core
