// A buffer storage's own copies in vendors' memory, for split launches
// (runtime/split_launch.h): each vendor device that runs a block of a split
// kernel gets one buffer the storage's full size, made on its StarPU
// worker's context the first time and kept while the storage lives, so the
// kernel's indexes stay those of the whole buffer. Apart from StarPU's
// copies: StarPU neither sees nor moves them; a split launch writes into
// one the bytes its block reads and reads back the bytes it writes.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <mutex>
#include <vector>

#include "backend/starpu_runtime.h"
#include "backend/vendor_handle.h"

namespace parasol::backend {

class VendorCopies {
 public:
  explicit VendorCopies(std::size_t size) : size_(size) {}

  // The copy on worker's device (made once: the caller holds the vendor's
  // lock); null with err on failure.
  cl_mem on(const VendorWorker& worker, cl_int& err);

 private:
  struct Copy {
    int worker_id;
    VendorMem buffer;
  };
  const std::size_t size_;
  std::mutex mutex_;
  std::vector<Copy> copies_;
};

}  // namespace parasol::backend
