#include "util/block_pool.h"

#include <array>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace parasol::block_pool {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kPooling = false;
#else
constexpr bool kPooling = true;
#endif

constexpr std::size_t kGranule = 64;  // size classes: 64, 128, ... bytes
constexpr std::size_t kClasses = 16;  // up to 1 KiB
constexpr std::size_t kBatch = 32;    // blocks handed between threads at once

struct Block {
  Block* next;
};

// A chain of blocks linked through their first word.
struct Chain {
  Block* head = nullptr;
  std::size_t count = 0;

  void push(Block* b) {
    b->next = head;
    head = b;
    ++count;
  }
  Block* pop() {
    Block* b = head;
    head = b->next;
    --count;
    return b;
  }
  // Takes up to n blocks off the front.
  Chain split(std::size_t n) {
    Chain out;
    while (count > 0 && out.count < n) out.push(pop());
    return out;
  }
};

struct Shared {
  std::mutex mutex;
  std::vector<Chain> chains;
};

std::array<Shared, kClasses>& shared() {
  // Never destroyed: threads give their blocks back at their exit, the
  // process's static destructors included.
  static auto* s = new std::array<Shared, kClasses>();
  return *s;
}

void give(std::size_t c, Chain chain) {
  if (chain.count == 0) return;
  Shared& s = shared()[c];
  std::lock_guard lock(s.mutex);
  s.chains.push_back(chain);
}

struct Local {
  std::array<Chain, kClasses> free;
  ~Local() {
    // Emptied too: a block freed later in this thread's exit lands in an
    // empty chain (and stays there) instead of one whose blocks are gone.
    for (std::size_t c = 0; c < kClasses; ++c) give(c, std::exchange(free[c], Chain{}));
  }
};

// A plain pointer to the thread's Local: one TLS lookup per call, where the
// object itself (a constructor and destructor) costs three.
thread_local Local* t_local = nullptr;

Local& make_local() {
  thread_local Local l;
  t_local = &l;
  return l;
}

Local& local() {
  Local* l = t_local;
  return l ? *l : make_local();
}

std::size_t class_of(std::size_t bytes) { return (bytes + kGranule - 1) / kGranule - 1; }

}  // namespace

void* allocate(std::size_t bytes) {
  const std::size_t c = class_of(bytes);
  if (!kPooling || bytes == 0 || c >= kClasses) return ::operator new(bytes);
  Chain& mine = local().free[c];
  if (mine.count == 0) {
    Shared& s = shared()[c];
    std::lock_guard lock(s.mutex);
    if (!s.chains.empty()) {
      mine = s.chains.back();
      s.chains.pop_back();
    }
  }
  if (mine.count > 0) return mine.pop();
  return ::operator new((c + 1) * kGranule);
}

void deallocate(void* block, std::size_t bytes) noexcept {
  const std::size_t c = class_of(bytes);
  if (!kPooling || bytes == 0 || c >= kClasses) {
    ::operator delete(block);
    return;
  }
  Chain& mine = local().free[c];
  mine.push(static_cast<Block*>(block));
  // Past two batches, one goes where the allocating threads find it.
  if (mine.count >= 2 * kBatch) give(c, mine.split(kBatch));
}

}  // namespace parasol::block_pool
