#!/usr/bin/env bash
# Leave-one-workload-out GEMM selection on the H100 (#13 item 3), in one go from the committed
# sweeps: the evaluation matrix of the tree selectors (every pruner and norm, K = 8, 12, 16)
# under each unsure rule,
#   1. on the held-out workload (train dnn -> test large, and the reverse): gemm-lowo-select-*.csv
#   2. on each training side only, to choose the recipe without the test set: dnn by leaving one
#      network out (its tags) and by holding out its 20 % largest shapes (the test workload is
#      larger), large by 5-fold cross-validation (27 shapes, no networks) and by holding out its
#      20 % smallest shapes;
#   3. the held-out runs again without the derived features added for #13 (the old feature set);
# then scripts/gemm_lowo_recipe.py picks the recipes on the training side and writes the tables.
#   scripts/gemm_lowo_eval.sh [path/to/ktune]
# WARP: the file of the dnn warp-kind rows in results/h100-80gb-hbm3 (default gemm-dnn-warp.csv.gz,
# the complete sweep; the partial one of 2026-11-23 is in git history); OUT: where the tables go
# (default results/h100-80gb-hbm3).
# Configs are restricted to the kinds swept on both workloads (the seed kind's rows are dropped),
# as in results/h100-80gb-hbm3/gemm-lowo.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ktune=${1:-build/bin/ktune}
r=results/h100-80gb-hbm3
out=${OUT:-$r}
WARP=$(basename "${WARP:-gemm-dnn-warp}" .csv.gz)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

sweeps() { scripts/gemm_noseed_sweeps.sh "$@"; }  # tiled, split-K, warp and warpsplit kinds
dnn=(gemm-dnn "$WARP" gemm-dnn-warpsplit) large=(gemm-large gemm-large-warpsplit)
sweeps "${dnn[@]}" "${large[@]}" | gzip -1 > "$work/both.csv.gz"
sweeps "${dnn[@]}" | gzip -1 > "$work/dnn.csv.gz"
sweeps "${large[@]}" | gzip -1 > "$work/large.csv.gz"
echo "data: ${dnn[*]} + ${large[*]} ($(git rev-parse --short HEAD), $(date -u +%FT%TZ))"

matrix=(--ks "8,12,16" --ceiling-ks "8,12,16" --selectors "tree-a,tree-b,tree-c" --threads 2)
# The unsure rules compared: none, an impure leaf (majority under half), outside the training
# range, both; the thresholds are fixed here, not tuned on any split.
declare -A rules=([off]="" [share]="--min-vote-share 0.5" [range]="--range-guard"
                  [both]="--min-vote-share 0.5 --range-guard")
old_features=bmnk,intensity,tiles64,tiles128,fill64,fill128  # the derived features of #13
for rule in off share range both; do
  read -ra extra <<< "${rules[$rule]}"
  "$ktune" eval --data "$work/both.csv.gz" --split workload --workloads dnn,large "${matrix[@]}" \
    "${extra[@]}" --markdown "$work/test-$rule.md" --csv "$work/test-$rule.csv"
  "$ktune" eval --data "$work/dnn.csv.gz" --split network "${matrix[@]}" "${extra[@]}" \
    --markdown "$work/train-dnn-$rule.md" --csv "$work/train-dnn-$rule.csv"
  "$ktune" eval --data "$work/dnn.csv.gz" --split largest20 "${matrix[@]}" "${extra[@]}" \
    --markdown "$work/train-dnn-largest-$rule.md" --csv "$work/train-dnn-largest-$rule.csv"
  "$ktune" eval --data "$work/large.csv.gz" --split cv5 "${matrix[@]}" "${extra[@]}" \
    --markdown "$work/train-large-$rule.md" --csv "$work/train-large-$rule.csv"
  "$ktune" eval --data "$work/large.csv.gz" --split smallest20 "${matrix[@]}" "${extra[@]}" \
    --markdown "$work/train-large-smallest-$rule.md" --csv "$work/train-large-smallest-$rule.csv"
  "$ktune" eval --data "$work/both.csv.gz" --split workload --workloads dnn,large "${matrix[@]}" \
    "${extra[@]}" --drop-features "$old_features" --markdown "$work/oldfeatures-$rule.md" \
    --csv "$work/oldfeatures-$rule.csv"
done
# One CSV per kind of run, the rule as the first column (split names tell the sides apart).
combine() {  # combine NAME PART...: the CSVs $work/PART-<rule>.csv into $out/gemm-lowo-NAME.csv
  local name=$1
  shift
  { head -1 "$work/$1-off.csv" | sed 's/^/rule,/'
    for rule in off share range both; do
      for part in "$@"; do tail -n +2 "$work/$part-$rule.csv" | sed "s/^/$rule,/"; done
    done; } > "$out/gemm-lowo-$name.csv"
}
combine select test
combine select-train train-dnn train-dnn-largest train-large train-large-smallest
combine select-oldfeatures oldfeatures
cp "$work/test-off.md" "$out/gemm-lowo-select-off.md"  # the full tables of one rule, for reference
note="${dnn[*]} + ${large[*]}; ktune of $(git rev-parse --short HEAD), $(date -u +%FT%TZ)"
python3 scripts/gemm_lowo_recipe.py --dir "$out" --data-note "$note" \
  > "$out/gemm-lowo-select.md"
echo "wrote $out/gemm-lowo-select.md"
