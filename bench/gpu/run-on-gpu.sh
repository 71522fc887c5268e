#!/usr/bin/env bash
# Runs one command on the GPU machine with Parasol registered beside NVIDIA's
# OpenCL and PoCL, everything from the carried .gpu folder (bench/gpu/pack.sh
# fills it here; bench/README.md). Usage (there, in the repository root):
#   bash bench/gpu/run-on-gpu.sh COMMAND...
#   e.g. bash bench/gpu/run-on-gpu.sh .gpu/bin/bench_command_overhead NVIDIA
# It unpacks the carried Debian packages (StarPU, hwloc, GLPK, the ocl-icd
# loader) into /tmp/root, writes an ICD folder in /tmp/vendors (NVIDIA, PoCL,
# Parasol) and execs COMMAND with OCL_ICD_VENDORS, STARPU_HOME
# [/tmp/starpu-home], POCL_DEVICES [two PoCL devices, as in the test suite;
# the benchmarks take "pthread": one on every core] and
# PARASOL_TEST_OTHER_VENDOR set. PARASOL_GPU_LIB names the packed library
# [.gpu/lib/libParasol.so.xz]; .gpu/lib/libParasol.so is used when no .xz is.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
gpu=$root/.gpu
mkdir -p /tmp/root
for d in "$gpu"/debs/*.deb; do dpkg -x "$d" /tmp/root; done
export LD_LIBRARY_PATH=/tmp/root/usr/lib/x86_64-linux-gnu:/tmp/root/lib/x86_64-linux-gnu:$gpu/lib
mkdir -p /tmp/no-hwloc-plugins && export HWLOC_PLUGINS_PATH=/tmp/no-hwloc-plugins
mkdir -p /tmp/vendors
echo /usr/lib/libnvidia-opencl.so.1 > /tmp/vendors/nvidia.icd
cp /etc/OpenCL/vendors/pocl.icd /tmp/vendors/
# The library travels compressed (static LLVM inside): unpacked once per
# carried version (a warm machine keeps /tmp between calls).
# PARASOL_GPU_LIB names another carried .xz (A/B runs: bench/gpu/suite.sh).
lib=$gpu/lib/libParasol.so
xzlib=${PARASOL_GPU_LIB:-$gpu/lib/libParasol.so.xz}
if [ -f "$xzlib" ]; then
  sum=$(md5sum < "$xzlib" | cut -c1-32)
  lib=/tmp/parasol-lib/$sum/libParasol.so
  if [ ! -f "$lib" ]; then
    mkdir -p "/tmp/parasol-lib/$sum" && xz -dc "$xzlib" > "$lib.part" && mv "$lib.part" "$lib"
  fi
fi
echo "$lib" > /tmp/vendors/parasol.icd
export OCL_ICD_VENDORS=/tmp/vendors STARPU_HOME=${STARPU_HOME:-/tmp/starpu-home} PARASOL_TEST_OTHER_VENDOR="NVIDIA CUDA"
# Two PoCL devices, as in the test suite.
export POCL_DEVICES="${POCL_DEVICES:-pthread pthread}"
mkdir -p "$STARPU_HOME"
exec "$@"
