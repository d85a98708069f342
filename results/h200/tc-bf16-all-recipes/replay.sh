#!/usr/bin/env bash
# A small grid of recipe variants of the shipped h200-bf16-vendors-lt8-k16 recipe
# (libraries/gemm/selectors.txt) replayed on the all-kinds sweep ../tc-bf16-all (CPU only, a few
# minutes): scripts/cpu_gemm_vendor_replay.py against the faster of cuBLAS and cuBLASLt #0, as
# ../tc-bf16-all-replay/replay.sh and scripts/gpu_tc_safety_replay.sh do. Every kind's rows;
# "split8-*" recipes train on the sweep without the mmasplit configs of 16 or more splits (an awk
# filter on the data, as a selectors.txt "cmd:" line can express; no ktune change). First on the
# training rows alone (llm dropped), each network held out in turn (each-network.*), then with
# llm held out (llm-held-out.*: its per-workload rows are every workload held out in turn,
# trained on the other four, pooled in "each held out").
#   results/h200/tc-bf16-all-recipes/replay.sh [OUT_DIR] [KTUNE]   (from the repository root)
set -euo pipefail
out=${1:-results/h200/tc-bf16-all-recipes}
ktune=${2:-build/bin/ktune}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
V='cublas,cublaslt,cublaslt;heuristic=1,cublaslt;heuristic=2,cublaslt;heuristic=3,cublaslt;heuristic=4,cublaslt;heuristic=5,cublaslt;heuristic=6,cublaslt;heuristic=7'
base="--pruner pca-kmeans --norm cutoff --k 16 --selector tree-b --vendors --vendor-names $V --unsure-leaf-margin 0.1 --range-guard --unsure-vendor --floor-vendors cublas,cublaslt"
res='--range-guard-skip m_mod2,m_mod4,m_mod8,n_mod2,n_mod4,n_mod8,k_mod2,k_mod4,k_mod8'
# recipe NAME VOTE FLOOR [more options]: the shipped bf16 recipe (vote 0.6, floor 0.9, residues
# skipped by the range guard, leaf box) with these changed.
recipe() { echo "$1=$base --min-vote-share $2 --leaf-floor $3 $res --leaf-box ${*:4}"; }
full=("$(recipe shipped 0.6 0.9)" "$(recipe floor0.99 0.6 0.99)"
  "$(recipe vote0.8-floor0.99 0.8 0.99)" "$(recipe boxall 0.6 0.9 --leaf-box-all)"
  "$(recipe boxall-floor0.99 0.6 0.99 --leaf-box-all)"
  "$(recipe boxall-vote0.8-floor0.99 0.8 0.99 --leaf-box-all)")
split8=("$(recipe split8-shipped 0.6 0.9)"
  "$(recipe split8-boxall-floor0.99 0.6 0.99 --leaf-box-all)")
xzcat results/h200/tc-bf16-all/gemm-tc-bf16-all.csv.xz >"$work/all.csv"
awk -F, 'NR == 1 || $4 !~ /^kind=mmasplit;.*;splits=(16|32|64|128)(;|$)/' "$work/all.csv" \
  >"$work/split8.csv"
run() { # DATA NAME RECIPES...
  local data=$1 name=$2
  shift 2
  local recipes=()
  for r in "$@"; do recipes+=(--recipe "$r"); done
  awk -F, 'NR == 1 || $NF != "llm"' "$work/$data.csv" >"$work/$data-train.csv"
  python3 scripts/cpu_gemm_vendor_replay.py "$work/$data-train.csv" \
    --workload-tags mobilenet,resnet,vgg,large --vendors cublas,cublaslt --precision 2 \
    --ktune "$ktune" "${recipes[@]}" --markdown "$out/$name-each-network.md" \
    --csv "$out/$name-each-network.csv" --picks "$out/$name-each-network-picks.csv"
  python3 scripts/cpu_gemm_vendor_replay.py "$work/$data.csv" \
    --workload-tags mobilenet,resnet,vgg,large,llm --held-out llm --vendors cublas,cublaslt \
    --precision 2 --ktune "$ktune" "${recipes[@]}" --markdown "$out/$name-llm-held-out.md" \
    --csv "$out/$name-llm-held-out.csv" --picks "$out/$name-llm-held-out-picks.csv"
}
run all all "${full[@]}" &
run split8 split8 "${split8[@]}"
wait
gzip -9nf "$out"/*-picks.csv  # every scored pick: which shapes a figure comes from
