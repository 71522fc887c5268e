#!/usr/bin/env bash
# The direct launch path on the GPU machine (docs/benchmarks.md, "The direct
# launch path"): per-command overhead with each way of noticing completions
# (waiter thread, the default; a callback per command; lazy), NVIDIA and
# PoCL, then whole workloads with the default and with lazy. Run there as
#   bash bench/gpu/direct-path.sh        (outputs in $OUT)
set -u
here=$(cd "$(dirname "$0")" && pwd)
R="bash $here/run-on-gpu.sh"; B=$here/../../.gpu/bin; O=${OUT:-/tmp/o}; mkdir -p "$O"
export POCL_DEVICES=pthread PARASOL_NATIVE_DEVICE=0
for m in waiter callback lazy; do
  for v in NVIDIA Portable; do
    echo "## $m $v"
    PARASOL_DIRECT_COMPLETION=$m BENCH_COMMANDS=2000 timeout 90 $R "$B/bench_command_overhead" $v | grep "|"
  done
done > "$O/overhead.txt" 2>&1
sizes="BENCH_VENDORS=NVIDIA,Portable BENCH_ROUNDS=3 BENCH_WARMUP=3 BENCH_BS_N=4194304 BENCH_SGEMM_N=1024 BENCH_NBODY_N=16384 BENCH_SAXPY_N=16777216 BENCH_HANG_S=100"
env $sizes BENCH_POLICIES=heft,dmdas,eager,ws timeout 300 $R "$B/bench_throughput" > "$O/throughput.txt" 2>&1
env $sizes PARASOL_DIRECT_COMPLETION=lazy BENCH_POLICIES=heft timeout 200 $R "$B/bench_throughput" > "$O/throughput-lazy.txt" 2>&1
cat "$O/overhead.txt"
