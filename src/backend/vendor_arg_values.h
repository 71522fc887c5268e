// What a vendor kernel's value and __local arguments were last set to by
// Parasol's launches, so that a launch sets again only those that changed.
//
// Every clSetKernelArg is a vendor call with its own cost, and launches of
// one kernel mostly repeat its scalars and buffers. A buffer is set again
// unless the data leases that held it then still hold it now: a vendor
// memory object released and another made at the same address must not be
// taken for the first (the spec leaves an argument naming a released object
// undefined), and a lease's device copy stays put until the lease is given
// back, which moves lease_epoch() (runtime/data_leases.h).
#pragma once

#include <CL/cl.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace parasol::backend {

// Under the Parasol kernel's launch mutex (core::Kernel::launch_mutex()).
class VendorArgValues {
 public:
  // clSetKernelArg(kernel, index, size, value) unless the argument was last
  // set to these bytes (value null: a __local argument of size bytes).
  cl_int set(cl_kernel kernel, cl_uint index, std::size_t size, const void* value) {
    if (index < known_.size() && known_[index].holds(size, value)) return CL_SUCCESS;
    return set_now(kernel, index, size, value);
  }
  // A buffer argument: clSetKernelArg(kernel, index, mem) unless it was last
  // set to mem under the same lease epoch. epoch: lease_epoch() read after
  // the launch pinned the leases holding mem (0: mem is not held by a lease,
  // a StarPU task's or a sub-buffer window: always set).
  cl_int set_buffer(cl_kernel kernel, cl_uint index, cl_mem mem, std::uint64_t epoch) {
    if (epoch != 0 && index < known_.size() && known_[index].holds_buffer(mem, epoch))
      return CL_SUCCESS;
    const cl_int err = set_now(kernel, index, sizeof mem, &mem, epoch);
    if (epoch == 0) known_[index].valid = false;  // held by nothing: set every time
    return err;
  }

 private:
  static constexpr std::size_t kLargest = 16;  // larger values are set every time
  struct Known {
    bool valid = false;
    bool local = false;
    std::size_t size = 0;
    std::array<std::byte, kLargest> bytes{};
    std::uint64_t epoch = 0;  // a buffer's lease epoch (set_buffer()); 0 for a value

    bool holds(std::size_t n, const void* value) const {
      if (!valid || size != n || epoch != 0) return false;
      if (!value || local) return !value && local;
      // The usual scalars compare in one step, without a call.
      if (n == 4) return load<std::uint32_t>(value) == load<std::uint32_t>(bytes.data());
      if (n == 8) return load<std::uint64_t>(value) == load<std::uint64_t>(bytes.data());
      return std::memcmp(bytes.data(), value, n) == 0;
    }
    bool holds_buffer(cl_mem mem, std::uint64_t e) const {
      return valid && epoch == e && load<cl_mem>(bytes.data()) == mem;
    }
    template <typename T>
    static T load(const void* p) {
      T v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
  };
  // epoch: a buffer's (set_buffer()), 0 for a value.
  cl_int set_now(cl_kernel kernel, cl_uint index, std::size_t size, const void* value,
                 std::uint64_t epoch = 0);
  std::vector<Known> known_;
};

}  // namespace parasol::backend
