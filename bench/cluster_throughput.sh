#!/usr/bin/env bash
# Whole workloads (bench_throughput: Black-Scholes and nbody by default)
# over the devices of two ranks against one process, on the same machine:
#
#  1. one process, no mpirun, with the devices ONE_ENV gives it: a context
#     queue over them (POLICY), and a device queue on its first device;
#  2. mpirun with two ranks, rank 0 running bench_throughput with the
#     devices RANK0_ENV gives it, rank 1 parasol-node with RANK1_ENV's:
#     a context queue over both ranks' devices (Parasol's placement over
#     ranks, docs/cluster.md), the application's own round-robin over the
#     two ranks' device queues, and rank 0's device queue alone.
#
# Prints each run's tables, then one table of ratios (throughput, higher is
# better): each 2-rank configuration against run 1's context queue, and
# against rank 0's device queue of the same process (the same process, so
# the machine's noise hits both alike).
#
#   bench/cluster_throughput.sh [BUILD_DIR] [WORKLOAD...]
#
# Environment: BENCH_VENDORS [Portable], POLICY [heft], MPIRUN [mpirun],
# VENDORS_DIR [BUILD_DIR/vendors-cluster: PoCL and Parasol registered],
# ONE_ENV, RANK0_ENV, RANK1_ENV [POCL_DEVICES=pthread each: one PoCL device
# per process on every core], and bench_throughput's own (BENCH_ROUNDS,
# BENCH_BS_N, BENCH_NBODY_N, ...). On a machine of two GPUs:
#   BENCH_VENDORS=NVIDIA ONE_ENV=CUDA_VISIBLE_DEVICES=0,1 \
#   RANK0_ENV=CUDA_VISIBLE_DEVICES=0 RANK1_ENV=CUDA_VISIBLE_DEVICES=1 \
#   bench/cluster_throughput.sh build
set -euo pipefail
build=${1:-build}
shift || true
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(blackscholes nbody)
policy=${POLICY:-heft}
mpirun=${MPIRUN:-mpirun}
vendors=${VENDORS_DIR:-$build/vendors-cluster}
one_env=${ONE_ENV:-POCL_DEVICES=pthread}
rank0_env=${RANK0_ENV:-POCL_DEVICES=pthread}
rank1_env=${RANK1_ENV:-POCL_DEVICES=pthread}
bench=$build/bench/bench_throughput
node=$build/src/cluster/parasol-node
export BENCH_VENDORS=${BENCH_VENDORS:-Portable} BENCH_POLICIES=$policy
export OCL_ICD_VENDORS=$vendors PARASOL_NATIVE_DEVICE=${PARASOL_NATIVE_DEVICE:-0}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "## one process"
# shellcheck disable=SC2086
env $one_env "$bench" "${workloads[@]}" | tee "$out/one.md"
echo
echo "## two ranks"
# shellcheck disable=SC2086
PARASOL_REMOTE_DEVICES=1 "$mpirun" --oversubscribe ${MPIRUN_ARGS:-} \
  -np 1 env $rank0_env "$bench" "${workloads[@]}" : -np 1 env $rank1_env "$node" |
  tee "$out/two.md"

# The throughput column of configuration $2 in workload $3's table of file $1.
figure() {
  awk -v want="$2" -v w="$3" '
    /^### / { cur = $2 }
    cur == w && index($0, "| " want) == 1 { split($0, f, "|"); gsub(/ /, "", f[3]); print f[3]; exit }
  ' "$1"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2fx", a / b }'; }

echo
echo "## two ranks against one process ($policy, throughput ratios)"
echo
echo "| workload | 2 ranks: context queue vs 1 process's | 2 ranks: context queue vs rank 0's device queue | 2 ranks: round-robin over ranks vs rank 0's device queue | 1 process: context queue vs its device queue |"
echo "|---|---|---|---|---|"
for w in "${workloads[@]}"; do
  one_ctx=$(figure "$out/one.md" "Parasol context queue, $policy" "$w")
  one_dev=$(figure "$out/one.md" "Parasol device queue, d0" "$w")
  two_ctx=$(figure "$out/two.md" "Parasol context queue, $policy" "$w")
  two_dev=$(figure "$out/two.md" "Parasol device queue, d0" "$w")
  two_rr=$(figure "$out/two.md" "Parasol device queues, round-robin" "$w")
  echo "| $w | $(ratio "$two_ctx" "$one_ctx") | $(ratio "$two_ctx" "$two_dev") | $(ratio "$two_rr" "$two_dev") | $(ratio "$one_ctx" "$one_dev") |"
done
