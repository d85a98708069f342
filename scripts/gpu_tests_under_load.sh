#!/usr/bin/env bash
# GPU tests under another process's load: COPIES processes of one test program at once, each
# with --gtest_filter=FILTER --gtest_repeat=REPEAT and its own KTUNE_CACHE_DIR, so that races a
# lone ctest run hides (work on a stream the test does not wait for, say) show up. Logs per copy in
# OUT_DIR (load-<i>.log); prints the passes per copy and the failure lines; exits non-zero when
# any copy failed. Used on the H200 for the conv2d_ex fp16 picks test (results/h200/gpu-suite-s30; passing since the fix, results/h200/gpu-suite-s31).
#   [COPIES=6] [REPEAT=3] [SECONDS_LIMIT=300] scripts/gpu_tests_under_load.sh PROGRAM FILTER OUT_DIR
set -uo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 PROGRAM FILTER OUT_DIR" >&2; exit 2; }
program=$1 filter=$2 out=$3
[[ -x $program ]] || { echo "gpu_tests_under_load.sh: $program: not an executable" >&2; exit 2; }
mkdir -p "$out"
pids=()
for i in $(seq 1 "${COPIES:-6}"); do
  KTUNE_CACHE_DIR="$out/cache-$i" timeout "${SECONDS_LIMIT:-300}" "$program" \
    --gtest_filter="$filter" --gtest_repeat="${REPEAT:-3}" > "$out/load-$i.log" 2>&1 &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
echo "passed runs per copy: $(grep -h -c '^\[       OK' "$out"/load-*.log | paste -sd' ')"
grep -h -E "^\[  FAILED  \] [A-Za-z]|Failure$|actual:" "$out"/load-*.log | sort | uniq -c | head -20
echo "copies failed: $failed of ${COPIES:-6}"
[[ $failed -eq 0 ]]
