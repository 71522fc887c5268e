#!/usr/bin/env bash
# Idle StarPU workers parked (the default, src/runtime/worker_parking.h) or
# spinning (PARASOL_PARK_WORKERS=0) on the GPU machine, in one command: per
# command on NVIDIA and on PoCL (16 cores), then the workloads under heft
# (the first pass also warms the models), parked / spinning / parked again,
# then the tests that mix NVIDIA with PoCL. Run there as
#   bash bench/gpu/parking.sh        (outputs in $OUT)
set -u
here=$(cd "$(dirname "$0")" && pwd)
R="bash $here/run-on-gpu.sh"; B=$here/../../.gpu/bin; O=${OUT:-/tmp/o}; mkdir -p "$O"
export POCL_DEVICES=pthread
for v in NVIDIA Portable; do
  for park in 1 0 1; do
    echo "## PARASOL_PARK_WORKERS=$park $v"
    PARASOL_PARK_WORKERS=$park BENCH_COMMANDS=2000 timeout 90 $R "$B/bench_command_overhead" $v | grep "|"
  done
done > "$O/overhead.txt" 2>&1
sizes="BENCH_VENDORS=NVIDIA,Portable BENCH_ROUNDS=3 BENCH_WARMUP=3 BENCH_BS_N=4194304 BENCH_SGEMM_N=1024 BENCH_NBODY_N=16384 BENCH_SAXPY_N=16777216 BENCH_HANG_S=100 BENCH_POLICIES=heft"
for park in 1 0 1; do
  echo "## PARASOL_PARK_WORKERS=$park"
  env $sizes PARASOL_PARK_WORKERS=$park timeout 170 $R "$B/bench_throughput" 2>&1 | grep -v "^\[parasol\]"
done > "$O/throughput.txt" 2>&1
for t in test_worker_parking test_direct_path test_context_queue; do
  echo "## $t"
  POCL_DEVICES="pthread pthread" timeout 120 $R "$B/$t" 2>&1 | tail -3
done > "$O/tests.txt" 2>&1
cat "$O/overhead.txt"
