#!/usr/bin/env bash
# Packs what the GPU machine runs into .gpu/ (git-ignored), here: the device
# tool carries that folder (name `.gpu` in its `carry`) and nothing there can
# build. bench/README.md says how to run it there.
#
#   bash bench/gpu/pack.sh [--base BUILD_DIR] [--tests] [--clean] [FILE...]
#
# - builds Release in build-rel/ (configured first if it is not), the targets
#   that travel only: the library, the benchmarks, the examples;
# - .gpu/lib/libParasol.so.xz: build-rel's library, stripped and xz-packed
#   (bench/gpu/run-on-gpu.sh unpacks it there); skipped when unchanged;
# - .gpu/bin/: the bench_* binaries, hello-mixed, nbody-divide and image-pipeline, stripped;
# - .gpu/debs/: the runtime packages the GPU machine lacks (StarPU, hwloc, GLPK,
#   Debian's OpenCL loader), fetched by shared/gpu/pack-runtime.sh when empty.
# Options:
#   --base DIR  a second library for A/B runs, DIR/src/libParasol.so (a build
#               folder of another commit, e.g. a `git worktree`'s), packed as
#               .gpu/lib/base.so.xz; suite.sh's AB=1 runs both
#   --tests     the tests that mix NVIDIA with PoCL (suite.sh's `tests` step)
#               and the fault vendor they need, built and carried too
#   --clean     empty .gpu/bin and .gpu/lib first (the debs stay)
#   FILE...     more binaries to carry in .gpu/bin (stripped copies)
# Environment: BUILD [build-rel], PACK_RUNTIME [shared/gpu/pack-runtime.sh
# beside the checkout, else /work/shared/gpu/pack-runtime.sh], JOBS [nproc].
# Everything that travels (the tree and .gpu) must stay under 64 MiB: two
# libraries take about 50 MiB, so --base and --tests do not fit together.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build=${BUILD:-build-rel}
gpu=$root/.gpu
base="" tests=0 clean=0 extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --base) base=${2:?--base needs a build folder}; shift 2 ;;
    --tests) tests=1; shift ;;
    --clean) clean=1; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "pack.sh: unknown option $1" >&2; exit 2 ;;
    *) extra+=("$1"); shift ;;
  esac
done

# The tests that run NVIDIA beside PoCL (PARASOL_TEST_OTHER_VENDOR, set by
# run-on-gpu.sh): the direct path, lanes, placement, completion, the soaks.
mixed_tests=(test_direct_path test_device_lanes test_context_queue test_queue_ordering
             test_event_callback_profiling test_mixed_vendor_chain test_cold_models
             test_worker_parking test_release_in_flight test_buffer_transfer test_soak
             test_fault_soak test_sub_devices)

if [ ! -f "$build/CMakeCache.txt" ]; then
  generator=()
  command -v ninja > /dev/null && generator=(-G Ninja)
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
fi
type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
[ "$type" = Release ] || echo "pack.sh: $build is a $type build, not Release" >&2
targets=(Parasol bench_command_overhead bench_launch_stream bench_throughput
         bench_native_vs_pocl bench_vendor_costs bench_vendor_queues bench_transfer_paths
         bench_split_launch hello-mixed nbody-divide image-pipeline)
# Built where Debian's libclblast is installed.
grep -q '^PARASOL_CLBLAST:FILEPATH=/' "$build/CMakeCache.txt" && targets+=(bench_clblast_calls)
[ $tests = 1 ] && targets+=("${mixed_tests[@]}" ParasolFaultVendor)
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "${targets[@]}"

mkdir -p "$gpu/bin" "$gpu/lib" "$gpu/debs"
if [ $clean = 1 ]; then
  rm -f "$gpu"/bin/* "$gpu"/lib/*
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pack_lib() {  # library .xz-file: stripped, packed; skipped when its source is unchanged
  local lib=$1 dest=$2
  [ -f "$lib" ] || { echo "pack.sh: no library $lib" >&2; exit 1; }
  local sum
  sum=$(sha256sum < "$(readlink -f "$lib")" | cut -d' ' -f1)
  if [ -f "$dest" ] && [ "$(cat "$dest.source" 2>/dev/null)" = "$sum" ]; then
    echo "unchanged: ${dest#"$root"/}"
    return
  fi
  strip -o "$tmp/lib.so" "$(readlink -f "$lib")"
  xz -T0 -c "$tmp/lib.so" > "$dest.part" && mv "$dest.part" "$dest"
  echo "$sum" > "$dest.source"
  echo "packed: ${dest#"$root"/} ($(du -h "$dest" | cut -f1))"
}

carry_bin() {  # file: a stripped copy in .gpu/bin
  local f=$1 name
  name=$(basename "$f")
  [ -f "$f" ] || { echo "pack.sh: no file $f" >&2; exit 1; }
  strip -o "$gpu/bin/$name" "$f" 2> /dev/null || cp "$f" "$gpu/bin/$name"
}

pack_lib "$build/src/libParasol.so" "$gpu/lib/libParasol.so.xz"
if [ -n "$base" ]; then
  [ -f "$base/src/libParasol.so" ] || {
    echo "pack.sh: no $base/src/libParasol.so; build one, e.g." >&2
    echo "  git worktree add /tmp/base COMMIT && cmake -S /tmp/base -B /tmp/base/build" \
         "-DCMAKE_BUILD_TYPE=Release -DPARASOL_TESTS=OFF -DPARASOL_BENCH=OFF &&" \
         "cmake --build /tmp/base/build --target Parasol" >&2
    exit 1
  }
  pack_lib "$base/src/libParasol.so" "$gpu/lib/base.so.xz"
fi

for f in "$build"/bench/bench_*; do
  [ -x "$f" ] && [ -f "$f" ] && carry_bin "$f"
done
carry_bin "$build/examples/hello-mixed"
carry_bin "$build/examples/nbody-divide"
carry_bin "$build/examples/image-pipeline"
if [ $tests = 1 ]; then
  for t in "${mixed_tests[@]}"; do
    found=("$build"/test/*/"$t")
    carry_bin "${found[0]}"
  done
  strip -o "$gpu/lib/libParasolFaultVendor.so" "$build/test/fault-vendor/libParasolFaultVendor.so"
fi
if [ ${#extra[@]} -gt 0 ]; then
  for f in "${extra[@]}"; do carry_bin "$f"; done
fi

if ! ls "$gpu"/debs/*.deb > /dev/null 2>&1; then
  runtime=${PACK_RUNTIME:-}
  for candidate in "$root/../shared/gpu/pack-runtime.sh" /work/shared/gpu/pack-runtime.sh; do
    [ -z "$runtime" ] && [ -f "$candidate" ] && runtime=$candidate
  done
  [ -n "$runtime" ] || { echo "pack.sh: set PACK_RUNTIME to pack-runtime.sh" >&2; exit 1; }
  bash "$runtime" "$gpu"
fi

total=$(du -sm "$gpu" | cut -f1)
echo "carry .gpu: ${total} MiB; libraries:" "$gpu"/lib/*.so.xz
[ "$total" -lt 58 ] || echo "pack.sh: .gpu is ${total} MiB; with the tree it must stay under 64" >&2
