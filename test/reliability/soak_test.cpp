// A soak: thousands of random commands over every device of the suite and
// every queue kind, checked against a CPU model (random_commands.h). The
// short run (3000 commands) is part of the default suite; the long one
// (100000, label soak) runs with `ctest -L soak`. PARASOL_SOAK_COMMANDS
// overrides the count of either.
#include <cstdlib>

#include "reliability/random_commands.h"

using namespace parasol_test;

namespace {

std::size_t commands_from_env(std::size_t fallback) {
  const char* s = std::getenv("PARASOL_SOAK_COMMANDS");
  return s && *s ? std::strtoull(s, nullptr, 10) : fallback;
}

}  // namespace

TEST_CASE("soak: 3000 random commands over every device and queue kind match a CPU model",
          "[reliability]") {
  RandomCommands({.devices = devices(),
                  .commands = commands_from_env(3000),
                  .seconds = kSanitized ? 400.0 : 200.0,
                  .seed = 20240601})
      .run();
}

// Hidden: run by the `soak` ctest test (ctest -L soak).
TEST_CASE("soak: 100000 random commands match a CPU model and memory stays flat", "[.soak]") {
  RandomCommands({.devices = devices(), .commands = commands_from_env(100000), .seconds = 3000,
                  .seed = 20240602})
      .run();
}
