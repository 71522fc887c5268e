#!/bin/sh
# Runs the planted race (planted_race_test.cpp) and passes only if the test
# itself passed and ThreadSanitizer, with the suite's suppressions, reported
# the race with a frame that shows whose thread ran the callback.
# Usage: expect_tsan_report.sh SUITE_ENV TEST_BINARY FRAME_PATTERN [VAR=VALUE...]
#   FRAME_PATTERN: an extended regular expression (grep -E)
set -u
suite_env=$1; binary=$2; frames=$3; shift 3
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# The suite's TSAN_OPTIONS (suite-env) with the reports sent to a file.
options=$("$suite_env" sh -c 'echo "$TSAN_OPTIONS"')
env "$@" TSAN_OPTIONS="$options:log_path=$logs/tsan" "$suite_env" "$binary" >"$logs/out" 2>&1
rc=$?
cat "$logs/out"
report=$(cat "$logs"/tsan.* 2>/dev/null)
# TSan's exit code replaces the test's own: Catch's summary says how it went.
if ! grep -q "All tests passed" "$logs/out"; then
  echo "the test itself failed"; echo "$report"; exit 1
fi
if [ $rc -ne 66 ]; then
  echo "expected TSan's exit code 66 (a report), got $rc"; echo "$report"; exit 1
fi
if ! printf '%s\n' "$report" | grep -q planted_race_callback; then
  echo "no report names planted_race_callback:"; echo "$report"; exit 1
fi
if ! printf '%s\n' "$report" | grep -Eq "$frames"; then
  echo "the report has no frame matching $frames (the callback ran on another thread):"
  echo "$report"; exit 1
fi
echo "TSan reported the planted race on a thread with a frame matching $frames"
