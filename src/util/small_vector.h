// A vector that keeps its first N values in place.
//
// Every enqueued command builds a few short lists (its buffers' StarPU
// handles and access modes, its arguments' buffer indexes, the buffers a
// transfer holds): with std::vector each would cost an allocation on the
// enqueuing thread and a free on whichever thread completes the command.
// Only what a command needs of a vector is here. T: default-constructible
// and copyable; an unused place holds T{} (a reference type holds nothing).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace parasol {

template <typename T, std::size_t N>
class SmallVector {
 public:
  SmallVector() = default;
  explicit SmallVector(std::size_t n, const T& value = T{}) {
    for (std::size_t i = 0; i < n; ++i) push_back(value);
  }
  SmallVector(std::initializer_list<T> values) {
    if (values.size() <= N) {  // the usual: in place, no per-value check
      std::copy(values.begin(), values.end(), inline_.begin());
      size_ = values.size();
      return;
    }
    for (const T& v : values) push_back(v);
  }
  SmallVector(const SmallVector&) = default;
  SmallVector& operator=(const SmallVector&) = default;
  SmallVector(SmallVector&& o) noexcept
      : inline_(std::move(o.inline_)), heap_(std::move(o.heap_)), size_(o.size_) {
    o.clear();
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      inline_ = std::move(o.inline_);
      heap_ = std::move(o.heap_);
      size_ = o.size_;
      o.clear();
    }
    return *this;
  }

  void push_back(const T& v) { put(v); }
  void push_back(T&& v) { put(std::move(v)); }
  void clear() {
    if constexpr (!std::is_trivially_copyable_v<T>)
      for (std::size_t i = 0; i < size_ && i < N; ++i) inline_[i] = T{};
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
  template <typename V>
  void put(V&& v) {
    if (heap_.empty() && size_ < N) {
      inline_[size_++] = std::forward<V>(v);
      return;
    }
    if (heap_.empty()) {
      heap_.reserve(2 * N);
      for (std::size_t i = 0; i < size_; ++i) heap_.push_back(std::exchange(inline_[i], T{}));
    }
    heap_.push_back(std::forward<V>(v));
    ++size_;
  }

  std::array<T, N> inline_{};
  std::vector<T> heap_;  // every element, once there are more than N
  std::size_t size_ = 0;
};

}  // namespace parasol
