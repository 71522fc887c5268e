#!/usr/bin/env bash
# Installs every Debian 12 package Parasol needs to build, test and demo.
# Idempotent: when every package is already installed it does nothing (no
# apt-get at all); otherwise one `apt-get update`, then one
# `apt-get install` of the missing ones. Runs as root (CI, containers) or
# through sudo; never asks a question (DEBIAN_FRONTEND=noninteractive).
#
#   PARASOL_SKIP_DEPS=1   skip this step entirely (you manage packages yourself)
set -euo pipefail

PACKAGES=(
  # toolchain and build
  build-essential cmake pkg-config
  # the runtime Parasol is built on, the ICD loader and the headers
  libstarpu-dev libhwloc-dev ocl-icd-opencl-dev opencl-headers
  # the test suite: Catch2 v2, vendor platforms to re-export, real clients
  catch2 pocl-opencl-icd oclgrind clinfo
  python3-pyopencl python3-numpy python3-matplotlib libclblast-dev
  # StarPU's SOCL example programs, run unchanged by the suite (PARASOL_SOCL=1)
  starpu-examples
  # the native CPU device (kernels-pass): Clang/LLVM 19, FileCheck for its tests
  llvm-19-dev libclang-19-dev clang-19 llvm-19-tools
  # several machines (docs/cluster.md): Open MPI, for the MPI layer and
  # parasol-node (StarPU-MPI comes with libstarpu-dev)
  openmpi-bin libopenmpi-dev
)

if [[ ${PARASOL_SKIP_DEPS:-0} == 1 ]]; then
  echo "install-deps: PARASOL_SKIP_DEPS=1, not checking packages"
  exit 0
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [[ $status == installed ]] || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#PACKAGES[@]} packages are installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
as_root=()
if [[ $(id -u) != 0 ]]; then
  if ! command -v sudo >/dev/null; then
    echo "install-deps: missing packages and not root (and no sudo): ${missing[*]}" >&2
    exit 1
  fi
  as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update </dev/null
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}" </dev/null
