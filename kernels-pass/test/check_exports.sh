#!/bin/sh
# Fails if the shared library exports any LLVM or Clang symbol.
lib="$1"
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -Ei 'llvm|clang' | head -20)
total=$(nm -D --defined-only "$lib" | wc -l)
echo "$lib: $total exported symbols"
if [ -n "$bad" ]; then
  echo "LLVM/Clang symbols exported:"; echo "$bad"; exit 1
fi
nm -D --defined-only "$lib" | grep -q parasol_shim_build || { echo "shim entry missing"; exit 1; }
echo OK
