#!/usr/bin/env bash
# Adaptive granularity vs every static factor on the n-body example: the
# time per step over the second half of each run (warm-up and exploration in
# the first half), best of R runs, as a markdown table with ratios.
#
#   bench/nbody_divide.sh [BUILD_DIR] [N] [STEPS] [LO] [HI] [ROUNDS]
# Run it through the environment that registers Parasol, e.g.
#   build/test/suite-env bench/nbody_divide.sh build 4096 60 1 8 3
# Extra arguments for the example (e.g. --vendor Portable) go in NBODY_ARGS.
set -euo pipefail
build=${1:-build}
n=${2:-2048}
steps=${3:-40}
lo=${4:-1}
hi=${5:-8}
rounds=${6:-3}
exe=${NBODY_EXE:-$build/examples/nbody-divide}
extra=${NBODY_ARGS:-}

best_time() {  # args for the example -> best seconds per step over the rounds
  local best=""
  for _ in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    t=$("$exe" --n "$n" --steps "$steps" $extra "$@" | awk '/seconds per step/ {print $NF}')
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN {exit !(a < b)}'; then best=$t; fi
  done
  echo "$best"
}

declare -A static
best_static=""
best_k=""
for k in $(seq "$lo" "$hi"); do
  static[$k]=$(best_time --static "$k")
  if [ -z "$best_static" ] || awk -v a="${static[$k]}" -v b="$best_static" 'BEGIN {exit !(a < b)}'; then
    best_static=${static[$k]}
    best_k=$k
  fi
done
adaptive=$(best_time --range "$lo" "$hi")
# shellcheck disable=SC2086
factors=$("$exe" --n "$n" --steps "$steps" $extra --range "$lo" "$hi" | awk -F': ' '/factor per step/ {print $2}')

echo "n-body $n bodies, $steps steps, factors $lo..$hi, best of $rounds runs; seconds per step (second half)"
echo
echo "| configuration | s/step | vs best static |"
echo "|---|---|---|"
for k in $(seq "$lo" "$hi"); do
  awk -v k="$k" -v t="${static[$k]}" -v b="$best_static" 'BEGIN {printf "| static factor %d | %.5f | %.2fx |\n", k, t, t / b}'
done
awk -v t="$adaptive" -v b="$best_static" 'BEGIN {printf "| adaptive (divide function) | %.5f | %.2fx |\n", t, t / b}'
echo
echo "best static factor: $best_k; factors the adaptive run chose: $factors"
