#!/usr/bin/env bash
# A small grid of recipe variants of the shipped h200-bf16-vendors-lt8-k16 recipe
# (libraries/gemm/selectors.txt) replayed on the all-kinds sweep ../tc-bf16-all (CPU only, ~2 min):
# scripts/cpu_gemm_vendor_replay.py against the faster of cuBLAS and cuBLASLt #0, through
# scripts/tc_replay_common.sh's replay() as scripts/gpu_tc_safety_replay.sh does. Every kind's
# rows; "split8-*" recipes train on the sweep without the mmasplit configs of 16 or more splits
# (an awk filter on the data, as a selectors.txt "cmd:" line can express; no ktune change);
# "old-*" recipes train on the rows of the kinds the shipped header was trained on (mma, wgmma,
# mmasplit and the vendors: the same sweep, the other kinds' rows dropped). First
# on the training rows alone (llm dropped), each network held out in turn (*-each-network.*),
# then with llm held out (*-llm-held-out.*: its per-workload rows are every workload held out in
# turn, trained on the other four, pooled in "each held out").
#   results/h200/tc-bf16-all-recipes/replay.sh [OUT_DIR] [KTUNE]   (from the repository root)
set -euo pipefail
out=${1:-results/h200/tc-bf16-all-recipes}
ktune=${2:-build/bin/ktune}
. scripts/tc_replay_common.sh
# recipe NAME VOTE FLOOR [more options]: the shipped bf16 recipe (vote 0.6, floor 0.9, leaf box,
# residues skipped by the range guard) with these changed.
recipe() { echo "$1=$base --min-vote-share $2 --leaf-floor $3 $res ${*:4}"; }
full=("$(recipe shipped 0.6 0.9)" "$(recipe floor0.99 0.6 0.99)"
  "$(recipe vote0.8-floor0.99 0.8 0.99)" "$(recipe boxall 0.6 0.9 --leaf-box-all)"
  "$(recipe boxall-floor0.99 0.6 0.99 --leaf-box-all)"
  "$(recipe boxall-vote0.8-floor0.99 0.8 0.99 --leaf-box-all)")
split8=("$(recipe split8-shipped 0.6 0.9)"
  "$(recipe split8-boxall-floor0.99 0.6 0.99 --leaf-box-all)")
old=("$(recipe old-shipped 0.6 0.9)" "$(recipe old-boxall 0.6 0.9 --leaf-box-all)"
  "$(recipe old-boxall-floor0.99 0.6 0.99 --leaf-box-all)")
xzcat results/h200/tc-bf16-all/gemm-tc-bf16-all.csv.xz >"$work/all.csv"
awk -F, 'NR == 1 || $4 !~ /^kind=mmasplit;.*;splits=(16|32|64|128)(;|$)/' "$work/all.csv" \
  >"$work/split8.csv"
awk -F, 'NR == 1 || $4 !~ /^kind=(wgmmapp|wgmmamc|wgmmats|wgmmacs);/' "$work/all.csv" >"$work/old.csv"
grid() { # DATA RECIPES...
  local d=$1
  shift
  awk -F, 'NR == 1 || $NF != "llm"' "$work/$d.csv" >"$work/$d-train.csv"
  replay "$d" 2 "$work/$d-train.csv" each-network "$nets" "$@"
  replay "$d" 2 "$work/$d.csv" llm-held-out "$nets,llm" --held-out llm "$@"
}
grid all "${full[@]}" &
grid split8 "${split8[@]}"
wait
grid old "${old[@]}"
gzip -9nf "$out"/*-picks.csv  # every scored pick: which shapes a figure comes from
