#!/usr/bin/env bash
# Repeated Black-Scholes + SGEMM runs on cold performance models (the models
# of the run's kernels wiped before each), heft and dmdas side by side: how
# placement settles from nothing, and whether a run ever stops making
# progress (the watchdog then prints every thread's stack; that run's output
# is kept, xz-compressed, in $OUT). Run there as
#   MODE=waiter|callback|lazy RUNS=5 [WORKLOADS="blackscholes sgemm nbody saxpy-transfers"] \
#     bash bench/gpu/cold-runs.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
R="bash $here/run-on-gpu.sh"; B=$here/../../.gpu/bin; O=${OUT:-/tmp/o}; mkdir -p "$O"
export POCL_DEVICES=pthread PARASOL_NATIVE_DEVICE=0
sizes="BENCH_VENDORS=NVIDIA,Portable BENCH_ROUNDS=3 BENCH_WARMUP=3 BENCH_BS_N=4194304 BENCH_SGEMM_N=1024 BENCH_NBODY_N=16384 BENCH_SAXPY_N=16777216 BENCH_HANG_S=${HANG:-25} BENCH_HANG_STACKS=1"
for i in $(seq 1 "${RUNS:-5}"); do
  find /tmp/starpu-home -type d -path '*sampling/codelets' -prune -exec rm -rf {} + 2>/dev/null
  SECONDS=0
  env $sizes PARASOL_DIRECT_COMPLETION="${MODE:-waiter}" PARASOL_LOG="${LOGLEVEL:-warn}" \
    BENCH_POLICIES="${POL:-heft,dmdas}" timeout 200 $R "$B/bench_throughput" ${WORKLOADS:-blackscholes sgemm} \
    > /tmp/cold-run.txt 2>&1
  rc=$?
  echo "run $i rc=$rc ${SECONDS}s"
  grep -E "context queue|no progress" /tmp/cold-run.txt | cut -c1-140
  [ $rc -ne 0 ] && xz -c /tmp/cold-run.txt > "$O/cold-run$i.txt.xz"
done
