#!/usr/bin/env bash
# test.sh: installs the Debian packages, builds Parasol with warnings as
# errors and runs the whole ctest suite (every label: core, install,
# clients, ...), then the suite again under ASan+UBSan and the concurrency
# test under TSan (scripts/sanitize.sh). Exits non-zero when a build or any
# test fails.
#
#   PARASOL_BUILD_DIR    the build folder (default build/)
#   PARASOL_CMAKE_ARGS   extra arguments for the CMake configure step
#   PARASOL_CTEST_ARGS   extra arguments for ctest (e.g. "-L core")
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PARASOL_BUILD_DIR:-$root/build}

bash "$root/scripts/install-deps.sh"

# shellcheck disable=SC2086  # the *_ARGS variables are lists of words
cmake -S "$root" -B "$build" -DPARASOL_WERROR=ON -DPARASOL_TESTS=ON ${PARASOL_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"
cd "$build"
# shellcheck disable=SC2086
ctest --output-on-failure -j2 ${PARASOL_CTEST_ARGS:-} </dev/null

# Then the sanitizers: the whole suite under ASan+UBSan, the concurrency test
# and the soak under TSan (PARASOL_SKIP_SANITIZERS=1 skips them).
if [ "${PARASOL_SKIP_SANITIZERS:-0}" != 1 ]; then
  JOBS=2 bash "$root/scripts/sanitize.sh" all </dev/null
fi
