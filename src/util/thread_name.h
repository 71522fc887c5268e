// Names the calling thread as tools show it (top -H, gdb, perf, /proc):
// Parasol's threads live among the vendors' and StarPU's, and a profile of
// a slow stream must say whose thread woke. At most 15 characters.
#pragma once

#include <pthread.h>

namespace parasol {

inline void name_this_thread(const char* name) { pthread_setname_np(pthread_self(), name); }

}  // namespace parasol
