#!/usr/bin/env bash
# Writes the selector headers the tuned libraries of this example are built from: for each
# committed dataset, K = 4, 8 and 15 configs picked by pca-kmeans (cutoff normalization) with a
# tree-b selector (the Learn results' best tree at K = 8: results/<device>/selection.md), and
# "all" (every config of the dataset, for the binary-size comparison).
#   examples/tuned-gemm/make_selectors.sh [path/to/ktune]
set -euo pipefail
cd "$(dirname "$0")/../.."
ktune=${1:-build/bin/ktune}
out=examples/tuned-gemm/selectors
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

declare -A datasets=(
  [h100-80gb-hbm3]=results/h100-80gb-hbm3/gemm-dnn.csv.gz
  [amd-epyc-2c]=results/amd-epyc-2c/gemm-dnn-small.csv.gz
)
for slug in "${!datasets[@]}"; do
  data=${datasets[$slug]}
  # Configs with at least one verified run (vendor rows have config_id -1).
  valid=$(zcat "$data" | awk -F, 'NR > 1 && $5 >= 0 && $6 == "ok" { print $4 }' | sort -u | wc -l)
  for k in 4 8 15 all; do
    if [[ $k == all ]]; then
      # Every config that ran on the device: topn over the whole dataset keeps them all.
      "$ktune" prune --data "$data" --method topn --k "$valid" -o "$work/configs.txt" > /dev/null
    else
      "$ktune" prune --data "$data" --method pca-kmeans --norm cutoff --k "$k" \
        -o "$work/configs.txt" > /dev/null
    fi
    "$ktune" train --data "$data" --selector tree-b --norm cutoff --configs "$work/configs.txt" \
      -o "$work/model.json" | tail -1
    "$ktune" codegen --model "$work/model.json" --dataset "$data" -o "$out/$slug-k$k.hpp" \
      > /dev/null
    echo "$out/$slug-k$k.hpp: $(grep -c '^    "' "$out/$slug-k$k.hpp") configs"
  done
done
