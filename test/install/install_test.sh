#!/usr/bin/env bash
# install_test.sh BUILD_DIR SOURCE_DIR
# Installs the build tree to a fresh prefix, checks the installed files, builds
# test/install/consumer against it twice (find_package(Parasol); plain cc with
# pkg-config), runs both on the installed parasol.icd beside PoCL, then runs
# the uninstall target and checks that the prefix holds no file any more.
set -euo pipefail
build=$(realpath "$1")
source=$(realpath "$2")
work=$build/install-test
unset DESTDIR  # the test installs to, and uninstalls from, its own prefix
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"

fail() { echo "install_test: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

# The test borrows build/install_manifest.txt (the uninstall target reads it):
# put back whatever a real install left there.
manifest=$build/install_manifest.txt
if [[ -f $manifest ]]; then
  cp "$manifest" "$work/saved_manifest.txt"
  trap 'cp "$work/saved_manifest.txt" "$manifest"' EXIT
fi

step "install to $prefix"
cmake --install "$build" --prefix "$prefix"
for f in lib/libParasol.so lib/libParasol.so.0 include/CL/cl_parasol.h \
         etc/OpenCL/vendors/parasol.icd lib/cmake/Parasol/ParasolConfig.cmake \
         lib/cmake/Parasol/ParasolConfigVersion.cmake lib/cmake/Parasol/ParasolTargets.cmake \
         lib/pkgconfig/parasol.pc bin/parasol-register; do
  [[ -e $prefix/$f ]] || fail "$f was not installed"
done
[[ -x $prefix/bin/parasol-register ]] || fail "bin/parasol-register is not executable"
# Built where Open MPI is found: the MPI layer goes beside the library, which
# looks for it in its own folder (docs/cluster.md).
if [[ -e $build/src/cluster/parasol-node ]]; then
  [[ -x $prefix/bin/parasol-node ]] || fail "bin/parasol-node was not installed"
  [[ -f $prefix/lib/libParasolMPI.so ]] || fail "lib/libParasolMPI.so was not installed"
fi
icd_lib=$(cat "$prefix/etc/OpenCL/vendors/parasol.icd")
[[ $icd_lib == "$prefix/lib/libParasol.so.0" ]] || fail "parasol.icd names '$icd_lib'"
[[ -f $icd_lib ]] || fail "parasol.icd names a missing library"

step "consumer with find_package(Parasol)"
cmake -S "$source/test/install/consumer" -B "$work/consumer-cmake" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
cmake --build "$work/consumer-cmake"
# Applications link the loader, never Parasol.
if readelf -d "$work/consumer-cmake/consumer" | grep -q 'libParasol'; then
  fail "the CMake consumer links libParasol directly"
fi

step "consumer with pkg-config"
pc_flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs parasol)
echo "pkg-config --cflags --libs parasol: $pc_flags"
[[ $pc_flags == *"-I$prefix/include"* && $pc_flags == *-lOpenCL* ]] || fail "pkg-config flags"
# shellcheck disable=SC2086  # pc_flags is a list of words
cc -Wall -Werror -o "$work/consumer-pc" "$source/test/install/consumer/consumer.c" $pc_flags

step "run both on the installed parasol.icd beside PoCL"
vendors=$work/vendors
mkdir -p "$vendors"
ln -s "$prefix/etc/OpenCL/vendors/parasol.icd" "$vendors/parasol.icd"
echo "libpocl.so.2" >"$vendors/pocl.icd"
for consumer in "$work/consumer-cmake/consumer" "$work/consumer-pc"; do
  OCL_ICD_VENDORS=$vendors "$consumer" >"$work/run.log" 2>&1 || { cat "$work/run.log"; fail "$consumer"; }
  cat "$work/run.log"
  grep -q '^Parasol platform: [1-9]' "$work/run.log" || fail "$consumer saw no Parasol device"
  grep -q 'Portable Computing Language' "$work/run.log" || fail "$consumer saw no PoCL device"
done

step "installed parasol-register finds the installed library"
line=$("$prefix/bin/parasol-register" "" "$work/registered")
[[ $line == "export OCL_ICD_VENDORS=$work/registered" ]] || fail "parasol-register printed '$line'"
[[ $(cat "$work/registered/parasol.icd") == "$prefix/lib/libParasol.so" ]] ||
  fail "registered parasol.icd names $(cat "$work/registered/parasol.icd")"

step "uninstall"
cmake --build "$build" --target uninstall
left=$(find "$prefix" ! -type d)
[[ -z $left ]] || fail "files left after uninstall: $left"
echo "install_test: OK"
