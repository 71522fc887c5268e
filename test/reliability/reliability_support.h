// Helpers for the reliability tests: failures collected from many threads
// (Catch2's assertions are not thread-safe), owned event references that can
// be copied between threads, and the process's resident memory.
#pragma once

#include <cstdio>
#include <malloc.h>
#include <mutex>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "support/parasol_test.h"

namespace parasol_test {

// Failures seen by worker threads; the test thread REQUIREs none at the end.
class Failures {
 public:
  template <typename... Parts>
  void add(const Parts&... parts) {
    std::ostringstream os;
    (os << ... << parts);
    std::lock_guard lock(mutex_);
    if (messages_.size() < 50) messages_.push_back(os.str());
    ++count_;
  }
  // Records a failure when err is not CL_SUCCESS; returns err == CL_SUCCESS.
  bool ok(cl_int err, const char* what) {
    if (err != CL_SUCCESS) add(what, " returned ", err);
    return err == CL_SUCCESS;
  }
  std::size_t count() const {
    std::lock_guard lock(mutex_);
    return count_;
  }
  std::string report() const {
    std::lock_guard lock(mutex_);
    std::string all;
    for (const auto& m : messages_) all += m + "\n";
    return all;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
  std::size_t count_ = 0;
};

// A counted reference to an event (clRetainEvent/clReleaseEvent).
class EventRef {
 public:
  EventRef() = default;
  // Takes over the reference the enqueue returned.
  static EventRef adopt(cl_event e) {
    EventRef r;
    r.e_ = e;
    return r;
  }
  EventRef(const EventRef& o) : e_(o.e_) { if (e_) clRetainEvent(e_); }
  EventRef(EventRef&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  EventRef& operator=(EventRef o) noexcept {
    std::swap(e_, o.e_);
    return *this;
  }
  ~EventRef() { if (e_) clReleaseEvent(e_); }
  cl_event get() const { return e_; }
  explicit operator bool() const { return e_ != nullptr; }

 private:
  cl_event e_ = nullptr;
};

// Resident set size of this process, in bytes.
inline std::size_t resident_bytes() {
  long pages_total = 0, pages_resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages_total, &pages_resident) != 2) pages_resident = 0;
    std::fclose(f);
  }
  return static_cast<std::size_t>(pages_resident) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// Bytes malloc holds for the process (every arena), not yet freed: a leak
// measure that a new thread's arena, a one-time step of resident memory,
// does not move.
inline std::size_t malloc_in_use_bytes() {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// Whether this binary runs under a sanitizer that changes memory use or speed.
constexpr bool kSanitized =
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    true;
#else
    false;
#endif

}  // namespace parasol_test
