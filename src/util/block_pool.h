// Memory for the objects every command creates (its event and its command)
// and for the lists it carries (PoolAllocator, below).
//
// They are allocated on the enqueuing thread and freed on whichever thread
// completes them (a device's waiter thread, a StarPU worker): with malloc,
// each such pair meets in the shared arena (its lock, its cache lines), and
// the enqueuing thread never finds a block of its own to reuse: a large
// share of what a stream of tiny kernels costs beyond the vendor's own
// launches. Here each thread keeps the blocks it freed, by size class, and
// hands them to the others in batches through one shared list per class:
// about one lock per 32 allocations.
//
// Under AddressSanitizer or ThreadSanitizer blocks come straight from
// operator new, so the sanitizers see every use after free.
#pragma once

#include <cstddef>
#include <new>

namespace parasol::block_pool {

// A block of at least `bytes` (aligned as operator new's); sizes past the
// largest class come from operator new.
void* allocate(std::size_t bytes);
// Gives back a block of allocate(bytes), from any thread.
void deallocate(void* block, std::size_t bytes) noexcept;

}  // namespace parasol::block_pool

namespace parasol {

// Derive from it to take a class's objects (and those of classes derived
// from it: sized delete gets the dynamic type's size through a virtual
// destructor) from the block pool.
struct Pooled {
  static void* operator new(std::size_t bytes) { return block_pool::allocate(bytes); }
  static void operator delete(void* block, std::size_t bytes) noexcept {
    block_pool::deallocate(block, bytes);
  }
};

// An allocator over the block pool, for the lists a command carries from
// the enqueuing thread to where it completes (its kernel argument copy, a
// host transfer's accesses, a direct launch's pinned leases).
template <typename T>
struct PoolAllocator {
  using value_type = T;
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(block_pool::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { block_pool::deallocate(p, n * sizeof(T)); }
  friend bool operator==(PoolAllocator, PoolAllocator) { return true; }
};

}  // namespace parasol
