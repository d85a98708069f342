#!/usr/bin/env bash
# Writes the selector header of the deployed conv2d CPU library from the committed CPU sweep:
# prune to K configs (pca-kmeans, cutoff normalization, as for GEMM), train a decision tree over the family's problem + derived features, codegen.
#   examples/tuned-conv/make_selectors.sh build/bin/ktune [K]
set -euo pipefail
ktune=${1:?path to the ktune binary}
k=${2:-4}
root=$(cd "$(dirname "$0")/../.." && pwd)
data=results/amd-epyc-2c/conv2d-conv-small.csv.gz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
"$ktune" prune --data "$data" --method pca-kmeans --norm cutoff --k "$k" -o "$work/configs.txt"
"$ktune" train --data "$data" --configs "$work/configs.txt" --selector tree-b --norm cutoff -o "$work/model.json"
"$ktune" codegen --model "$work/model.json" --dataset "$data" \
  -o "examples/tuned-conv/selectors/amd-epyc-2c-k$k.hpp"
