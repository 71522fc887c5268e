#!/usr/bin/env bash
# Everything Parasol measures and checks on the GPU machine, in one command
# (device time is scarce): mixed NVIDIA + PoCL tests, the demo, the
# benchmarks. Outputs go to $OUT (one file per step). Run there as
#   bash bench/gpu/gpu-suite.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
run="bash $here/run-on-gpu.sh"
bin=$here/../../.gpu/bin
out=${OUT:-/tmp/out}
mkdir -p "$out"
step() {  # name timeout command...
  local name=$1 limit=$2
  shift 2
  echo "== $name" >&2
  ( timeout "$limit" "$@" ) > "$out/$name.txt" 2>&1
  echo "rc=$?" >> "$out/$name.txt"
  tail -3 "$out/$name.txt" >&2
}
nproc >&2; nvidia-smi -L >&2
if [ "${GPU_SUITE:-all}" = all ]; then
step clinfo 60 $run clinfo -l
step hello-mixed 60 $run "$bin/hello-mixed"
# The suite's tests, NVIDIA as the second vendor beside two PoCL devices.
for t in test_mixed_vendor_chain test_mixed_vendor_data test_queue_ordering test_failure_propagation \
         test_buffer_transfer test_kernel_arg_capture test_release_in_flight \
         test_event_callback_profiling test_context_queue test_heft_placement test_divide_function; do
  step "$t" 60 $run "$bin/$t"
done
fi
# Benchmarks: NVIDIA + one PoCL device on all cores, vendors only.
export POCL_DEVICES=pthread PARASOL_NATIVE_DEVICE=0
step overhead-nvidia 90 env BENCH_COMMANDS=2000 $run "$bin/bench_command_overhead" NVIDIA
step overhead-pocl 90 env BENCH_COMMANDS=2000 $run "$bin/bench_command_overhead" Portable
# StarPU's driver back-off: does a worker that never naps lower the latency?
step overhead-nvidia-nobackoff 90 env BENCH_COMMANDS=2000 STARPU_BACKOFF_MIN=1 STARPU_BACKOFF_MAX=1 \
  $run "$bin/bench_command_overhead" NVIDIA
step throughput 240 env BENCH_VENDORS=NVIDIA,Portable BENCH_POLICIES=eager,heft,dmdas,ws \
  BENCH_ROUNDS=3 BENCH_WARMUP=3 BENCH_BS_N=4194304 BENCH_SGEMM_N=1024 BENCH_NBODY_N=16384 \
  BENCH_SAXPY_N=16777216 BENCH_HANG_S=100 $run "$bin/bench_throughput"
step nbody-divide 150 env NBODY_EXE="$bin/nbody-divide" $run bash "$here/../nbody_divide.sh" . 8192 16 1 4 1
# Only 8 files come back from the machine: one archive of every step's output.
tar -C "$out" -czf /tmp/gpu-suite.tgz . && rm -f "$out"/*.txt && mv /tmp/gpu-suite.tgz "$out/"
