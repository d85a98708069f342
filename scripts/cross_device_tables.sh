#!/usr/bin/env bash
# Cross-device tables from committed datasets (docs/deploy.md, "Cross-device tables"): for each
# pair of devices that measured the same problems over the same config space, a selector trained
# with the deploy recipe on one is served on the other's problems, as % of that device's oracle.
#   scripts/cross_device_tables.sh [KTUNE] [OUT_DIR]
set -euo pipefail
ktune=${1:-build/bin/ktune}
out=${2:-results/cross-device}
mkdir -p "$out"
# GEMM bf16 on the tensor-core kinds (mma, wgmma): H100 and H200 measured dnn + large.
"$ktune" cross-device --data results/h100-80gb-hbm3/tc-wgmma-2/gemm-wgmma.csv.gz \
  --data results/h200/tc-bf16-1/gemm-tc-bf16.csv.gz --markdown "$out/gemm-bf16-h100-h200.md"
# Work-group sizes of the stencil family: H100 and the AMD EPYC share 12 problems.
"$ktune" cross-device --data results/h100-80gb-hbm3/stencil.csv.gz \
  --data results/amd-epyc-2c/stencil-small.csv.gz --markdown "$out/stencil-h100-epyc.md"
# GEMM FP32 on the CPU's packedz kind: the AMD EPYC (2 cores) and the Intel Xeon host of the lent
# H100 machine (16 cores) swept dnn-sample over the same 144 configs; the EPYC's dataset also holds
# the packed kind and the vendors, which the Xeon's does not: cut to the shared space first.
amd_packedz=$(mktemp --suffix=.csv.gz)
trap 'rm -f "$amd_packedz"' EXIT
zcat results/amd-epyc-2c/gemm-dnn-sample-packedz-2.csv.gz |
  awk -F, 'NR == 1 || $4 ~ /^kind=packedz;/' | gzip > "$amd_packedz"
"$ktune" cross-device --data "$amd_packedz" \
  --data results/xeon-16c-h100-host/gemm-dnn-sample-packedz.csv.gz \
  --markdown "$out/gemm-fp32-amd-epyc-intel-xeon.md"
