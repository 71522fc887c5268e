// A vector of trivially copyable values that keeps its first N in place.
//
// Every enqueued command builds a few short lists (its buffers' StarPU
// handles and access modes, its arguments' buffer indexes): with
// std::vector each cost an allocation on the enqueuing thread and a free on
// whichever thread completed the command. Only what a command needs of a
// vector is here.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

namespace parasol {

template <typename T, std::size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  SmallVector() = default;
  explicit SmallVector(std::size_t n, const T& value = T{}) {
    for (std::size_t i = 0; i < n; ++i) push_back(value);
  }

  void push_back(const T& v) {
    if (heap_.empty() && size_ < N) {
      inline_[size_++] = v;
      return;
    }
    if (heap_.empty()) heap_.assign(inline_.begin(), inline_.begin() + size_);
    heap_.push_back(v);
    ++size_;
  }
  void clear() {
    heap_.clear();
    size_ = 0;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return heap_.empty() ? inline_.data() : heap_.data(); }
  const T* data() const { return heap_.empty() ? inline_.data() : heap_.data(); }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  operator std::span<const T>() const { return {data(), size_}; }

 private:
  std::array<T, N> inline_{};
  std::vector<T> heap_;  // every element, once there are more than N
  std::size_t size_ = 0;
};

}  // namespace parasol
