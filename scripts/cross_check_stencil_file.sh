#!/bin/bash
# The built-in stencil family (CPU backend) against its file-family re-expression
# (examples/own-kernels/stencil_file), in one run on one machine:
#  1. every config of the file family compiled first, one process per config in parallel, so
#     the timed benches below find the compile cache warm;
#  2. ROUNDS rounds, each the built-in family then the file family over the same 12 float
#     problems (stencil-small-float.csv), all 65 configs (stores builtin-R / file-R, walls in
#     wall.csv);
#  3. the per-config overhead: both again on one 16 x 16 problem (a run costs microseconds, so
#     what remains is each path's own cost per config: launch, verification, bookkeeping),
#     the same fixed 50 timed runs per config (stores tiny-builtin-R / tiny-file-R).
# scripts/compare_file_family.py reads OUT_DIR afterwards.
# Usage: scripts/cross_check_stencil_file.sh KTUNE OUT_DIR [ROUNDS]
# (env WORKLOAD=CSV and CONFIGS=wg=1x2,... shrink the run, e.g. to try the script.)
set -euo pipefail
K=$1
OUT=$2
ROUNDS=${3:-2}
EX=$(cd "$(dirname "$0")/.." && pwd)/examples/own-kernels/stencil_file
FILE=$EX/stencil_file.json
export KTUNE_CACHE_DIR=$OUT/cache
mkdir -p "$OUT"
rm -f "$OUT"/*.sqlite "$OUT/wall.csv"
printf 'program,north,south,east,west,type,heavy,boundary,rows,cols\n1,2,2,2,2,1,0,1,16,16\n' \
  > "$OUT/tiny.csv"
CONFIGS=${CONFIGS:-all}
WORKLOAD=${WORKLOAD:-$EX/stencil-small-float.csv}
python3 -c "import json,sys; print('\n'.join(json.load(open(sys.argv[1]))['ConfigurationSpace']['TuningParameters'][0]['Values']))" \
  "$FILE" | grep -xE "$([ "$CONFIGS" = all ] && echo '.*' || echo "${CONFIGS//,/|}" | sed 's/wg=//g')" | xargs -P "$(nproc)" -I{} "$K" bench --family-file "$FILE" --workload "$OUT/tiny.csv" \
  --configs wg={} --store "$OUT/warm-{}.sqlite" --min-reps 1 --rep-budget-ms 0.001 > /dev/null
rm -f "$OUT"/warm-*.sqlite
echo "path,workload,round,wall_s" > "$OUT/wall.csv"
# bench_one PATH WORKLOAD ROUND STORE OPTIONS...: one timed bench, its wall into wall.csv.
bench_one() {
  local path=$1 workload=$2 round=$3 store=$4
  shift 4
  local family=(--family stencil --device cpu)
  [ "$path" = file ] && family=(--family-file "$FILE")
  local s e
  s=$(date +%s.%N)
  "$K" bench "${family[@]}" --store "$OUT/$store.sqlite" --configs "$CONFIGS" "$@" > "$OUT/$store.log" 2>&1
  e=$(date +%s.%N)
  echo "$path,$workload,$round,$(awk "BEGIN { print $e - $s }")" >> "$OUT/wall.csv"
}
for round in $(seq "$ROUNDS"); do
  for path in builtin file; do
    bench_one $path float "$round" "$path-$round" --workload "$WORKLOAD" \
      --min-reps 5 --rep-budget-ms 5
  done
done
for round in $(seq "$ROUNDS"); do
  for path in builtin file; do
    bench_one $path tiny "$round" "tiny-$path-$round" --workload "$OUT/tiny.csv" \
      --min-reps 50 --max-reps 50 --rep-budget-ms 0.001
  done
done
