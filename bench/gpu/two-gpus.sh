#!/usr/bin/env bash
# Two GPUs of one vendor (the device tool's nvidia-h100-x2): every workload
# on each GPU alone (vendor direct and Parasol device queue), split by the
# application round-robin over both (vendor direct in one context, Parasol
# device queues), and spread by Parasol's policies over one context queue;
# then the NVIDIA + PoCL tests with both GPUs among the devices. Outputs in
# $OUT. Run there as
#   bash bench/gpu/two-gpus.sh
# PHASES (default "bench tests") picks what runs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
R="bash $here/run-on-gpu.sh"; B=$here/../../.gpu/bin; O=${OUT:-/tmp/o}; mkdir -p "$O"
nvidia-smi -L
for phase in ${PHASES:-bench tests}; do
  case $phase in
    bench)
      # Sizes where a GPU has work enough to share: SGEMM at 2048 (8 row
      # blocks of 256 x 2048 x 2048), the others as in long-rounds.sh.
      env POCL_DEVICES=pthread PARASOL_NATIVE_DEVICE=0 BENCH_ROUND_TIMES=1 \
        BENCH_VENDORS=${VENDORS:-NVIDIA} BENCH_ROUNDS=${ROUNDS:-6} BENCH_WARMUP=3 \
        BENCH_BS_N=4194304 BENCH_BS_ITER=16 BENCH_SGEMM_N=${SGEMM_N:-2048} BENCH_SGEMM_ITER=4 \
        BENCH_NBODY_N=16384 BENCH_NBODY_ITER=2 BENCH_SAXPY_N=16777216 BENCH_SAXPY_ITER=4 \
        BENCH_HANG_S=100 BENCH_POLICIES=${POLICIES:-heft,dmdas,eager} \
        timeout "${BENCH_TIMEOUT:-300}" $R "$B/bench_throughput" ${WORKLOADS:-} > "$O/two-gpus${TAG:-}.txt" 2>&1
      echo "bench_throughput exit $?"
      grep -E "^- d|^###|^\| (vendor|Parasol)" "$O/two-gpus${TAG:-}.txt"
      ;;
    debug)
      # One workload under one policy with Parasol's debug log and trace:
      # why each command went where it did.
      env POCL_DEVICES=pthread PARASOL_NATIVE_DEVICE=0 BENCH_VENDORS=${VENDORS:-NVIDIA} \
        BENCH_ROUNDS=2 BENCH_WARMUP=3 BENCH_SAXPY_N=16777216 BENCH_SAXPY_ITER=4 \
        BENCH_BS_N=4194304 BENCH_BS_ITER=16 BENCH_POLICIES=${POLICIES:-heft} \
        PARASOL_LOG=debug PARASOL_TRACE="$O/trace.json" \
        timeout 200 $R "$B/bench_throughput" ${WORKLOADS:-saxpy-resident} > "$O/debug.log" 2>&1
      echo "debug run exit $?"
      grep -E "^\| (Parasol context)" "$O/debug.log"
      xz -f "$O/debug.log" "$O/trace.json"
      ;;
    tests)
      bash "$here/mixed-tests.sh" 2>&1 | tee "$O/two-gpus-tests.txt"
      ;;
  esac
done
