#include "core/device.h"

#include "backend/native/native_compiler.h"

#include <starpu.h>
#include <unistd.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace parasol::core {
namespace {

std::string query_string(cl_int (*query)(void*, cl_uint, size_t, void*, size_t*), void* obj,
                         cl_uint param) {
  size_t size = 0;
  if (query(obj, param, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::vector<char> buf(size);
  if (query(obj, param, size, buf.data(), nullptr) != CL_SUCCESS) return {};
  return std::string(buf.data());
}

cl_int device_info(void* d, cl_uint p, size_t s, void* v, size_t* r) {
  return clGetDeviceInfo(static_cast<cl_device_id>(d), p, s, v, r);
}
cl_int platform_info(void* pl, cl_uint p, size_t s, void* v, size_t* r) {
  return clGetPlatformInfo(static_cast<cl_platform_id>(pl), p, s, v, r);
}

}  // namespace

Device::Device(const backend::VendorWorker& worker) : worker_(worker) {
  clGetDeviceInfo(worker_.device, CL_DEVICE_TYPE, sizeof type_, &type_, nullptr);
  clGetDeviceInfo(worker_.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof compute_units_,
                  &compute_units_, nullptr);
  clGetDeviceInfo(worker_.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof base_align_bits_,
                  &base_align_bits_, nullptr);
  clGetDeviceInfo(worker_.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc_, &max_alloc_,
                  nullptr);
  clGetDeviceInfo(worker_.device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global_mem_, &global_mem_,
                  nullptr);
  // StarPU's memory manager never allocates past its own limit on the node:
  // a larger buffer (or command) would wait for room forever.
  starpu_ssize_t starpu_total = starpu_memory_get_total(worker_.memory_node);
  if (starpu_total > 0) {
    global_mem_ = std::min<cl_ulong>(global_mem_, static_cast<cl_ulong>(starpu_total));
    max_alloc_ = std::min(max_alloc_, global_mem_);
  }
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(worker_.device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  image_support_ = images == CL_TRUE;
  name_ = query_string(&device_info, worker_.device, CL_DEVICE_NAME);
  vendor_platform_name_ = query_string(&platform_info, worker_.platform, CL_PLATFORM_NAME);
}

void Device::set_index(std::size_t index) {
  label_ = name_ + " [" + vendor_platform_name_ + "] (device " + std::to_string(index) + ")";
}

bool Device::alike(const Device& other) const {
  return !is_native() && !other.is_native() && worker_.platform == other.worker_.platform &&
         type_ == other.type_ && compute_units_ == other.compute_units_ &&
         global_mem_ == other.global_mem_ && name_ == other.name_;
}

std::vector<cl_image_format> Device::image_formats(cl_mem_flags flags,
                                                   cl_mem_object_type type) const {
  if (!image_support_) return {};
  if (is_native()) return backend::native::image_formats(type);
  cl_uint n = 0;
  if (clGetSupportedImageFormats(worker_.context, flags, type, 0, nullptr, &n) != CL_SUCCESS || !n)
    return {};
  std::vector<cl_image_format> formats(n);
  if (clGetSupportedImageFormats(worker_.context, flags, type, n, formats.data(), nullptr) !=
      CL_SUCCESS)
    return {};
  return formats;
}

std::array<std::size_t, 3> Device::image_max(cl_mem_object_type type) const {
  if (!image_support_) return {0, 0, 0};
  if (is_native()) return backend::native::image_max(type);
  auto get = [this](cl_device_info what) {
    std::size_t v = 0;
    clGetDeviceInfo(worker_.device, what, sizeof v, &v, nullptr);
    return v;
  };
  switch (type) {
    case CL_MEM_OBJECT_IMAGE1D_BUFFER: return {get(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE), 1, 1};
    case CL_MEM_OBJECT_IMAGE1D: return {get(CL_DEVICE_IMAGE2D_MAX_WIDTH), 1, 1};
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
      return {get(CL_DEVICE_IMAGE2D_MAX_WIDTH), get(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE), 1};
    case CL_MEM_OBJECT_IMAGE2D:
      return {get(CL_DEVICE_IMAGE2D_MAX_WIDTH), get(CL_DEVICE_IMAGE2D_MAX_HEIGHT), 1};
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      return {get(CL_DEVICE_IMAGE2D_MAX_WIDTH), get(CL_DEVICE_IMAGE2D_MAX_HEIGHT),
              get(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE)};
    case CL_MEM_OBJECT_IMAGE3D:
      return {get(CL_DEVICE_IMAGE3D_MAX_WIDTH), get(CL_DEVICE_IMAGE3D_MAX_HEIGHT),
              get(CL_DEVICE_IMAGE3D_MAX_DEPTH)};
    default: return {0, 0, 0};
  }
}

bool Device::has_vendor_extension(std::string_view name) const {
  if (is_native()) return false;
  const std::string list = query_string(&device_info, worker_.device, CL_DEVICE_EXTENSIONS);
  for (std::size_t at = 0; (at = list.find(name, at)) != std::string::npos; at += name.size()) {
    const std::size_t end = at + name.size();
    if ((at == 0 || list[at - 1] == ' ') && (end == list.size() || list[end] == ' ')) return true;
  }
  return false;
}

Device* Device::create_native(int worker_id) {
  Device* d = create<Device>();
  d->worker_.worker_id = worker_id;
  d->worker_.memory_node = STARPU_MAIN_RAM;
  d->type_ = CL_DEVICE_TYPE_CPU;
  d->compute_units_ = std::max(1u, std::thread::hardware_concurrency());
  d->name_ = "Parasol native CPU";
  d->vendor_platform_name_ = "Parasol";
  d->base_align_bits_ = 1024;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  d->global_mem_ = pages > 0 && page > 0 ? static_cast<cl_ulong>(pages) * page : (4ull << 30);
  d->max_alloc_ = d->global_mem_ / 4;
  d->image_support_ = backend::native::image_support();
  return d;
}

}  // namespace parasol::core
