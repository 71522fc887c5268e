#include "util/log.h"
#include "util/settings.h"

#include <cstdio>
#include <mutex>

namespace parasol::log {
Level threshold() { return static_cast<Level>(settings::log_level()); }

namespace {

const char* name(Level level) {
  switch (level) {
    case Level::Error: return "error";
    case Level::Warn: return "warning";
    case Level::Info: return "info";
    case Level::Debug: return "debug";
  }
  return "?";
}

}  // namespace

void write(Level level, std::string_view message) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  std::fprintf(stderr, "[parasol] %s: %.*s\n", name(level), static_cast<int>(message.size()),
               message.data());
}

}  // namespace parasol::log
