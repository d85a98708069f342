#!/usr/bin/env bash
# Writes the selector headers of the deployed conv2d libraries from the committed sweeps (ktune
# prune, train, codegen; nothing conv-specific):
#   selectors/amd-epyc-2c-k4.hpp       CPU, conv-small: K = 4, pca-kmeans, cutoff, tree-b
#   selectors/h100-80gb-hbm3-k8.hpp    CUDA, vgg16 + resnet50 at batch 1 and 16 without the ft=pre
#                                      rows (ktune::conv2d is stateless: it transforms the filter
#                                      in every call): K = 8, pruner tree, rawcutoff, tree-b, the
#                                      best tree selector at K = 8 of the stateless selection eval
#                                      (results/h100-80gb-hbm3/conv2d-selection-stateless.md,
#                                      random split: 95.1 % of oracle)
#   selectors/h100-80gb-hbm3-resnet50-k8.hpp  the same trained on the ResNet-50 layers only, so
#                                      that its figures on the VGG16 layers are held out
#   selectors/h100-80gb-hbm3-prepared-k8.hpp  for ktune::Conv2dPlan (filter transformed once per
#                                      layer): every row, ft=pre included; K = 8, spectral,
#                                      cutoff, tree-b, the best tree-b at K = 8 of the full
#                                      selection eval (conv2d-selection.md, random split: 94.4 %)
#   examples/tuned-conv/make_selectors.sh [path/to/ktune]
set -euo pipefail
cd "$(dirname "$0")/../.."
ktune=${1:-build/bin/ktune}
out=examples/tuned-conv/selectors
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# select_configs <data> <pruner> <norm> <k> <header> [<what the data is, for the header>]
select_configs() {
  "$ktune" prune --data "$1" --method "$2" --norm "$3" --k "$4" -o "$work/configs.txt" > /dev/null
  "$ktune" train --data "$1" --configs "$work/configs.txt" --selector tree-b --norm "$3" \
    -o "$work/model.json" | tail -1
  "$ktune" codegen --model "$work/model.json" --dataset "${6:-$1}" -o "$5" > /dev/null
  echo "$5: $(grep -c '^    "' "$5") configs"
}

if [[ ${CPU:-1} == 1 ]]; then
  select_configs results/amd-epyc-2c/conv2d-conv-small.csv.gz pca-kmeans cutoff 4 \
    "$out/amd-epyc-2c-k4.hpp"
fi

h100=results/h100-80gb-hbm3/conv2d-dnn.csv.gz
zcat "$h100" | grep -v 'ft=pre' | gzip > "$work/stateless.csv.gz"
select_configs "$work/stateless.csv.gz" tree rawcutoff 8 "$out/h100-80gb-hbm3-k8.hpp" \
  "$h100 without ft=pre rows"

# ResNet-50 problems only: the rows whose h,w,c,k,r,s,stride,pad is a layer of the workload.
awk -F, 'NR > 1 { printf "h=%s;w=%s;c=%s;k=%s;r=%s;s=%s;stride=%s;pad=%s\n", $2, $3, $4, $5, $6, $7, $8, $9 }' \
  workloads/conv2d/conv2d-resnet50.csv > "$work/resnet50.txt"
zcat "$work/stateless.csv.gz" | awk -F, 'NR == FNR { layer[$0] = 1; next }
  FNR == 1 { print; next }
  { shape = $3; sub(/^n=[0-9]+;/, "", shape); if (shape in layer) print }' \
  "$work/resnet50.txt" - | gzip > "$work/resnet50.csv.gz"
select_configs "$work/resnet50.csv.gz" tree rawcutoff 8 "$out/h100-80gb-hbm3-resnet50-k8.hpp" \
  "$h100 without ft=pre rows, ResNet-50 layers only"

select_configs "$h100" spectral cutoff 8 "$out/h100-80gb-hbm3-prepared-k8.hpp" \
  "$h100 (every row, ft=pre included)"
