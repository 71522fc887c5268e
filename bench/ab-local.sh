#!/usr/bin/env bash
# Parasol libraries side by side on this host, in alternating processes (on a
# small host the vendor's own time swings 2x between processes: only medians
# over many compare). Each library is registered in an ICD folder of its own
# beside the suite's vendors (build-rel/vendors). Needs the Release build:
#   cmake -S . -B build-rel -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel
# Usage:
#   LIBS="before:/tmp/a.so after:build-rel/src/libParasol.so" [RUNS=10] \
#     bash bench/ab-local.sh overhead
#       bench_command_overhead Portable per library: per row and library, the
#       median ratio to PoCL (device queue / context queue) and the median
#       microseconds (PoCL, device queue, context queue).
#   LIBS=... [RUNS=15] [STREAM=chain|kernel|write|evented-write] [COMMANDS=20000] \
#     bash bench/ab-local.sh stream
#       bench_launch_stream: PoCL alone and each library, the median
#       microseconds per command and its ratio to PoCL's median.
# Copy a library before rebuilding it (its ICD entry names the file).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?overhead or stream}
rel=$root/build-rel
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
read -r -a libs <<< "${LIBS:?LIBS=\"name:path.so ...\"}"
names=()
for spec in "${libs[@]}"; do
  IFS=: read -r name lib <<< "$spec"
  mkdir -p "$work/$name"
  for f in "$rel"/vendors/*.icd; do [ "$(basename "$f")" = parasol.icd ] || cp "$f" "$work/$name/"; done
  readlink -f "$lib" > "$work/$name/parasol.icd"
  names+=("$name")
done
run() {  # vendors-dir program args...
  local dir=$1; shift
  "$rel/test/suite-env" env OCL_ICD_VENDORS="$dir" "$@" 2>/dev/null
}
out=$work/rows.txt
: > "$out"
for i in $(seq 1 "${RUNS:-10}"); do
  order=("${names[@]}")
  [ $((i % 2)) -eq 0 ] && order=($(printf '%s\n' "${names[@]}" | tac))
  if [ "$mode" = overhead ]; then
    for name in "${order[@]}"; do
      run "$work/$name" "$rel/bench/bench_command_overhead" Portable |
        grep "^| [a-z]" | grep -v "^| command stream" | sed "s/^/$name /" >> "$out"
    done
  else
    for name in pocl "${order[@]}"; do
      dir=$work/${names[0]}; platform=Parasol
      [ "$name" = pocl ] && platform=Portable || dir=$work/$name
      us=$(BENCH_STREAM=${STREAM:-chain} BENCH_COMMANDS=${COMMANDS:-20000} BENCH_DEVICE=pthread \
           run "$dir" "$rel/bench/bench_launch_stream" "$platform" | grep -o '[0-9.]* us per' | cut -d' ' -f1)
      echo "$name $us" >> "$out"
    done
  fi
done
python3 - "$mode" "$out" <<'PY'
import sys, statistics as st, collections
mode, path = sys.argv[1], sys.argv[2]
rows = collections.defaultdict(list)
for line in open(path):
    name, rest = line.split(" ", 1)
    if mode == "stream":
        if rest.strip():
            rows[name].append(float(rest))
        continue
    cells = [c.strip() for c in rest.strip().strip("|").split("|")]
    rows[(cells[0], name)].append(cells[1:])
if mode == "stream":
    pocl = st.median(rows["pocl"])
    for name, v in rows.items():
        print(f"{name:10} median {st.median(v):.2f} us  ratio {st.median(v) / pocl:.2f}  ({len(v)} processes)")
    sys.exit()
for (row, name), runs in sorted(rows.items()):
    ratios = [[float(c[:-1]) for c in r if c.endswith("x")] for r in runs]
    times = [[float(c) for c in r if not c.endswith("x")] for r in runs]
    med = lambda cols: " / ".join(f"{st.median(c):.2f}" for c in zip(*cols))
    print(f"{row[:40]:40} {name:10} ratio {med([r[:2] for r in ratios])}x   us {med([t[:3] for t in times])}")
PY
