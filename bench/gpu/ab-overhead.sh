#!/usr/bin/env bash
# Per-command overhead of carried libraries side by side on the GPU machine:
# RUNS alternating processes of bench_command_overhead per library (order
# swapped every run), then each row's median ratio against NVIDIA (device
# queue / context queue) per library. Run there as
#   LIBS="old:.gpu/lib/A.so.xz new:.gpu/lib/B.so.xz" [RUNS=8] [COMMANDS=2000] \
#     [PIN="taskset -c 0-7"] bash bench/gpu/ab-overhead.sh
# A spec may add settings for its processes: "name:lib.xz:VAR=value,VAR2=value"
# (one library under several settings).
set -u
here=$(cd "$(dirname "$0")" && pwd)
R="bash $here/run-on-gpu.sh"; B=$here/../../.gpu/bin; O=${OUT:-/tmp/o}; mkdir -p "$O"
export POCL_DEVICES=pthread PARASOL_NATIVE_DEVICE=0
read -r -a libs <<< "${LIBS:?LIBS=\"name:path.xz ...\"}"
: > "$O/ab-overhead.txt"
for i in $(seq 1 "${RUNS:-8}"); do
  order=("${libs[@]}")
  [ $((i % 2)) -eq 0 ] && order=($(printf '%s\n' "${libs[@]}" | tac))
  for spec in "${order[@]}"; do
    IFS=: read -r name lib settings <<< "$spec"
    PARASOL_GPU_LIB=$lib BENCH_COMMANDS=${COMMANDS:-2000} timeout 120 env ${settings//,/ } ${PIN:-} $R \
      "$B/bench_command_overhead" NVIDIA | grep "^| [a-z]" | grep -v "^| command stream" | sed "s/^/$name /" >> "$O/ab-overhead.txt"
  done
done
# name | row | vendor | device | ratio | context | ratio |
python3 - "$O/ab-overhead.txt" <<'PY'
import sys, statistics as st, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, rest = line.split(" ", 1)
    cells = [c.strip() for c in rest.strip().strip("|").split("|")]
    rows[(cells[0], name)].append((float(cells[3].rstrip("x")), float(cells[5].rstrip("x"))))
print("| command stream | library | runs | device queue ratios (median) | context queue (median) |")
print("|---|---|---|---|---|")
for (row, name), v in rows.items():
    d = sorted(x for x, _ in v); c = sorted(y for _, y in v)
    print(f"| {row} | {name} | {len(v)} | {d[0]:.2f}-{d[-1]:.2f} ({st.median(d):.2f}x) | "
          f"{c[0]:.2f}-{c[-1]:.2f} ({st.median(c):.2f}x) |")
PY
