#include "core/sampler.h"

namespace parasol::core {

std::uint32_t Sampler::bits() const {
  // The values of OpenCL C's CLK_* sampler constants (opencl-c-base.h).
  std::uint32_t b = normalized_ ? 0x1u : 0x0u;
  switch (addressing_) {
    case CL_ADDRESS_NONE: break;
    case CL_ADDRESS_CLAMP_TO_EDGE: b |= 0x2u; break;
    case CL_ADDRESS_CLAMP: b |= 0x4u; break;
    case CL_ADDRESS_REPEAT: b |= 0x6u; break;
    case CL_ADDRESS_MIRRORED_REPEAT: b |= 0x8u; break;
    default: break;
  }
  b |= filter_ == CL_FILTER_LINEAR ? 0x20u : 0x10u;
  return b;
}

cl_sampler Sampler::on(const backend::VendorWorker& worker, cl_int& err) {
  std::lock_guard lock(mutex_);
  for (const auto& [id, s] : vendor_)
    if (id == worker.worker_id) {
      err = CL_SUCCESS;
      return s.get();
    }
  cl_sampler s = clCreateSampler(worker.context, normalized_, addressing_, filter_, &err);
  if (err != CL_SUCCESS) return nullptr;
  vendor_.emplace_back(worker.worker_id, VendorSampler(s, worker.platform));
  return s;
}

}  // namespace parasol::core
