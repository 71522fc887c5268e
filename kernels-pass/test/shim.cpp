// A stand-in for the runtime's shared library: uses the compiler, exports one C function.
#include "parasol/kernels/compiler.h"

extern "C" __attribute__((visibility("default"))) int parasol_shim_build(const char* src) {
  auto r = parasol::kernels::build(src, "");
  return r.program ? 0 : 1;
}
