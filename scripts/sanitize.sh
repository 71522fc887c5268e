#!/bin/sh
# Builds and runs the test suite under sanitizers, for CI:
#   build-asan: the whole suite with AddressSanitizer + UndefinedBehaviorSanitizer
#   build-tsan: the concurrency test, both soaks and the direct path's tests with ThreadSanitizer,
#               and a planted race that its suppressions must not hide
# Usage: scripts/sanitize.sh [asan|tsan|all|tsan-full]   (default: all)
#   tsan-full (not part of all, nor of CI: about 8 minutes on 2 cores): every
#             test that the ASan pass runs, under ThreadSanitizer
# Environment: JOBS (parallel jobs, default: nproc), CTEST_ARGS (extra ctest args).
#
# The test binaries are built with -fsanitize too, so the sanitizer runtime
# is loaded first and libParasol.so, which the ICD loader dlopens, finds it.
# Vendor libraries (PoCL, LLVM, Oclgrind, StarPU) are not instrumented;
# their own leaks are suppressed by library in test/sanitizers/, and TSan
# checks instrumented code only (build/test/suite-env applies the files and
# options; docs/reliability.md).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc)}
what=${1:-all}
status=0
# Left to the main pass: tests whose assertions depend on measured times
# (placement by the performance models, calibration on cold models,
# divide-factor convergence, SOCL's fastest factor: the sanitizers' slowdown
# shifts them), and the
# clients and install tests, whose uninstrumented programs (clinfo, python3,
# a consumer) cannot load the sanitizer runtime first.
timing='faster device receives more|chain reusing its buffers stays|far slower device calibrates|factor converges to the clearly cheapest|in turn, then the fastest'

configure_build() {  # dir sanitizers [targets...]
  dir=$1; san=$2; shift 2
  # -O1 and line tables only: what the sanitizers' reports need, and a
  # quicker build than -O2 -g (no benchmarks: the suite does not run them).
  cmake -S "$root" -B "$root/$dir" -DPARASOL_NATIVE_CPU=OFF -DPARASOL_SANITIZE="$san" \
        -DPARASOL_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
  if [ $# -gt 0 ]; then
    for t in "$@"; do cmake --build "$root/$dir" -j"$jobs" --target "$t"; done
  else
    cmake --build "$root/$dir" -j"$jobs"
  fi
}

if [ "$what" = asan ] || [ "$what" = all ]; then
  configure_build build-asan address,undefined
  (cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=0:new_delete_type_mismatch=0 ctest -j"$jobs" --output-on-failure \
     -LE 'install|clients' -E "$timing" ${CTEST_ARGS:-}) || status=1
  # Leaks at exit (LeakSanitizer) on a set of tests covering every object
  # type and command family, and failed commands on every path (the fault soak). LeakSanitizer's own tracer sometimes crashes
  # beside StarPU's threads ("Tracer caught signal 11"): a test gets three
  # tries; a real leak fails all three.
  (cd "$root/build-asan" && ctest --output-on-failure --repeat until-pass:3 \
     -R '^test_(mixed_vendor_chain|buffer_transfer|release_in_flight|kernel_arg_capture|queue_ordering|object_info|fault_soak):' \
     ${CTEST_ARGS:-}) || status=1
fi

if [ "$what" = tsan ] || [ "$what" = all ]; then
  configure_build build-tsan thread Parasol test_concurrency test_soak test_direct_path \
                  test_device_lanes ParasolFaultVendor test_fault_soak test_tsan_planted_race
  # (the direct path's commands go without vendor events on PoCL 3 to 6, as
  # on NVIDIA; also with four lanes per device; and the planted race, which
  # must be reported)
  (cd "$root/build-tsan" && ctest -j"$jobs" --output-on-failure \
     -R '^test_(concurrency|soak|direct_path|device_lanes|fault_soak|tsan_planted_race):|^test_(direct_path|device_lanes) with PARASOL_LANES=4$' \
     ${CTEST_ARGS:-}) || status=1
fi

if [ "$what" = tsan-full ]; then
  configure_build build-tsan thread
  (cd "$root/build-tsan" && ctest -j"$jobs" --output-on-failure -LE 'install|clients' \
     -E "$timing" ${CTEST_ARGS:-}) || status=1
fi

exit $status
