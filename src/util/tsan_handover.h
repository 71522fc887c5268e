// Tells ThreadSanitizer about handovers it cannot see. StarPU and PoCL are
// not instrumented and order their threads with their own spinlocks and
// atomics, so a command written before starpu_task_submit() and read on a
// worker, or written on a worker and read in a completion callback, looks
// racy to TSan. Releasing the object where Parasol hands it over and
// acquiring it where the other side picks it up gives TSan the edge the
// library really provides, so the suppressions can name library frames
// only (test/sanitizers/tsan.supp) and Parasol's own code on those threads
// is checked like the rest. Nothing in other builds.
#pragma once

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace parasol::tsan {

#if defined(__SANITIZE_THREAD__)
inline void release(const void* object) { __tsan_release(const_cast<void*>(object)); }
inline void acquire(const void* object) { __tsan_acquire(const_cast<void*>(object)); }
#else
inline void release(const void*) {}
inline void acquire(const void*) {}
#endif

// Acquires on entry and releases on exit: code running on the other side
// of a handover that hands the object on again (a task's codelet, which
// StarPU's callback follows on another thread).
class HandoverScope {
 public:
  explicit HandoverScope(const void* object) : object_(object) { acquire(object_); }
  ~HandoverScope() { release(object_); }
  HandoverScope(const HandoverScope&) = delete;
  HandoverScope& operator=(const HandoverScope&) = delete;

 private:
  const void* object_;
};

}  // namespace parasol::tsan
