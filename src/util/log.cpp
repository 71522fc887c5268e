#include "util/log.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace parasol::log {
Level threshold() {
  const char* env = std::getenv("PARASOL_LOG");
  if (!env) return Level::Warn;
  if (!std::strcmp(env, "error")) return Level::Error;
  if (!std::strcmp(env, "info")) return Level::Info;
  if (!std::strcmp(env, "debug")) return Level::Debug;
  return Level::Warn;
}

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
