# shellcheck shell=bash disable=SC2154,SC2034  # $out, $ktune: set by the sourcing script, which reads the rest
# Shared by the H200 tensor-core replays (scripts/gpu_tc_safety_replay.sh,
# scripts/gpu_tc_leaf_vendor_replay.sh): sourced with $out and $ktune set. Makes $out and a
# scratch $work (removed on exit), sets $V (the
# shipped vendor calls), $base (the shipped recipes' common options), $res (the residues the
# bf16 range guard skips) and $nets, writes $work/<precision>.csv and <precision>-train.csv (llm
# dropped), and defines replay.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
V='cublas,cublaslt,cublaslt;heuristic=1,cublaslt;heuristic=2,cublaslt;heuristic=3,cublaslt;heuristic=4,cublaslt;heuristic=5,cublaslt;heuristic=6,cublaslt;heuristic=7'
base="--pruner pca-kmeans --norm cutoff --k 16 --selector tree-b --vendors --vendor-names $V --unsure-leaf-margin 0.1 --range-guard --unsure-vendor --floor-vendors cublas,cublaslt --leaf-box"
res='--range-guard-skip m_mod2,m_mod4,m_mod8,n_mod2,n_mod4,n_mod8,k_mod2,k_mod4,k_mod8'
nets=mobilenet,resnet,vgg,large
replay() { # PRECISION-NAME PRECISION DATA SPLIT TAGS [--held-out W] RECIPES...
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
for p in tf32 bf16; do
  xzcat "results/h200/tc-$p-lt8/gemm-tc-$p.csv.xz" >"$work/$p.csv"
  awk -F, 'NR == 1 || $NF != "llm"' "$work/$p.csv" >"$work/$p-train.csv"
done
