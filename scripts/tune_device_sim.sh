#!/usr/bin/env bash
# ktune tune-device replayed on a swept device (--simulate: no GPU): how many measurements the
# sampled tuning takes and how good its selector is, against a selector of the same recipe
# trained on the exhaustive sweep of the evaluation shapes (docs/deploy.md, "Adding a device").
#   scripts/tune_device_sim.sh KTUNE DATA.csv.gz SLUG EVAL_WORKLOAD OUT_DIR "B K PRUNER" ...
# Per "B K PRUNER": tune-device --budget B --complete --k K --pruner PRUNER (model search of B
# configs per problem, then the K kept configs on every problem) over the dnn workload; its
# kept configs' rows (complete) and DATA's rows of EVAL_WORKLOAD's shapes go to ktune
# cross-device, which trains the recipe on each and scores both on DATA's oracle of those shapes.
# Writes OUT_DIR/<B>-<K>-<PRUNER>/ (tune-device.log, cross-device.md) and prints one table row each.
set -euo pipefail
K=$1 DATA=$2 SLUG=$3 EVAL=$4 OUT=$5
shift 5
SPACE=kind:tiled,kind:splitk,kind:warp,kind:warpsplit
mkdir -p "$OUT"
python3 - "$DATA" "$EVAL" "$OUT/exhaustive-eval.csv.gz" <<'PY'
import csv, gzip, sys
data, workload, out = sys.argv[1:]
keys = set()
for line in open(workload):
    f = line.strip().split(",")
    if len(f) == 6 and f[0].isdigit():
        keys.add("transa={};transb={};m={};n={};k={};batch={}".format(*f))
seen = set()
with gzip.open(data, "rt") as i, gzip.open(out, "wt", newline="") as o:
    r, w = csv.reader(i), csv.writer(o)
    w.writerow(next(r))
    for row in r:  # one vendor row per shape (the noseed file repeats cuBLAS per sweep)
        if row[2] in keys and (row[4] != "-1" or row[2] not in seen):
            seen.add(row[2]) if row[4] == "-1" else None
            w.writerow(row)
PY
echo "| B per problem | K | pruner | measurements | % of exhaustive | tune-device selector % of oracle | exhaustive-sweep selector % of oracle | ratio |"
echo "|---:|---:|---|---:|---:|---:|---:|---:|"
for spec in "$@"; do
  read -r b k pruner <<< "$spec"
  d=$OUT/$b-$k-$pruner
  rm -rf "$d" && mkdir -p "$d"
  "$K" tune-device --family gemm --device "$SLUG" --simulate "$DATA" --workload dnn \
    --store "$d/new.sqlite" --configs "$SPACE" --budget "$b" --complete --k "$k" \
    --pruner "$pruner" --emit-model "$d/model.json" > "$d/tune-device.log" 2>&1
  "$K" export --store "$d/new.sqlite" --format csv -o "$d/new.csv.gz" > /dev/null 2>&1
  python3 - "$d/new.csv.gz" "$d/model.json.configs.txt" "$d/kept.csv.gz" <<'PY'
import csv, gzip, sys
store, configs, out = sys.argv[1:]
kept = {l.strip() for l in open(configs) if l.strip() and not l.startswith("#")}
with gzip.open(store, "rt") as i, gzip.open(out, "wt", newline="") as o:
    r, w = csv.reader(i), csv.writer(o)
    w.writerow(next(r))
    for row in r:
        if row[3] in kept:
            row[0] = "tune-device"  # its own slug, so cross-device tells the two apart
            w.writerow(row)
PY
  "$K" cross-device --pruner "$pruner" --k "$k" --data "$d/kept.csv.gz" \
    --data "$OUT/exhaustive-eval.csv.gz" --markdown "$d/cross-device.md" > /dev/null
  measured=$(sed -n 's/^tune-device: \([0-9]*\) measurements.*/\1/p' "$d/tune-device.log")
  space=$(sed -n 's/^\([0-9]*\) problems x \([0-9]*\) candidate configs.*/\1 \2/p' \
    "$d/tune-device.log" | head -1)
  read -r problems configs <<< "$space"
  sampled=$(awk -F'|' '$2 ~ /tune-device/ && $3 !~ /tune-device/ {gsub(/ /, "", $5); print $5}' \
    "$d/cross-device.md")
  full=$(awk -F'|' '$2 !~ /tune-device/ && $3 !~ /tune-device/ && $2 ~ /[a-z]/ && $5 ~ /[0-9]/ {gsub(/ /, "", $5); print $5}' \
    "$d/cross-device.md")
  python3 -c "
m, p, c, s, f = $measured, $problems, $configs, $sampled, $full
print(f'| $b | $k | $pruner | {m:,} | {100 * m / (p * c):.2f} | {s} | {f} | {100 * s / f:.1f} % |')"
done
