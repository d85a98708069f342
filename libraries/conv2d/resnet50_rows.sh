#!/usr/bin/env bash
# Filters a conv2d long CSV on stdin to the rows whose layer (h,w,c,k,r,s,stride,pad, any batch)
# is one of workloads/conv2d/conv2d-resnet50.csv, in any precision: the ResNet-50-only training set
# of selectors/h100-80gb-hbm3-resnet50-k8.hpp (selectors.txt) and of the 16-bit ones of
# scripts/conv_precision/selectors.txt.
set -euo pipefail
layers=$(dirname "$0")/../../workloads/conv2d/conv2d-resnet50.csv
awk -F, 'NR == FNR { if (FNR > 1) layer[sprintf("h=%s;w=%s;c=%s;k=%s;r=%s;s=%s;stride=%s;pad=%s", $2, $3, $4, $5, $6, $7, $8, $9)] = 1; next }
  FNR == 1 { print; next }
  { shape = $3; sub(/^n=[0-9]+;/, "", shape); sub(/;precision=[0-9]+$/, "", shape); if (shape in layer) print }' "$layers" -
