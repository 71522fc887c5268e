// What a vendor kernel's value and __local arguments were last set to by
// Parasol's launches, so that a launch sets again only those that changed.
//
// Setting an argument costs PoCL about 130 instructions, and launches of one
// kernel mostly repeat its scalars. Buffer arguments are always set: a
// vendor memory object released and another made at the same address must
// not be taken for the first (the spec leaves an argument naming a released
// object undefined).
#pragma once

#include <CL/cl.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace parasol::runtime {

// Under the Parasol kernel's launch mutex (core::Kernel::launch_mutex()).
class VendorArgValues {
 public:
  // clSetKernelArg(kernel, index, size, value) unless the argument was last
  // set to these bytes (value null: a __local argument of size bytes).
  cl_int set(cl_kernel kernel, cl_uint index, std::size_t size, const void* value) {
    if (index < known_.size() && known_[index].holds(size, value)) return CL_SUCCESS;
    return set_now(kernel, index, size, value);
  }
  // The argument was set another way (a buffer) or its setting failed.
  void forget(cl_uint index);

 private:
  static constexpr std::size_t kLargest = 16;  // larger values are set every time
  struct Known {
    bool valid = false;
    bool local = false;
    std::size_t size = 0;
    std::array<std::byte, kLargest> bytes{};

    bool holds(std::size_t n, const void* value) const {
      if (!valid || size != n) return false;
      if (!value || local) return !value && local;
      // The usual scalars compare in one step, without a call.
      if (n == 4) return load<std::uint32_t>(value) == load<std::uint32_t>(bytes.data());
      if (n == 8) return load<std::uint64_t>(value) == load<std::uint64_t>(bytes.data());
      return std::memcmp(bytes.data(), value, n) == 0;
    }
    template <typename T>
    static T load(const void* p) {
      T v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
  };
  cl_int set_now(cl_kernel kernel, cl_uint index, std::size_t size, const void* value);
  std::vector<Known> known_;
};

}  // namespace parasol::runtime
