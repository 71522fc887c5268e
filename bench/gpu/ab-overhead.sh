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
# name | row | vendor | device | ratio | context | ratio | [every device | ratio |]
python3 - "$O/ab-overhead.txt" <<'PY'
import sys, statistics as st, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, rest = line.split(" ", 1)
    cells = [c.strip() for c in rest.strip().strip("|").split("|")]
    ratios = [float(cells[i].rstrip("x")) for i in (3, 5, 7) if i < len(cells)]
    rows[(cells[0], name)].append(ratios)
mixed = any(len(r) > 2 for v in rows.values() for r in v)
print("| command stream | library | runs | device queue ratios (median) | context queue (median) |"
      + (" context queue, every device (median) |" if mixed else ""))
print("|---|---|---|---|---|" + ("---|" if mixed else ""))
for (row, name), v in rows.items():
    cols = []
    for i in range(3 if mixed else 2):
        x = sorted(r[i] for r in v if i < len(r))
        cols.append(f"{x[0]:.2f}-{x[-1]:.2f} ({st.median(x):.2f}x)" if x else "-")
    print(f"| {row} | {name} | {len(v)} | " + " | ".join(cols) + " |")
PY
