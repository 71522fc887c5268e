// The environment variables Parasol reads, each read once, here
// (docs/user-guide.md §4 lists them).
#pragma once

namespace parasol::settings {

// PARASOL_SOCL=1: Parasol answers as StarPU's SOCL 1.3 does where SOCL
// programs look: the platform's name and vendor ("SOCL Platform", "Inria"),
// SOCL's extension function clShutdown, and each program built for a
// device with -DSOCL_DEVICE_TYPE_<GPU|CPU|ACCELERATOR|UNKNOWN> before the
// application's options.
bool socl();

}  // namespace parasol::settings
