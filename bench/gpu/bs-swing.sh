#!/usr/bin/env bash
# Black-Scholes alone, many rounds, every round's time printed
# (BENCH_ROUND_TIMES): how far the device queue and heft swing against
# NVIDIA, with PoCL in the process (measured between them) and without.
# Run there as   bash bench/gpu/bs-swing.sh   (outputs in $OUT)
set -u
here=$(cd "$(dirname "$0")" && pwd)
R="bash $here/run-on-gpu.sh"; B=$here/../../.gpu/bin; O=${OUT:-/tmp/o}; mkdir -p "$O"
export POCL_DEVICES=pthread PARASOL_NATIVE_DEVICE=0 BENCH_ROUND_TIMES=1
sizes="BENCH_ROUNDS=${ROUNDS:-8} BENCH_WARMUP=3 BENCH_BS_N=4194304 BENCH_HANG_S=100 BENCH_POLICIES=heft"
for vendors in ${VENDOR_SETS:-NVIDIA,Portable NVIDIA}; do
  for extra in ${VARIANTS:-none}; do
    echo "## vendors $vendors, $extra"
    env $sizes BENCH_VENDORS=$vendors ${extra/none/X=0} timeout 200 $R "$B/bench_throughput" blackscholes 2>&1 |
      grep -E "rounds,|^\| (vendor|Parasol)"
  done
done 2>&1 | tee "$O/bs-swing.txt"
