#include "backend/native/thread_pool.h"

#include <algorithm>
#include <chrono>

#include "util/settings.h"
#include "util/thread_name.h"

namespace parasol::backend::native {
namespace {

// How long a thread keeps looking before it sleeps: launches of a stream
// come tens of microseconds apart (StarPU's path between them), and a
// sleeping thread takes about as long again to wake.
constexpr auto kSpin = std::chrono::microseconds(100);

// A launch whose groups would all run on the calling thread within this
// (the first group's time, times their count) runs there: waking the pool
// costs more (a futex wake, or a spinning thread's cache lines).
constexpr auto kInline = std::chrono::microseconds(10);

// Chunks per thread's range: a thread that finishes early takes from the
// others in pieces this fine.
constexpr std::size_t kChunksPerThread = 16;
// Near its end a range is taken a quarter of what is left at a time.
constexpr std::size_t kTailSplit = 4;

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Returns once done(value of a) holds: looks for kSpin, then sleeps on a's
// futex between looks (whoever changes a towards done notifies).
template <typename Done>
void await(const std::atomic<std::uint32_t>& a, Done done) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (unsigned i = 1;; ++i) {
    const std::uint32_t v = a.load(std::memory_order_acquire);
    if (done(v)) return;
    if (i % 64 == 0 && std::chrono::steady_clock::now() >= deadline)
      a.wait(v, std::memory_order_acquire);
    else
      relax();
  }
}

}  // namespace

ThreadPool& ThreadPool::instance() {
  // Never destroyed: its threads live until the process ends.
  static ThreadPool* pool = [] {
    const std::size_t n =
        settings::native_threads().value_or(std::thread::hardware_concurrency());
    return new ThreadPool(n > 1 ? n - 1 : 0);
  }();
  return *pool;
}

ThreadPool::ThreadPool(std::size_t threads) : ranges_(new Range[threads + 1]) {
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this, i] { worker(i + 1); });
  for (auto& t : threads_) t.detach();
}

void ThreadPool::run_share(std::size_t thread_index) {
  // Its own range first, then the others' from the next one on.
  const std::size_t n = size();
  for (std::size_t k = 0; k < n; ++k) {
    Range& r = ranges_[(thread_index + k) % n];
    // Relaxed: the range was published with generation_ (release/acquire);
    // the cursor only hands out distinct chunks.
    std::size_t begin = r.next.load(std::memory_order_relaxed);
    while (begin < r.end) {
      // Chunks shrink near the range's end, down to one item: the last
      // pieces in flight are small, so threads end together.
      const std::size_t size = std::clamp<std::size_t>((r.end - begin) / kTailSplit, 1, chunk_);
      if (!r.next.compare_exchange_weak(begin, begin + size, std::memory_order_relaxed)) continue;
      (*body_)(begin, begin + size, thread_index);
      begin = r.next.load(std::memory_order_relaxed);
    }
  }
}

void ThreadPool::worker(std::size_t index) {
  name_this_thread("parasol-pool");
  std::uint32_t seen = 0;
  for (;;) {
    await(generation_, [&](std::uint32_t g) { return g != seen; });
    seen = generation_.load(std::memory_order_acquire);
    // Joins the launch open now, if any (a later one than `seen` is as
    // good); one that closed before this thread came is left alone.
    joined_.fetch_add(1, std::memory_order_seq_cst);
    if (open_.load(std::memory_order_seq_cst)) run_share(index);
    if (joined_.fetch_sub(1, std::memory_order_acq_rel) == 1) joined_.notify_all();
  }
}

void ThreadPool::parallel_for(std::size_t count, const Body& body) {
  if (count == 0) return;
  if (count == 1 || threads_.empty()) {
    body(0, count, 0);
    return;
  }
  // The first group, timed, tells whether the launch is worth the pool.
  const auto start = std::chrono::steady_clock::now();
  body(0, 1, 0);
  if ((std::chrono::steady_clock::now() - start) * (count - 1) <= kInline) {
    body(1, count, 0);
    return;
  }
  std::lock_guard lock(launch_);
  const std::size_t n = size(), rest = count - 1;
  for (std::size_t t = 0; t < n; ++t) {
    ranges_[t].next.store(1 + rest * t / n, std::memory_order_relaxed);
    ranges_[t].end = 1 + rest * (t + 1) / n;
  }
  body_ = &body;
  chunk_ = std::max<std::size_t>(1, rest / (n * kChunksPerThread));
  open_.store(true, std::memory_order_seq_cst);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  run_share(0);
  // Every chunk is taken: close the launch, then wait for the threads that
  // joined it to finish theirs. Either a joining thread sees it closed, or
  // this one sees it joined (both sides sequentially consistent).
  open_.store(false, std::memory_order_seq_cst);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // orders the store before await's loads
  await(joined_, [](std::uint32_t j) { return j == 0; });
}

}  // namespace parasol::backend::native
