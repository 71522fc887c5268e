#!/usr/bin/env bash
# demo.sh: from a fresh Debian 12 (as root) to Parasol running a kernel chain
# across every OpenCL device of the machine, vendors mixed.
#   1. installs the Debian packages (scripts/install-deps.sh),
#   2. configures and builds Parasol (Release, in build/),
#   3. registers Parasol for the current user beside the system's vendors
#      (scripts/parasol-register: a vendors folder, default
#      ~/.local/share/parasol/vendors, given to the ICD loader by OCL_ICD_VENDORS),
#   4. runs examples/hello-mixed on the Parasol platform.
#
#   PARASOL_VENDORS_DIR  the vendors folder (default ${XDG_DATA_HOME:-~/.local/share}/parasol/vendors)
#   PARASOL_BUILD_DIR    the build folder (default build/)
#   PARASOL_CMAKE_ARGS   extra arguments for the CMake configure step
#   STARPU_HOME          where StarPU keeps its calibration (default ${XDG_CACHE_HOME:-~/.cache}/parasol)
# POCL_DEVICES is not set here: PoCL picks its default devices (set it yourself,
# e.g. POCL_DEVICES="pthread pthread", to see two PoCL devices).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PARASOL_BUILD_DIR:-$root/build}

bash "$root/scripts/install-deps.sh"

# shellcheck disable=SC2086  # PARASOL_CMAKE_ARGS is a list of words
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${PARASOL_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)" --target Parasol hello-mixed

vendors=${PARASOL_VENDORS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/parasol/vendors}
register_line=$(bash "$root/scripts/parasol-register" "$build/src/libParasol.so" "$vendors")
eval "$register_line"
export STARPU_HOME=${STARPU_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/parasol}
mkdir -p "$STARPU_HOME"

echo
echo "Parasol is registered for $(id -un). In your own shell:"
echo "  $register_line"
echo
echo "== examples/hello-mixed (OCL_ICD_VENDORS=$OCL_ICD_VENDORS, STARPU_HOME=$STARPU_HOME)"
exec "$build/examples/hello-mixed"
