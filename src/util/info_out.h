// Writes the answer of a clGet*Info query with the spec's size rules:
// param_value may be null (size query only); a too small param_value_size is
// CL_INVALID_VALUE.
#pragma once

#include <CL/cl.h>

#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace parasol {

class InfoOut {
 public:
  InfoOut(size_t size, void* value, size_t* size_ret)
      : size_(size), value_(value), size_ret_(size_ret) {}

  cl_int bytes(const void* data, size_t n) {
    if (value_) {
      if (size_ < n) return CL_INVALID_VALUE;
      if (n) std::memcpy(value_, data, n);
    }
    if (size_ret_) *size_ret_ = n;
    return CL_SUCCESS;
  }
  template <typename T>
  cl_int scalar(const T& v) { return bytes(&v, sizeof v); }
  cl_int string(std::string_view s) {
    std::vector<char> buf(s.begin(), s.end());
    buf.push_back('\0');
    return bytes(buf.data(), buf.size());
  }
  template <typename T>
  cl_int array(std::span<const T> values) { return bytes(values.data(), values.size_bytes()); }
  template <typename T>
  cl_int array(const std::vector<T>& values) { return array(std::span<const T>(values)); }

 private:
  size_t size_;
  void* value_;
  size_t* size_ret_;
};

}  // namespace parasol
