#!/usr/bin/env bash
# Two carried libraries side by side on the GPU machine: per-command overhead
# on NVIDIA, then heft over NVIDIA + PoCL on cold models (each library's own
# STARPU_HOME, its kernels' models wiped) and again warm, alternating which
# library goes first each round. Run there as
#   LIBS="old:.gpu/lib/libA.so.xz new:.gpu/lib/libParasol.so.xz" ROUNDS=1 \
#     [OVERHEAD=2] [WORKLOADS="blackscholes saxpy-resident"] bash bench/gpu/ab-cold.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
R="bash $here/run-on-gpu.sh"; B=$here/../../.gpu/bin; O=${OUT:-/tmp/o}; mkdir -p "$O"
export POCL_DEVICES=pthread PARASOL_NATIVE_DEVICE=0
read -r -a libs <<< "${LIBS:?LIBS=\"name:path.xz ...\"}"
for i in $(seq 1 "${OVERHEAD:-0}"); do
  for spec in "${libs[@]}"; do
    echo "## overhead $i ${spec%%:*}"
    PARASOL_GPU_LIB=${spec#*:} BENCH_COMMANDS=2000 timeout 90 $R "$B/bench_command_overhead" NVIDIA | grep "|"
  done
done
sizes="BENCH_VENDORS=NVIDIA,Portable BENCH_ROUNDS=3 BENCH_WARMUP=3 BENCH_BS_N=4194304 BENCH_SGEMM_N=1024 BENCH_NBODY_N=16384 BENCH_SAXPY_N=16777216 BENCH_HANG_S=60 BENCH_POLICIES=heft"
for r in $(seq 1 "${ROUNDS:-1}"); do
  order=("${libs[@]}")
  [ $((r % 2)) -eq 0 ] && order=($(printf '%s\n' "${libs[@]}" | tac))
  for spec in "${order[@]}"; do
    name=${spec%%:*}
    home=/tmp/starpu-home-$name
    find "$home" -type d -path '*sampling/codelets' -prune -exec rm -rf {} + 2>/dev/null
    for run in cold warm; do
      echo "## round $r $name $run"
      SECONDS=0
      env $sizes STARPU_HOME="$home" PARASOL_GPU_LIB="${spec#*:}" timeout 200 $R "$B/bench_throughput" \
        ${WORKLOADS:-} > "$O/run.txt" 2>&1
      echo "rc=$? ${SECONDS}s"
      grep -E "^###|^\| (vendor direct, d0|Parasol device queue, d0|Parasol context)" "$O/run.txt" | cut -c1-160
    done
  done
done
