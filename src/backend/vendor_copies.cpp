#include "backend/vendor_copies.h"

namespace parasol::backend {

cl_mem VendorCopies::on(const VendorWorker& worker, cl_int& err) {
  std::lock_guard lock(mutex_);
  for (const Copy& c : copies_)
    if (c.worker_id == worker.worker_id) {
      err = CL_SUCCESS;
      return c.buffer.get();
    }
  VendorMem buffer(clCreateBuffer(worker.context, CL_MEM_READ_WRITE, size_, nullptr, &err),
                   worker.platform);
  if (err != CL_SUCCESS) return nullptr;
  cl_mem mem = buffer.get();
  copies_.push_back({worker.worker_id, std::move(buffer)});
  return mem;
}

}  // namespace parasol::backend
