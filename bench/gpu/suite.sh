#!/usr/bin/env bash
# The standard benchmark set on the GPU machine (NVIDIA's OpenCL and PoCL
# beside Parasol), vendor direct and Parasol side by side in every process.
# Run there, in the repository root, with .gpu/ carried (bench/gpu/pack.sh
# fills it here; bench/README.md):
#
#   bash bench/gpu/suite.sh [STEP...]      default steps: overhead throughput native
#
# Steps:
#   overhead    bench_command_overhead on NVIDIA, then on PoCL's CPU device
#               (OVERHEAD_VENDORS ["NVIDIA Portable"]), RUNS [3] processes each:
#               per stream the median ratio of the device queue, the context queue
#               and the context queue over NVIDIA + PoCL to the vendor's own time
#   throughput  bench_throughput over NVIDIA + PoCL, every workload (WORKLOADS: its
#               arguments), rounds long enough to rank (the sizes below), heft and
#               dmdas; THROUGHPUT_RUNS [1] processes; COLD=1 wipes the kernels'
#               performance models before the first (it calibrates from nothing)
#   native      bench_native_vs_pocl: Parasol's native CPU device against PoCL's, and
#               the C++ triad and loop-nest SGEMM references over the same cores
#   queues      bench_vendor_queues NVIDIA: independent commands side by side
#   transfers   bench_transfer_paths NVIDIA: transfers of a buffer on the GPU
#   costs       bench_vendor_costs NVIDIA: the vendor's price for each ingredient of
#               Parasol's calling pattern, kernel and write streams
#   divide      bench/nbody_divide.sh: adaptive granularity against static factors
#   tests       every carried test binary (.gpu/bin/test_*, pack.sh --tests), once
# A/B: LIBS="name:.gpu/lib/x.so.xz[:VAR=value,...] ..." or AB=1 (every .gpu/lib/*.so.xz,
# named after the file) runs each step once per library, the overhead and
# throughput processes alternating between libraries, the order swapped every
# round; each library keeps its own STARPU_HOME. The settings after a second
# colon apply to that library's processes: one library under two settings is
# "a:lib.xz b:lib.xz:PARASOL_LANES=8".
# Any BENCH_* or PARASOL_* variable set by the caller wins over the suite's
# defaults (e.g. BENCH_POLICIES=heft, BENCH_ROUNDS=16, PARASOL_NATIVE_DEVICE=1).
# Outputs in $OUT [/tmp/parasol-bench]: summary.txt (written after every step)
# and one file of raw output per step. A command must end within the device
# tool's 10 minutes: no process runs past DEADLINE_S [560] seconds, so the
# summary always comes back; run long sets in several commands.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$root/.gpu/bin
out=${OUT:-/tmp/parasol-bench}
deadline=${DEADLINE_S:-560}
# The command that runs a program there (SUITE_RUNNER: a stand-in to try the suite elsewhere).
runner=(bash "$here/run-on-gpu.sh")
[ -n "${SUITE_RUNNER:-}" ] && read -r -a runner <<< "$SUITE_RUNNER"
mkdir -p "$out"
summary=$out/summary.txt

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(overhead throughput native)

# Libraries: "name lib settings" per entry; the default library alone unless A/B.
libs=()
if [ -n "${LIBS:-}" ]; then
  read -r -a specs <<< "$LIBS"
  for spec in "${specs[@]}"; do
    IFS=: read -r name lib settings <<< "$spec"
    libs+=("$name|$lib|${settings:-}")
  done
elif [ "${AB:-0}" = 1 ]; then
  for lib in "$root"/.gpu/lib/*.so.xz; do
    name=$(basename "$lib" .so.xz)
    libs+=("$name|$lib|")
  done
else
  libs+=("parasol|${PARASOL_GPU_LIB:-$root/.gpu/lib/libParasol.so.xz}|")
fi
ab=0
[ ${#libs[@]} -gt 1 ] && ab=1

log() { echo "$*" | tee -a "$summary"; }
left() { echo $((deadline - SECONDS)); }

# run LIMIT LIBENTRY PROGRAM ARGS...: one process with that library and its
# settings, the output on stdout; nothing when the deadline has passed.
run() {
  local limit=$1 entry=$2
  shift 2
  local name lib settings
  IFS='|' read -r name lib settings <<< "$entry"
  local remaining
  remaining=$(left)
  if [ "$remaining" -le 10 ]; then
    echo "(skipped: past DEADLINE_S)"
    return 124
  fi
  [ "$limit" -gt "$remaining" ] && limit=$remaining
  local env_args=(PARASOL_GPU_LIB="$lib")
  [ $ab = 1 ] && env_args+=(STARPU_HOME="${STARPU_HOME:-/tmp/starpu-home}-$name")
  if [ -n "$settings" ]; then
    local pairs
    IFS=, read -r -a pairs <<< "$settings"
    env_args+=("${pairs[@]}")
  fi
  env "${env_args[@]}" timeout "$limit" "${runner[@]}" "$@" < /dev/null 2>&1
}

# The order of the libraries in round R: swapped every other round.
order() {
  if [ $(($1 % 2)) -eq 0 ]; then
    printf '%s\n' "${libs[@]}" | tac
  else
    printf '%s\n' "${libs[@]}"
  fi
}

wipe_models() {  # STARPU_HOME: the kernels' models go, the bus calibration stays
  find "$1" -type d -path '*sampling/codelets' -prune -exec rm -rf {} + 2> /dev/null
}

step_overhead() {
  local f=$out/overhead.txt
  : > "$f"
  for vendor in ${OVERHEAD_VENDORS:-NVIDIA Portable}; do
    for r in $(seq "${RUNS:-3}"); do
      while IFS= read -r entry; do
        echo "## ${entry%%|*} $vendor run $r" >> "$f"
        PARASOL_NATIVE_DEVICE=${PARASOL_NATIVE_DEVICE:-0} POCL_DEVICES=${POCL_DEVICES:-pthread} \
          BENCH_COMMANDS=${BENCH_COMMANDS:-2000} \
          run 120 "$entry" "$bin/bench_command_overhead" "$vendor" >> "$f"
      done < <(order "$r")
    done
  done
  python3 - "$f" <<'PY' | tee -a "$summary"
import collections, re, statistics as st, sys
# "## lib vendor run r" then bench_command_overhead's table:
# | stream | vendor | device | ratio | context | ratio | [every device | ratio |]
rows = collections.OrderedDict()
lib = vendor = None
for line in open(sys.argv[1]):
    m = re.match(r"## (\S+) (\S+) run", line)
    if m:
        lib, vendor = m.groups()
        continue
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if not line.startswith("| ") or cells[0] == "command stream" or len(cells) < 6:
        continue
    try:
        vals = [float(c.rstrip("x")) for c in cells[1:]]
    except ValueError:
        continue
    rows.setdefault((vendor, cells[0], lib), []).append(vals)
def cell(xs):
    xs = sorted(xs)
    if not xs:
        return "-"
    return f"{st.median(xs):.2f}x" + (f" ({xs[0]:.2f}-{xs[-1]:.2f})" if len(xs) > 1 else "")
shown = None
for (vendor, stream, lib), runs in rows.items():
    if vendor != shown:
        shown = vendor
        print(f"\n### per command, {vendor}: median ratio to the vendor's own time (range)\n")
        print("| stream | library | runs | vendor us | device queue | context queue"
              " | context queue, every device |")
        print("|---|---|---|---|---|---|---|")
    vendor_us = st.median(r[0] for r in runs)
    cols = [cell([r[i] for r in runs if len(r) > i]) for i in (2, 4, 6)]
    print(f"| {stream} | {lib} | {len(runs)} | {vendor_us:.2f} | " + " | ".join(cols) + " |")
PY
}

step_throughput() {
  local f=$out/throughput.txt first=()
  : > "$f"
  # Rounds long enough to rank (a Black-Scholes round of 16 iterations, SGEMM of 8,
  # resident saxpy of 64 kernels per block): shorter ones are decided by one lucky round.
  local sizes=(
    BENCH_VENDORS="${BENCH_VENDORS:-NVIDIA,Portable}" BENCH_POLICIES="${BENCH_POLICIES:-heft,dmdas}"
    BENCH_ROUNDS="${BENCH_ROUNDS:-8}" BENCH_WARMUP="${BENCH_WARMUP:-3}"
    BENCH_BS_N="${BENCH_BS_N:-4194304}" BENCH_BS_ITER="${BENCH_BS_ITER:-16}"
    BENCH_SGEMM_N="${BENCH_SGEMM_N:-1024}" BENCH_SGEMM_ITER="${BENCH_SGEMM_ITER:-8}"
    BENCH_NBODY_N="${BENCH_NBODY_N:-16384}" BENCH_NBODY_ITER="${BENCH_NBODY_ITER:-2}"
    BENCH_SAXPY_N="${BENCH_SAXPY_N:-16777216}" BENCH_SAXPY_ITER="${BENCH_SAXPY_ITER:-4}"
    BENCH_RESIDENT_ITER="${BENCH_RESIDENT_ITER:-64}" BENCH_HANG_S="${BENCH_HANG_S:-100}"
    PARASOL_NATIVE_DEVICE="${PARASOL_NATIVE_DEVICE:-0}" POCL_DEVICES="${POCL_DEVICES:-pthread}")
  read -r -a workloads <<< "${WORKLOADS:-}"
  for r in $(seq "${THROUGHPUT_RUNS:-1}"); do
    while IFS= read -r entry; do
      local name=${entry%%|*}
      if [ "${COLD:-0}" = 1 ] && [[ " ${first[*]} " != *" $name "* ]]; then
        local home=${STARPU_HOME:-/tmp/starpu-home}
        [ $ab = 1 ] && home=$home-$name
        wipe_models "$home"
        first+=("$name")
        echo "## $name run $r (cold models)" >> "$f"
      else
        echo "## $name run $r" >> "$f"
      fi
      local t0=$SECONDS rc
      (export "${sizes[@]}"; run 300 "$entry" "$bin/bench_throughput" "${workloads[@]}") >> "$f"
      rc=$?
      echo "(${name} run $r: rc=$rc, $((SECONDS - t0)) s)" >> "$f"
    done < <(order "$r")
  done
  python3 - "$f" <<'PY' | tee -a "$summary"
import collections, re, statistics as st, sys
# bench_throughput: "### workload", then | configuration | rate | vs best vendor device |
# median rounds, vs that vendor | vs same device direct | commands per device | results |
rows = collections.OrderedDict()
devices = collections.OrderedDict()
lib = workload = None
for line in open(sys.argv[1]):
    m = re.match(r"## (\S+) run", line)
    if m:
        lib = m.group(1)
        continue
    if line.startswith("- d"):
        devices[line.strip()] = 1
    if line.startswith("### "):
        workload = line[4:].strip()
        continue
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if not line.startswith("| ") or len(cells) < 7 or cells[0] == "configuration":
        continue
    label = cells[0].replace(" (best)", "")
    rows.setdefault((workload, label, lib), []).append(cells)
print("\n### throughput against the best vendor device: best round (median round)\n")
for d in devices:
    print(d)
print("\n| workload | configuration | library | runs | best round | median round"
      " | commands per device | results |")
print("|---|---|---|---|---|---|---|---|")
for (workload, label, lib), runs in rows.items():
    best = " ".join(r[2] for r in runs)
    med = " ".join(r[3] for r in runs)
    print(f"| {workload} | {label} | {lib} | {len(runs)} | {best} | {med} | {runs[-1][5]}"
          f" | {runs[-1][6]} |")
PY
  grep -h "no progress\|rc=[1-9]\|skipped" "$f" | head -5 | tee -a "$summary"
}

step_native() {
  local f=$out/native.txt
  : > "$f"
  while IFS= read -r entry; do
    echo "## ${entry%%|*}" >> "$f"
    log "## ${entry%%|*}"
    # The native device on (the other steps leave it out), PoCL on every core.
    # shellcheck disable=SC2030  # the subshell's own settings, on purpose
    (unset PARASOL_NATIVE_DEVICE
     export POCL_DEVICES="${POCL_DEVICES:-pthread}" BENCH_ROUNDS="${BENCH_ROUNDS:-5}" \
       BENCH_SGEMM_N="${BENCH_SGEMM_N:-1024}" BENCH_NBODY_N="${BENCH_NBODY_N:-8192}" \
       BENCH_BS_N="${BENCH_BS_N:-4194304}"
     # Line-buffered: the tables are out before StarPU's shutdown, which aborts
     # when it saves its models into the caches the benchmark has removed.
     run 240 "$entry" stdbuf -oL "$bin/bench_native_vs_pocl") > "$out/native.part"
    cat "$out/native.part" >> "$f"
    grep -E "^\||^native device|^C\+\+ references|^files" "$out/native.part" | tee -a "$summary"
    rm -f "$out/native.part"
  done < <(order 1)
}

# A vendor-only or per-device benchmark, once per library: its tables to the summary.
step_simple() {  # step program args...
  local step=$1 f=$out/$1.txt
  shift
  : > "$f"
  while IFS= read -r entry; do
    echo "## ${entry%%|*} $*" >> "$f"
    log "## ${entry%%|*} $*"
    # shellcheck disable=SC2031
    POCL_DEVICES=${POCL_DEVICES:-pthread} PARASOL_NATIVE_DEVICE=${PARASOL_NATIVE_DEVICE:-0} \
      run 200 "$entry" "$@" > "$out/$step.part"
    cat "$out/$step.part" >> "$f"
    grep -v '^\[\|^$' "$out/$step.part" | tee -a "$summary"
    rm -f "$out/$step.part"
  done < <(order 1)
}

step_costs() {
  BENCH_STREAM="kernel" step_simple costs "$bin/bench_vendor_costs" NVIDIA
  mv "$out/costs.txt" "$out/costs-kernel.txt"
  BENCH_STREAM="write" step_simple costs "$bin/bench_vendor_costs" NVIDIA
}

step_divide() {  # context queue, eager, NVIDIA + PoCL: nbody-divide at 8192 bodies
  NBODY_EXE=$bin/nbody-divide step_simple divide bash "$root/bench/nbody_divide.sh" . \
    "${DIVIDE_N:-8192}" "${DIVIDE_STEPS:-40}" 1 4 1
}

step_tests() {
  local f=$out/tests.txt
  : > "$f"
  while IFS= read -r entry; do
    log "## tests, ${entry%%|*}"
    for t in "$bin"/test_*; do
      [ -x "$t" ] || continue
      local name
      name=$(basename "$t")
      rm -f /tmp/vendors/fault.icd
      if [ "$name" = test_fault_soak ]; then
        local fault=$root/.gpu/lib/libParasolFaultVendor.so
        [ -f "$fault" ] || { log "$name: no fault vendor carried"; continue; }
        mkdir -p /tmp/vendors
        echo "$fault" > /tmp/vendors/fault.icd
      fi
      # Two PoCL devices beside NVIDIA, as the suite's configuration has two.
      POCL_DEVICES="pthread pthread" run 150 "$entry" "$t" > "$out/test.part"
      local rc=$?
      rm -f /tmp/vendors/fault.icd
      { echo "## $name rc=$rc"; cat "$out/test.part"; } >> "$f"
      if [ $rc -eq 0 ]; then
        log "$name: $(tail -2 "$out/test.part" | tr -s '\n' ' ')"
      else
        log "$name FAILED ($rc)"
        tail -40 "$out/test.part" | tee -a "$summary"
      fi
    done
  done < <(order 1)
  rm -f "$out/test.part"
}

{
  echo "# Parasol benchmark suite: ${steps[*]}"
  echo "cores: $(nproc)"
  nvidia-smi -L 2> /dev/null || echo "(no nvidia-smi)"
  for entry in "${libs[@]}"; do
    IFS='|' read -r name lib settings <<< "$entry"
    sum=$(md5sum < "$lib" 2> /dev/null | cut -c1-12)
    echo "library $name: $lib ($sum)${settings:+ with $settings}"
  done
} > "$summary"
cat "$summary"
for step in "${steps[@]}"; do
  log ""
  log "## step $step (at ${SECONDS} s)"
  case $step in
    overhead) step_overhead ;;
    throughput) step_throughput ;;
    native) step_native ;;
    queues) step_simple queues "$bin/bench_vendor_queues" NVIDIA ;;
    transfers) step_simple transfers "$bin/bench_transfer_paths" NVIDIA ;;
    costs) step_costs ;;
    divide) step_divide ;;
    tests) step_tests ;;
    *) log "unknown step $step" ;;
  esac
done
log ""
log "done in ${SECONDS} s; raw outputs beside this file in $out"
