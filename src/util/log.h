// Parasol's log: PARASOL_LOG=error|warn|info|debug (default warn), written to
// stderr as "[parasol] <level>: <message>", one line per message.
// Messages are built from their parts: log::warn("device ", name, " left out").
#pragma once

#include <sstream>
#include <string>
#include <string_view>

namespace parasol::log {

enum class Level { Error = 0, Warn = 1, Info = 2, Debug = 3 };

// PARASOL_LOG's level (util/settings.h).
Level threshold();
// Inline: launches ask it for their debug lines on every command.
inline bool enabled(Level level) {
  static const Level t = threshold();
  return level <= t;
}
void write(Level level, std::string_view message);

// Writes whatever the level: the wrappers below look at it first.
template <typename... Parts>
void at(Level level, const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  write(level, out.str());
}

template <typename... P> void error(const P&... p) {
  if (enabled(Level::Error)) at(Level::Error, p...);
}
template <typename... P> void warn(const P&... p) {
  if (enabled(Level::Warn)) at(Level::Warn, p...);
}
template <typename... P> void info(const P&... p) {
  if (enabled(Level::Info)) at(Level::Info, p...);
}
template <typename... P> void debug(const P&... p) {
  if (enabled(Level::Debug)) at(Level::Debug, p...);
}

}  // namespace parasol::log
