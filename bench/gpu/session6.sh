#!/usr/bin/env bash
# The sixth session's measurements on the GPU machine, in one command: per
# command on NVIDIA (three runs) and PoCL, all workloads under heft and dmdas
# twice (the first pass on a fresh machine also warms the models), then the
# tests that mix NVIDIA with PoCL. Run there as
#   bash bench/gpu/session6.sh        (outputs in $OUT)
set -u
here=$(cd "$(dirname "$0")" && pwd)
R="bash $here/run-on-gpu.sh"; B=$here/../../.gpu/bin; O=${OUT:-/tmp/o}; mkdir -p "$O"
export POCL_DEVICES=pthread
for v in NVIDIA NVIDIA NVIDIA Portable; do
  echo "## $v"
  BENCH_COMMANDS=2000 timeout 90 $R "$B/bench_command_overhead" $v | grep "|"
done > "$O/overhead.txt" 2>&1
sizes="BENCH_VENDORS=NVIDIA,Portable BENCH_ROUNDS=3 BENCH_WARMUP=3 BENCH_BS_N=4194304 BENCH_SGEMM_N=1024 BENCH_NBODY_N=16384 BENCH_SAXPY_N=16777216 BENCH_HANG_S=100 BENCH_POLICIES=heft,dmdas"
for run in 1 2; do
  echo "## run $run"
  env $sizes timeout 260 $R "$B/bench_throughput" 2>&1 | grep -E "^###|^\| (vendor direct, d0|Parasol device queue, d0|Parasol context)"
done > "$O/throughput.txt" 2>&1
bash "$here/mixed-tests.sh" > "$O/tests.txt" 2>&1
cat "$O/overhead.txt" "$O/throughput.txt" "$O/tests.txt"
