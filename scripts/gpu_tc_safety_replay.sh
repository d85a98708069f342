#!/usr/bin/env bash
# Replay (CPU only, on the committed H200 tf32 and bf16 sweeps' medians) of ktune::gemm_ex's
# safety recipes, for issue #26: scripts/cpu_gemm_vendor_replay.py against the faster of cuBLAS
# and cuBLASLt's #0. First on the training workloads alone (the llm rows dropped), each network
# held out in turn (mobilenet, resnet, vgg, large: the figures a recipe is chosen by), then with
# llm held out (what the shipped headers were trained without). Writes OUT_DIR (default
# results/h200/tc-tf32-boxall-replay): <precision>-<split>.md / .csv / -picks.csv.gz. ~3 min.
#   scripts/gpu_tc_safety_replay.sh [OUT_DIR] [KTUNE]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/h200/tc-tf32-boxall-replay}
ktune=${2:-build/bin/ktune}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
V='cublas,cublaslt,cublaslt;heuristic=1,cublaslt;heuristic=2,cublaslt;heuristic=3,cublaslt;heuristic=4,cublaslt;heuristic=5,cublaslt;heuristic=6,cublaslt;heuristic=7'
base="--pruner pca-kmeans --norm cutoff --k 16 --selector tree-b --vendors --vendor-names $V --unsure-leaf-margin 0.1 --range-guard --unsure-vendor --floor-vendors cublas,cublaslt --leaf-box"
res='--range-guard-skip m_mod2,m_mod4,m_mod8,n_mod2,n_mod4,n_mod8,k_mod2,k_mod4,k_mod8'
# recipe NAME VOTE FLOOR [more options]: the shipped recipe's options with these changed.
recipe() { echo "$1=$base --min-vote-share $2 --leaf-floor $3 ${*:4}"; }
replay() {  # PRECISION-NAME PRECISION DATA SPLIT TAGS [--held-out W] RECIPES...
  local name=$1 precision=$2 data=$3 split=$4 tags=$5
  shift 5
  local args=()
  if [ "${1:-}" = --held-out ]; then
    args=(--held-out "$2")
    shift 2
  fi
  local recipes=()
  for r in "$@"; do recipes+=(--recipe "$r"); done
  python3 scripts/cpu_gemm_vendor_replay.py "$data" --workload-tags "$tags" "${args[@]}" \
    --vendors cublas,cublaslt --precision "$precision" --ktune "$ktune" "${recipes[@]}" \
    --markdown "$out/$name-$split.md" --csv "$out/$name-$split.csv" \
    --picks "$out/$name-$split-picks.csv"
}
nets=mobilenet,resnet,vgg,large
for p in tf32:1 bf16:2; do
  name=${p%:*}
  xzcat "results/h200/tc-$name-lt8/gemm-tc-$name.csv.xz" > "$work/$name.csv"
  awk -F, 'NR == 1 || $NF != "llm"' "$work/$name.csv" > "$work/$name-train.csv"
done
# tf32: the shipped h200-tf32-vendors-lt8-k16 recipe (vote 0.6, floor 0.95), the existing
# knobs tightened, and the leaf box over every feature (--leaf-box-all).
tf32=("$(recipe shipped 0.6 0.95)" "$(recipe floor0.99 0.6 0.99)" "$(recipe vote0.8-floor0.99 0.8 0.99)"
  "$(recipe vote0.9-floor0.99 0.9 0.99)" "$(recipe boxall 0.6 0.95 --leaf-box-all)"
  "$(recipe boxall-floor0.99 0.6 0.99 --leaf-box-all)"
  "$(recipe boxall-floor0.99-residues 0.6 0.99 --leaf-box-all "$res")"
  "$(recipe boxall-vote0.8-floor0.99 0.8 0.99 --leaf-box-all)")
replay tf32 1 "$work/tf32-train.csv" each-network "$nets" "${tf32[@]}"
replay tf32 1 "$work/tf32.csv" llm-held-out "$nets,llm" --held-out llm \
  "$(recipe shipped 0.6 0.95)" "$(recipe vote0.8-floor0.99 0.8 0.99)" \
  "$(recipe boxall-floor0.99 0.6 0.99 --leaf-box-all)"
# bf16: the shipped h200-bf16-vendors-lt8-k16 recipe (floor 0.9, residues skipped) and the same
# changes.
bf16=("$(recipe shipped 0.6 0.9 "$res")" "$(recipe floor0.99 0.6 0.99 "$res")"
  "$(recipe vote0.8-floor0.99 0.8 0.99 "$res")" "$(recipe boxall 0.6 0.9 --leaf-box-all "$res")"
  "$(recipe boxall-floor0.99 0.6 0.99 --leaf-box-all "$res")")
replay bf16 2 "$work/bf16-train.csv" each-network "$nets" "${bf16[@]}"
replay bf16 2 "$work/bf16.csv" llm-held-out "$nets,llm" --held-out llm \
  "$(recipe shipped 0.6 0.9 "$res")" "$(recipe boxall-floor0.99 0.6 0.99 --leaf-box-all "$res")"
gzip -9nf "$out"/*-picks.csv  # every scored pick: which shapes a figure comes from
