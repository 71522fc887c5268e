#include "backend/native/thread_pool.h"

#include <atomic>

#include "util/settings.h"
#include "util/thread_name.h"

namespace parasol::backend::native {

ThreadPool& ThreadPool::instance() {
  // Never destroyed: its threads live until the process ends.
  static ThreadPool* pool = [] {
    const std::size_t n =
        settings::native_threads().value_or(std::thread::hardware_concurrency());
    return new ThreadPool(n > 1 ? n - 1 : 0);
  }();
  return *pool;
}

ThreadPool::ThreadPool(std::size_t threads) {
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this, i] { worker(i + 1); });
  for (auto& t : threads_) t.detach();
}

void ThreadPool::run_share(std::size_t thread_index) {
  // Work-groups are handed out one by one: uneven groups balance themselves.
  for (std::size_t item; (item = next_.fetch_add(1, std::memory_order_relaxed)) < count_;)
    (*body_)(item, thread_index);
}

void ThreadPool::worker(std::size_t index) {
  name_this_thread("parasol-pool");
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
    }
    run_share(index);
    std::lock_guard lock(mutex_);
    if (--busy_ == 0) done_.notify_all();
  }
}

void ThreadPool::parallel_for(std::size_t count,
                              const std::function<void(std::size_t, std::size_t)>& body) {
  if (count == 0) return;
  if (count == 1 || threads_.empty()) {
    for (std::size_t i = 0; i < count; ++i) body(i, 0);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    body_ = &body;
    count_ = count;
    next_.store(0, std::memory_order_relaxed);
    busy_ = threads_.size();
    ++generation_;
  }
  start_.notify_all();
  run_share(0);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return busy_ == 0; });
}

}  // namespace parasol::backend::native
