#!/usr/bin/env bash
# The pruner under the bf16 vendors recipe, replayed on the re-sweep ../tc-bf16-all-2 (all kinds,
# vit rows dropped; CPU only, ~6 min on 2 cores): pca-kmeans (the shipped recipes' pruner), cover,
# tree, topn and kmeans, each with the shipped recipe's options and with --leaf-box-all, each
# network held out (llm dropped) and llm held out (every workload held out in turn), as
# ../tc-bf16-all-2-recipes. Then vit, in no header's training: the two deployed headers scored as
# they are (vit-headers.*: a check of the replay against ../tc-bf16-allkinds-deployed's measured
# vit) and the box-all recipes trained without vit (and llm), scored on it (vit-recipes.*).
#   results/h200/tc-bf16-all-2-pruners/replay.sh [OUT_DIR] [KTUNE]   (from the repository root)
set -euo pipefail
out=${1:-results/h200/tc-bf16-all-2-pruners}
ktune=${2:-build/bin/ktune}
. scripts/tc_replay_common.sh
recipes=()
boxall=()
for p in pca-kmeans cover tree topn kmeans; do
  options="${base/--pruner pca-kmeans/--pruner $p} --min-vote-share 0.6 --leaf-floor 0.9 $res"
  recipes+=("$p-boxall=$options --leaf-box-all" "$p-shipped=$options")
  [ "$p" = tree ] || boxall+=(--recipe "$p-boxall=$options --leaf-box-all")
done
xzcat results/h200/tc-bf16-all-2/gemm-tc-bf16-all.csv.xz >"$work/sweep.csv"
awk -F, 'NR == 1 || $NF != "vit"' "$work/sweep.csv" >"$work/all.csv"
awk -F, 'NR == 1 || $NF != "llm"' "$work/all.csv" >"$work/all-train.csv"
replay all 2 "$work/all-train.csv" each-network "$nets" "${recipes[@]}"
replay all 2 "$work/all.csv" llm-held-out "$nets,llm" --held-out llm "${recipes[@]}"
gzip -9nf "$out"/*-picks.csv
awk -F, 'NR == 1 || $NF != "llm"' "$work/sweep.csv" >"$work/vit.csv"
s=libraries/gemm/selectors
vit() { # NAME OPTIONS...: scored on vit, trained (recipes) on the other four workloads
  local name=$1
  shift
  python3 scripts/cpu_gemm_vendor_replay.py "$work/vit.csv" --workload-tags "$nets,vit" \
    --held-out vit --vendors cublas,cublaslt --precision 2 --ktune "$ktune" "$@" \
    --markdown "$out/vit-$name.md" --csv "$out/vit-$name.csv"
}
vit headers --header "shipped=$s/h200-bf16-vendors-lt8-k16.hpp" \
  --header "allkinds=$s/h200-bf16-all-vendors-lt8-boxall-k16.hpp"
vit recipes "${boxall[@]}"
