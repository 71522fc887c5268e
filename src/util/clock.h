#pragma once
#include <chrono>
#include <cstdint>

namespace parasol {
// Nanoseconds on a monotonic clock: the time base of event profiling.
inline std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now().time_since_epoch()).count());
}
}  // namespace parasol
