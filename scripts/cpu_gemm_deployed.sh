#!/usr/bin/env bash
# The deployed CPU GEMM library (ktune_tuned_gemm_cpu) vs OpenBLAS and oneDNN over every `dnn`
# shape on this machine, the way results/LOG.md runs CPU benchmarks: a Release KTUNE_NATIVE
# build, OMP_NUM_THREADS=2, OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset for the benchmark only
# (or the core scripts/openblas_core.sh forces where OpenBLAS detects a generic one, logged)
# (OpenBLAS then runs its native kernel), the load average recorded before and after. Then the
# tables: in-sample (the shapes of the dataset the build's CPU selector was trained on), held-out
# and all.
#   scripts/cpu_gemm_deployed.sh [BUILD_DIR] [WORKLOAD] [MAX_SHAPES]
# Defaults: build, dnn, every shape. The run is resumable: rerun to continue an interrupted one
# (a finished one measures nothing new; its log is appended to). Writes under OUT_DIR
# (results/amd-epyc-2c):
#   deployed-cpu-WORKLOAD.csv   one row per shape (tuned_gemm_bench)
#   deployed-cpu-WORKLOAD.log   commit, vendors' kernels, load before/after, the bench's output
#   gemm-vs-vendor.{csv,md}     scripts/gemm_deployed_tables.py (roofline.csv: scripts/roofline.py)
# MAX_SHAPES > 0: a trial of the first shapes not yet measured, into deployed-cpu-WORKLOAD-trial.*
# and gemm-vs-vendor-trial.* (TABLES=0: no tables).
set -euo pipefail
BUILD=${1:-build}
WORKLOAD=${2:-dnn}
MAX_SHAPES=${3:-0}
OUT_DIR=${OUT_DIR:-results/amd-epyc-2c}
NAME=deployed-cpu-$WORKLOAD TABLE=gemm-vs-vendor
if ((MAX_SHAPES > 0)); then  # a trial: never resumed into by the full run, own tables
  NAME=$NAME-trial TABLE=$TABLE-trial
fi
cd "$(dirname "$0")/.."  # BUILD_DIR and OUT_DIR are relative to the repository root

cache=$BUILD/CMakeCache.txt
[[ -f $cache ]] || { echo "error: $BUILD is not a configured build directory" >&2; exit 1; }
grep -q '^KTUNE_NATIVE:BOOL=ON$' "$cache" ||
  { echo "error: $BUILD is not a -DKTUNE_NATIVE=ON build" >&2; exit 1; }
grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$cache" ||
  { echo "error: $BUILD is not a Release build" >&2; exit 1; }
selector=$(sed -n 's/^KTUNE_CPU_SELECTOR:FILEPATH=//p' "$cache")
[[ -f $selector ]] || { echo "error: $BUILD names no CPU selector header" >&2; exit 1; }
selector=$(realpath --relative-to=. "$selector")  # as the tables and the log name it
cmake --build "$BUILD" -j2 --target tuned_gemm_bench openblas_core

mkdir -p "$OUT_DIR"
log=$OUT_DIR/$NAME.log
load() { cut -d' ' -f1-3 /proc/loadavg; }
run_lines=$(mktemp)
trap 'rm -f "$run_lines"' EXIT
{
  echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!results' || echo ' (+ uncommitted changes)')"
  echo "selector $selector"
  echo "start $(date -u +%FT%TZ), load average before: $(load)"
} | tee -a "$log" "$run_lines"
# OpenBLAS's native core, or the one scripts/openblas_core.sh forces where that is a generic one
force=$(scripts/openblas_core.sh "$BUILD/bin/openblas_core" 2> >(tee -a "$log" "$run_lines" >&2))
start=$SECONDS
status=0
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $force OMP_NUM_THREADS=2 \
  "$BUILD/bin/tuned_gemm_bench" --device cpu --workload "$WORKLOAD" --limit "$MAX_SHAPES" \
  --out "$OUT_DIR/$NAME.csv" \
  2>&1 | tee -a "$log" || status=$?
grep '^vendor ' "$log" | tail -2 >> "$run_lines"
echo "end $(date -u +%FT%TZ) after $((SECONDS - start)) s, exit $status, load average after: $(load)" |
  tee -a "$log" "$run_lines"

if [[ ${TABLES:-1} == 1 ]]; then
  # The oracle: the sweep the selector header names (gemm_deployed_tables.py reads it).
  python3 scripts/gemm_deployed_tables.py --run "$WORKLOAD=$OUT_DIR/$NAME.csv" \
    --in-sample-selector "$selector" --per-shape \
    --csv "$OUT_DIR/$TABLE.csv" --markdown "$OUT_DIR/$TABLE.md"
  # The run's context above the tables: commit, vendors' kernels, times and load.
  {
    echo "Deployed CPU GEMM library vs OpenBLAS and oneDNN, \`scripts/cpu_gemm_deployed.sh\`" \
      "(\`$NAME.csv\`, each shape verified against float64, then timed in the same run):"
    echo
    sed 's/^/    /' "$run_lines"
    echo
    cat "$OUT_DIR/$TABLE.md"
  } > "$OUT_DIR/$TABLE.md.tmp" && mv "$OUT_DIR/$TABLE.md.tmp" "$OUT_DIR/$TABLE.md"
  python3 scripts/roofline.py "$OUT_DIR/$TABLE.csv" > "$OUT_DIR/${TABLE/gemm-vs-vendor/roofline}.csv"
  echo "tables: $OUT_DIR/$TABLE.csv, $OUT_DIR/$TABLE.md, $OUT_DIR/${TABLE/gemm-vs-vendor/roofline}.csv"
fi
exit $status
