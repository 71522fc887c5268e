// The native device's threads: one per hardware thread, created once, each
// running a share of a launch's work-groups. One launch at a time (the
// native device is one StarPU worker).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace parasol::backend::native {

class ThreadPool {
 public:
  static ThreadPool& instance();
  std::size_t size() const { return threads_.size() + 1; }

  // Calls body(item, thread_index) for every item in [0, count), spread
  // over the pool and the calling thread; returns when all are done.
  void parallel_for(std::size_t count, const std::function<void(std::size_t, std::size_t)>& body);

 private:
  explicit ThreadPool(std::size_t threads);
  void worker(std::size_t index);
  void run_share(std::size_t thread_index);

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  std::uint64_t generation_ = 0;
  std::size_t busy_ = 0;
  const std::function<void(std::size_t, std::size_t)>* body_ = nullptr;
  std::size_t count_ = 0;
  std::atomic<std::size_t> next_{0};
};

}  // namespace parasol::backend::native
