// A vendor device's view of an image (backend/image_shape.h): to StarPU an image is
// a buffer, and a vendor kernel needs a vendor image. Each vendor device a
// kernel takes the image on gets one, of the same format and shape, made on
// its StarPU worker's context the first time; before each such launch it is
// filled from the device's copy of the image's storage, and after it, when
// the kernel may write the image, that copy is filled back from it. Both are
// copies on the device, on the launch's own in-order vendor queue.
#pragma once

#include <CL/cl.h>

#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "backend/image_shape.h"
#include "backend/starpu_runtime.h"
#include "backend/vendor_handle.h"

namespace parasol::backend {

class ImageMirrors {
 public:
  explicit ImageMirrors(const backend::ImageShape& shape) : shape_(shape) {}

  // The vendor image on worker's device (made once: the caller holds the
  // vendor's lock); null with err on failure.
  cl_mem on(const VendorWorker& worker, cl_int& err);

  // Enqueues the copy of the image's bytes at `offset` of the device copy
  // `storage` into `image`, after `waits`. done: the last copy's event.
  cl_int fill(cl_command_queue queue, cl_mem storage, std::size_t offset, cl_mem image,
              std::span<const cl_event> waits, cl_event* done) const;
  // The other way: from `image` back into the device copy.
  cl_int drain(cl_command_queue queue, cl_mem image, cl_mem storage, std::size_t offset,
               cl_event* done) const;

 private:
  struct Mirror {
    int worker_id;
    VendorMem buffer;  // under a 1D image buffer's vendor image
    VendorMem image;
  };
  // Rows are copied one by one unless the storage's pitches are packed.
  bool packed() const;
  const backend::ImageShape shape_;
  std::mutex mutex_;
  std::vector<Mirror> mirrors_;
};

}  // namespace parasol::backend
