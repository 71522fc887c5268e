#include "backend/image_mirrors.h"

namespace parasol::backend {

bool ImageMirrors::packed() const {
  const auto e = shape_.extent();
  return shape_.row_pitch == e[0] * shape_.element_size &&
         (e[2] == 1 || shape_.slice_pitch == e[1] * shape_.row_pitch);
}

cl_mem ImageMirrors::on(const VendorWorker& worker, cl_int& err) {
  std::lock_guard lock(mutex_);
  for (const Mirror& m : mirrors_)
    if (m.worker_id == worker.worker_id) {
      err = CL_SUCCESS;
      return m.image.get();
    }
  Mirror m{worker.worker_id, {}, {}};
  cl_image_desc desc{};
  desc.image_type = shape_.type;
  desc.image_width = shape_.width;
  desc.image_height = shape_.height;
  desc.image_depth = shape_.depth;
  desc.image_array_size = shape_.array_size;
  if (shape_.type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
    m.buffer = VendorMem(clCreateBuffer(worker.context, CL_MEM_READ_WRITE,
                                        shape_.width * shape_.element_size, nullptr, &err),
                         worker.platform);
    if (err != CL_SUCCESS) return nullptr;
    desc.buffer = m.buffer.get();
  }
  m.image = VendorMem(clCreateImage(worker.context, CL_MEM_READ_WRITE, &shape_.format, &desc,
                                    nullptr, &err),
                      worker.platform);
  if (err != CL_SUCCESS) return nullptr;
  cl_mem image = m.image.get();
  mirrors_.push_back(std::move(m));
  return image;
}

cl_int ImageMirrors::fill(cl_command_queue queue, cl_mem storage, std::size_t offset,
                          cl_mem image, std::span<const cl_event> waits, cl_event* done) const {
  const cl_uint n = static_cast<cl_uint>(waits.size());
  const cl_event* list = waits.empty() ? nullptr : waits.data();
  const auto e = shape_.extent();
  if (shape_.type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
    cl_mem under = nullptr;
    clGetImageInfo(image, CL_IMAGE_BUFFER, sizeof under, &under, nullptr);
    return clEnqueueCopyBuffer(queue, storage, under, offset, 0, shape_.width * shape_.element_size,
                               n, list, done);
  }
  if (packed()) {
    const std::size_t origin[3] = {0, 0, 0}, region[3] = {e[0], e[1], e[2]};
    return clEnqueueCopyBufferToImage(queue, storage, image, offset, origin, region, n, list, done);
  }
  cl_int err = CL_SUCCESS;
  for (std::size_t z = 0; z < e[2] && err == CL_SUCCESS; ++z)
    for (std::size_t y = 0; y < e[1] && err == CL_SUCCESS; ++y) {
      const bool first = z == 0 && y == 0, last = z + 1 == e[2] && y + 1 == e[1];
      const std::size_t origin[3] = {0, y, z}, region[3] = {e[0], 1, 1};
      err = clEnqueueCopyBufferToImage(queue, storage, image, offset + shape_.offset(origin), origin,
                                       region, first ? n : 0, first ? list : nullptr,
                                       last ? done : nullptr);
    }
  return err;
}

cl_int ImageMirrors::drain(cl_command_queue queue, cl_mem image, cl_mem storage,
                           std::size_t offset, cl_event* done) const {
  const auto e = shape_.extent();
  if (shape_.type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
    cl_mem under = nullptr;
    clGetImageInfo(image, CL_IMAGE_BUFFER, sizeof under, &under, nullptr);
    return clEnqueueCopyBuffer(queue, under, storage, 0, offset, shape_.width * shape_.element_size,
                               0, nullptr, done);
  }
  if (packed()) {
    const std::size_t origin[3] = {0, 0, 0}, region[3] = {e[0], e[1], e[2]};
    return clEnqueueCopyImageToBuffer(queue, image, storage, origin, region, offset, 0, nullptr, done);
  }
  cl_int err = CL_SUCCESS;
  for (std::size_t z = 0; z < e[2] && err == CL_SUCCESS; ++z)
    for (std::size_t y = 0; y < e[1] && err == CL_SUCCESS; ++y) {
      const bool last = z + 1 == e[2] && y + 1 == e[1];
      const std::size_t origin[3] = {0, y, z}, region[3] = {e[0], 1, 1};
      err = clEnqueueCopyImageToBuffer(queue, image, storage, origin, region,
                                       offset + shape_.offset(origin), 0, nullptr,
                                       last ? done : nullptr);
    }
  return err;
}

}  // namespace parasol::backend
