// Every thread's stack to stderr, for a benchmark that stopped making
// progress: the GPU machine has no debugger. Frames of stripped libraries
// print as "lib.so(+0xOFFSET)"; `addr2line -f -C -e <unstripped lib> OFFSET`
// names them where the build is.
#pragma once

#include <dirent.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace bench {

namespace detail {
inline std::atomic<bool> stack_written{false};
inline void write_own_stack(int) {
  void* frames[48];
  int n = backtrace(frames, 48);
  char head[64];
  int len = std::snprintf(head, sizeof head, "--- thread %ld\n", long(syscall(SYS_gettid)));
  if (write(2, head, len) < 0) {}
  backtrace_symbols_fd(frames, n, 2);
  stack_written = true;
}
}  // namespace detail

inline void dump_thread_stacks() {
  void* warm[1];
  backtrace(warm, 1);  // loads the unwinder now, not inside a signal handler
  struct sigaction sa {};
  sa.sa_handler = &detail::write_own_stack;
  sigaction(SIGRTMIN + 5, &sa, nullptr);
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return;
  const long self = syscall(SYS_gettid);
  while (dirent* e = readdir(dir)) {
    long tid = std::atol(e->d_name);
    if (tid <= 0 || tid == self) continue;
    detail::stack_written = false;
    if (syscall(SYS_tgkill, getpid(), tid, SIGRTMIN + 5) != 0) continue;
    // One thread at a time, so their frames do not interleave.
    for (int i = 0; i < 50 && !detail::stack_written; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  closedir(dir);
}

}  // namespace bench
