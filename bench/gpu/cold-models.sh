#!/usr/bin/env bash
# heft over every device on cold performance models (docs/benchmarks.md,
# "Calibration on cold models"): the models of this run's kernels are wiped
# first (bus calibration is kept), heft is the first policy measured, so its
# warm-up iterations are StarPU's calibration. Run there as
#   bash bench/gpu/cold-models.sh        (outputs in $OUT)
set -u
here=$(cd "$(dirname "$0")" && pwd)
R="bash $here/run-on-gpu.sh"; B=$here/../../.gpu/bin; O=${OUT:-/tmp/o}; mkdir -p "$O"
export POCL_DEVICES=pthread PARASOL_NATIVE_DEVICE=0
find /tmp/starpu-home "${XDG_CACHE_HOME:-$HOME/.cache}" -type d -path '*sampling/codelets' \
  -prune -exec rm -rf {} + 2>/dev/null
sizes="BENCH_VENDORS=NVIDIA,Portable BENCH_ROUNDS=3 BENCH_WARMUP=3 BENCH_BS_N=4194304 BENCH_SGEMM_N=1024 BENCH_NBODY_N=16384 BENCH_SAXPY_N=16777216 BENCH_HANG_S=100"
env $sizes BENCH_POLICIES=heft,dmdas PARASOL_LOG=info timeout 400 $R "$B/bench_throughput" \
  > "$O/cold-models.txt" 2>&1
grep -E "^\||^###|calibrates its model" "$O/cold-models.txt" | cut -c1-220
