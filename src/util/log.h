// Parasol's log: PARASOL_LOG=error|warn|info|debug (default warn), written to
// stderr as "[parasol] <level>: <message>", one line per message.
// Messages are built from their parts: log::warn("device ", name, " left out").
#pragma once

#include <sstream>
#include <string>
#include <string_view>

namespace parasol::log {

enum class Level { Error = 0, Warn = 1, Info = 2, Debug = 3 };

bool enabled(Level level);
void write(Level level, std::string_view message);

template <typename... Parts>
void at(Level level, const Parts&... parts) {
  if (!enabled(level)) return;
  std::ostringstream out;
  (out << ... << parts);
  write(level, out.str());
}

template <typename... P> void error(const P&... p) { at(Level::Error, p...); }
template <typename... P> void warn(const P&... p) { at(Level::Warn, p...); }
template <typename... P> void info(const P&... p) { at(Level::Info, p...); }
template <typename... P> void debug(const P&... p) { at(Level::Debug, p...); }

}  // namespace parasol::log
