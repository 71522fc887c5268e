// A soak: thousands of random commands over every device of the suite and
// every queue kind, checked against a CPU model (random_commands.h). The
// short run (3000 commands, 1500 under a sanitizer) is part of the default suite; the long one
// (100000, label soak) runs with `ctest -L soak`. PARASOL_SOAK_COMMANDS
// overrides the count of either, PARASOL_SOAK_SEED the seed.
#include "reliability/random_commands.h"

using namespace parasol_test;

TEST_CASE("soak: 3000 random commands over every device and queue kind match a CPU model",
          "[reliability]") {
  RandomCommands({.devices = devices(),
                  .commands = soak_commands(kSanitized ? 1500 : 3000),  // CI's time
                  .seconds = kSanitized ? 400.0 : 200.0,
                  .seed = soak_seed(20240601)})
      .run();
}

// Hidden: run by the `soak` ctest test (ctest -L soak).
TEST_CASE("soak: 100000 random commands match a CPU model and memory stays flat", "[.soak]") {
  RandomCommands({.devices = devices(), .commands = soak_commands(100000), .seconds = 3000,
                  .seed = soak_seed(20240602)})
      .run();
}
