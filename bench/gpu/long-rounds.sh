#!/usr/bin/env bash
# Every workload under heft and dmdas against NVIDIA alone, with rounds long
# enough to measure: the sixth session's sizes ran Black-Scholes and SGEMM
# rounds of 2-5 ms, whose best of 3 moved +-8% between processes on the
# vendor's own queue. Here 16 / 8 iterations per round, 8 rounds, every
# round's time on stderr; two processes (the first on wiped kernel models: cold). Run there as
#   bash bench/gpu/long-rounds.sh        (outputs in $OUT)
# POLICIES, ROUNDS, RUNS (processes) and WORKLOADS (bench_throughput's arguments) narrow it;
# NATIVE=1 VENDORS=NVIDIA,Portable,Parasol adds Parasol's native CPU device.
set -u
here=$(cd "$(dirname "$0")" && pwd)
R="bash $here/run-on-gpu.sh"; B=$here/../../.gpu/bin; O=${OUT:-/tmp/o}; mkdir -p "$O"
export POCL_DEVICES=pthread PARASOL_NATIVE_DEVICE=${NATIVE:-0} BENCH_ROUND_TIMES=1
find "${STARPU_HOME:-/tmp/starpu-home}" -type d -path '*sampling/codelets' -prune -exec rm -rf {} + 2>/dev/null
sizes="BENCH_VENDORS=${VENDORS:-NVIDIA,Portable} BENCH_ROUNDS=${ROUNDS:-8} BENCH_WARMUP=3
  BENCH_BS_N=4194304 BENCH_BS_ITER=16 BENCH_SGEMM_N=1024 BENCH_SGEMM_ITER=8
  BENCH_NBODY_N=16384 BENCH_NBODY_ITER=2 BENCH_SAXPY_N=16777216 BENCH_SAXPY_ITER=4 BENCH_RESIDENT_ITER=64
  BENCH_HANG_S=100 BENCH_POLICIES=${POLICIES:-heft,dmdas}"
for run in $(seq "${RUNS:-2}"); do
  echo "## run $run"
  env $sizes timeout 290 $R "$B/bench_throughput" ${WORKLOADS:-} > "$O/long$run.txt" 2>&1
  grep -E "^###|^\| (vendor direct, d0|Parasol device queue, d0|Parasol context)" "$O/long$run.txt"
done
