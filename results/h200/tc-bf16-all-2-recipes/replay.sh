#!/usr/bin/env bash
# The recipe replay of ../tc-bf16-all-recipes on the re-sweep ../tc-bf16-all-2 (the same kinds,
# the mma kernel with 32-bit shared addresses and the C16-template wgmma kernels), under the same
# criterion (../tc-bf16-all-recipes/summary.md), with the vit rows dropped first: vit is kept for
# the deployed run as a workload no recipe ever saw. Recipes: the shipped
# h200-bf16-vendors-lt8-k16 line, boxall and boxall-floor0.99, on every kind's rows ("all-*") and
# on the old kinds' rows (mma, wgmma, mmasplit and the vendors: "old-*").
#   results/h200/tc-bf16-all-2-recipes/replay.sh [OUT_DIR] [KTUNE]   (from the repository root)
set -euo pipefail
out=${1:-results/h200/tc-bf16-all-2-recipes}
ktune=${2:-build/bin/ktune}
. scripts/tc_replay_common.sh
recipe() { echo "$1=$base --min-vote-share $2 --leaf-floor $3 $res ${*:4}"; }
set_of() { # PREFIX
  recipe "$1shipped" 0.6 0.9
  recipe "$1boxall" 0.6 0.9 --leaf-box-all
  recipe "$1boxall-floor0.99" 0.6 0.99 --leaf-box-all
}
mapfile -t full < <(set_of "")
mapfile -t old < <(set_of old-)
xzcat results/h200/tc-bf16-all-2/gemm-tc-bf16-all.csv.xz | awk -F, 'NR == 1 || $NF != "vit"' \
  >"$work/all.csv"
awk -F, 'NR == 1 || $4 !~ /^kind=(wgmmapp|wgmmamc|wgmmats|wgmmacs);/' "$work/all.csv" >"$work/old.csv"
grid() { # DATA RECIPES...
  local d=$1
  shift
  awk -F, 'NR == 1 || $NF != "llm"' "$work/$d.csv" >"$work/$d-train.csv"
  replay "$d" 2 "$work/$d-train.csv" each-network "$nets" "$@"
  replay "$d" 2 "$work/$d.csv" llm-held-out "$nets,llm" --held-out llm "$@"
}
grid all "${full[@]}" &
grid old "${old[@]}"
wait
gzip -9nf "$out"/*-picks.csv # every scored pick: which shapes a figure comes from
