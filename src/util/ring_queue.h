// A first-in, first-out queue in one array that grows by doubling and is
// reused: a stream of direct commands pushes and pops without allocating.
// (A std::deque allocates a 512-byte block every ten or so commands on the
// enqueuing thread and frees it on the harvesting one.) Only what
// a lane needs of a queue is here. T: default-constructible and copyable.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace parasol {

template <typename T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // i-th from the front.
  T& operator[](std::size_t i) { return slots_[(head_ + i) & (slots_.size() - 1)]; }
  const T& operator[](std::size_t i) const { return slots_[(head_ + i) & (slots_.size() - 1)]; }
  T& front() { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }

  void push_back(const T& v) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = v;
    ++size_;
  }
  void pop_front() {
    slots_[head_] = T{};
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
  }

 private:
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 16 : 2 * slots_.size());  // a power of two
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move((*this)[i]);
    slots_.swap(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  std::size_t head_ = 0;  // the front's slot
  std::size_t size_ = 0;
};

}  // namespace parasol
