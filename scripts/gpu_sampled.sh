#!/usr/bin/env bash
# Runs on the lent GPU machine (device tool): sampled tuning's live check. A model-guided bench
# over ten large GEMM shapes never swept exhaustively (workloads/gemm/sampled-live.csv) with a per-problem budget, learning
# from the committed H100 dnn dataset as prior data; then the exhaustive sweep of a subset of its
# problems into a separate store, to check how close the search came to their oracle. Both
# stores come back through $OUT.
#   KTUNE_BIN=.carry/sampled/bin BUDGET=43 SEARCH_SECONDS=150 CHECK_SECONDS=200 scripts/gpu_sampled.sh
set -uo pipefail
cd "${KTUNE_ROOT:-$(dirname "$0")/..}"  # the repository root (KTUNE_ROOT when carried elsewhere)
BIN=${KTUNE_BIN:-build-gpu/bin}
OUT=${OUT:-/tmp/ktune-out}
mkdir -p "$OUT"
export KTUNE_CACHE_DIR=/tmp/ktune-cache

. scripts/device_common.sh
use_device_cuda_libraries
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/nvidia-smi.txt"

# The dnn sweep's timing settings (results/LOG.md).
TIMING="--warmups 0 --min-reps 3 --max-reps 10 --rep-budget-ms 1 --timeout-ms 1000"
WORKLOAD=${WORKLOAD:-workloads/gemm/sampled-live.csv}
start=$(date +%s)
"$BIN/ktune" bench --device cuda:0 --family gemm --workload "$WORKLOAD" --strategy model \
  --budget "${BUDGET:-43}" --seed 0 --prior results/h100-80gb-hbm3/gemm-dnn.csv.gz \
  --store "$OUT/search.sqlite" $TIMING --budget-ms "$((${SEARCH_SECONDS:-150} * 1000))" \
  > "$OUT/search.log" 2>&1
echo "search exit $? after $(($(date +%s) - start)) s"
tail -2 "$OUT/search.log"

# The check: every config on the subset (problems listed in CHECK_ROWS, 1-based data rows).
{ grep -v '^#' "$WORKLOAD" | head -1
  grep -v '^#' "$WORKLOAD" | tail -n +2 | sed -n "$(echo "${CHECK_ROWS:-1 8}" | sed 's/\([0-9][0-9]*\)/\1p;/g')"
} > /tmp/check.csv
cat /tmp/check.csv
start=$(date +%s)
"$BIN/ktune" bench --device cuda:0 --family gemm --workload /tmp/check.csv \
  --store "$OUT/exhaustive.sqlite" $TIMING --budget-ms "$((${CHECK_SECONDS:-200} * 1000))" \
  > "$OUT/exhaustive.log" 2>&1
echo "exhaustive exit $? after $(($(date +%s) - start)) s"
tail -2 "$OUT/exhaustive.log"
for s in search exhaustive; do
  "$BIN/ktune" export --store "$OUT/$s.sqlite" --format csv -o "$OUT/$s.csv.gz" && rm -f "$OUT/$s.sqlite"*
done
ls -la "$OUT"
