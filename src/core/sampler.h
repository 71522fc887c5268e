// A sampler (cl_sampler): how a kernel reads an image (normalized
// coordinates, addressing, filtering). Each vendor device a kernel takes it
// on gets a vendor sampler, made on its StarPU worker's context the first
// time; the native device reads its CLK_* bits.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <mutex>
#include <vector>

#include "backend/starpu_runtime.h"
#include "backend/vendor_handle.h"
#include "core/context.h"
#include "core/object.h"

namespace parasol::core {

using VendorSampler = backend::VendorHandle<cl_sampler, &clReleaseSampler>;

class Sampler final : public Object<Sampler, _cl_sampler, ObjectKind::Sampler> {
 public:
  Sampler(Context* context, cl_bool normalized, cl_addressing_mode addressing,
          cl_filter_mode filter)
      : context_(context), normalized_(normalized), addressing_(addressing), filter_(filter) {}

  Context* context() const { return context_.get(); }
  cl_bool normalized() const { return normalized_; }
  cl_addressing_mode addressing() const { return addressing_; }
  cl_filter_mode filter() const { return filter_; }
  // The sampler_t value of kernel code: CLK_NORMALIZED_COORDS_* |
  // CLK_ADDRESS_* | CLK_FILTER_*.
  std::uint32_t bits() const;
  // CL_SAMPLER_PROPERTIES: what clCreateSamplerWithProperties was given (its
  // terminating 0 included); empty otherwise.
  const std::vector<cl_sampler_properties>& properties() const { return properties_; }
  void set_properties(std::vector<cl_sampler_properties> p) { properties_ = std::move(p); }

  // The vendor sampler on worker's device (made once: the caller holds the
  // vendor's lock); null with err on failure.
  cl_sampler on(const backend::VendorWorker& worker, cl_int& err);

 private:
  Ref<Context> context_;
  const cl_bool normalized_;
  const cl_addressing_mode addressing_;
  const cl_filter_mode filter_;
  std::mutex mutex_;
  std::vector<std::pair<int, VendorSampler>> vendor_;  // per StarPU worker
  std::vector<cl_sampler_properties> properties_;
};

}  // namespace parasol::core
