// The native device's threads: one per hardware thread, created once, each
// running a share of a launch's work-groups. One launch at a time (the
// native device is one StarPU worker; a second caller waits its turn).
//
// A launch splits its items into one contiguous range per thread, taken
// chunk by chunk from a cursor of the thread's own (no cache line shared
// while every thread is busy with its own range; a core streams one
// contiguous stretch of memory); a thread done with its range takes chunks
// from the others', so uneven items still balance. Chunks shrink near a
// range's end.
// Threads spin a short while after a launch before they sleep: the next
// launch of a stream finds them awake. A launch starts with its first group
// on the calling thread, timed: one whose groups would all be done there
// within 10 µs (an empty kernel, a few small groups) stays there, without
// waking the pool. The calling thread waits only for the threads that
// joined its launch: one that wakes after the calling thread has taken the
// last chunk finds the launch closed, and a launch never waits for a
// sleeping thread to wake.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace parasol::backend::native {

class ThreadPool {
 public:
  static ThreadPool& instance();
  std::size_t size() const { return threads_.size() + 1; }

  // Calls body(begin, end, thread_index) over chunks of [0, count) that
  // cover it once, spread over the pool and the calling thread (index 0);
  // returns when all are done.
  using Body = std::function<void(std::size_t, std::size_t, std::size_t)>;
  void parallel_for(std::size_t count, const Body& body);

 private:
  explicit ThreadPool(std::size_t threads);
  void worker(std::size_t index);
  void run_share(std::size_t thread_index);

  // One thread's range of the current launch: [next, end), taken a chunk at a time.
  struct alignas(64) Range {
    std::atomic<std::size_t> next{0};
    std::size_t end = 0;
  };

  std::vector<std::thread> threads_;
  std::unique_ptr<Range[]> ranges_;
  std::mutex launch_;  // one launch at a time
  // Bumped by each launch (workers wait for a change); whether the current
  // launch still takes threads; the threads in it (or deciding whether to join).
  std::atomic<std::uint32_t> generation_{0};
  std::atomic<bool> open_{false};
  std::atomic<std::uint32_t> joined_{0};
  // The current launch; written before generation_ moves, read after.
  const Body* body_ = nullptr;
  std::size_t chunk_ = 1;
};

}  // namespace parasol::backend::native
