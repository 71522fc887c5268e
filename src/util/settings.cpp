#include "util/settings.h"

#include <cstdlib>
#include <cstring>

namespace parasol::settings {
namespace {

bool flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

}  // namespace

bool socl() {
  static const bool on = flag("PARASOL_SOCL");
  return on;
}

}  // namespace parasol::settings
