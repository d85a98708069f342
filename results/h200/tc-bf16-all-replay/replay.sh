#!/usr/bin/env bash
# The shipped h200-bf16-vendors-lt8-k16 recipe (libraries/gemm/selectors.txt) replayed on the
# sweep ../tc-bf16-all (CPU only, ~1 min), once on every kind's rows ("all") and once on the rows
# of mma, wgmma and mmasplit only ("old": the kinds of ../tc-bf16-lt8, same sweep, same vendor
# rows), as scripts/gpu_tc_safety_replay.sh does (scripts/tc_replay_common.sh's replay()): against
# the faster of cuBLAS and cuBLASLt #0, first on the training rows alone (llm dropped) with each
# network held out in turn, then with llm held out.
#   results/h200/tc-bf16-all-replay/replay.sh [OUT_DIR] [KTUNE]   (from the repository root)
set -euo pipefail
out=${1:-results/h200/tc-bf16-all-replay}
ktune=${2:-build/bin/ktune}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
V='cublas,cublaslt,cublaslt;heuristic=1,cublaslt;heuristic=2,cublaslt;heuristic=3,cublaslt;heuristic=4,cublaslt;heuristic=5,cublaslt;heuristic=6,cublaslt;heuristic=7'
shipped="shipped=--pruner pca-kmeans --norm cutoff --k 16 --selector tree-b --vendors --vendor-names $V --min-vote-share 0.6 --unsure-leaf-margin 0.1 --range-guard --unsure-vendor --leaf-floor 0.9 --floor-vendors cublas,cublaslt --range-guard-skip m_mod2,m_mod4,m_mod8,n_mod2,n_mod4,n_mod8,k_mod2,k_mod4,k_mod8 --leaf-box"
xzcat results/h200/tc-bf16-all/gemm-tc-bf16-all.csv.xz >"$work/all.csv"
awk -F, 'NR == 1 || $4 !~ /^kind=wgmma(pp|mc|ts|cs);/' "$work/all.csv" >"$work/old.csv"
for s in all old; do
  awk -F, 'NR == 1 || $NF != "llm"' "$work/$s.csv" >"$work/$s-train.csv"
  python3 scripts/cpu_gemm_vendor_replay.py "$work/$s-train.csv" \
    --workload-tags mobilenet,resnet,vgg,large --vendors cublas,cublaslt --precision 2 \
    --ktune "$ktune" --recipe "$shipped" --markdown "$out/$s-each-network.md" \
    --csv "$out/$s-each-network.csv" --picks "$out/$s-each-network-picks.csv"
  python3 scripts/cpu_gemm_vendor_replay.py "$work/$s.csv" \
    --workload-tags mobilenet,resnet,vgg,large,llm --held-out llm --vendors cublas,cublaslt \
    --precision 2 --ktune "$ktune" --recipe "$shipped" --markdown "$out/$s-llm-held-out.md" \
    --csv "$out/$s-llm-held-out.csv" --picks "$out/$s-llm-held-out-picks.csv"
done
gzip -9nf "$out"/*-picks.csv  # every scored pick: which shapes a figure comes from
