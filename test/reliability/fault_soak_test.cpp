// Random commands over every device of the suite while the Fault Device
// fails its doomed_int kernels, as a vendor without sticky errors would
// (PoCL): every event ends as the model says (failed when it is doomed or
// names a failed event in its wait list, complete otherwise, queue order
// never propagating a failure), whichever path each command took, and the
// data no failure touched matches the CPU model (random_commands.h).
// PARASOL_SOAK_COMMANDS and PARASOL_SOAK_SEED override the count and seed.
#include "fault_control.h"
#include "fault_device.h"
#include "reliability/random_commands.h"

using namespace parasol_test;

TEST_CASE("random commands while the Fault Device fails some kernels: every event ends as the "
          "model says, untouched data matches it",
          "[reliability]") {
  fault_test::FaultScope f("exec_fail -5\nkernel_filter doomed_int\nnot_sticky");
  RandomCommands({.devices = devices(),
                  .doomed = fault_test::fault_device(),
                  .doomed_status = CL_OUT_OF_RESOURCES,
                  .commands = soak_commands(kSanitized ? 750 : 1500),  // CI's time
                  .seconds = kSanitized ? 400.0 : 200.0,
                  .seed = soak_seed(20261125)})
      .run();
}
