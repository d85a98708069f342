#!/usr/bin/env bash
# The committed H100 GEMM sweeps named (results/h100-80gb-hbm3/NAME.csv.gz) as one CSV on
# stdout without the seed kind's rows (vendor rows, config_id -1, are kept), under the header of
# gemm-dnn (with tags): files exported before tags existed (gemm-large) get an empty tags field.
# The seed kind was not swept on `large`, so the leave-one-workload-out runs leave it out.
#   scripts/gemm_noseed_sweeps.sh gemm-dnn gemm-dnn-warp-partial gemm-large | gzip > noseed.csv.gz
set -euo pipefail
r=$(dirname "$0")/../results/h100-80gb-hbm3
{ zcat "$r/gemm-dnn.csv.gz" || true; } | head -1  # zcat stops early (SIGPIPE)
for f in "$@"; do
  zcat "$r/$f.csv.gz" | awk -F, 'NR == 1 { tagged = $NF == "tags"; next }
    $5 == -1 || $4 ~ /^kind=/ { print tagged ? $0 : $0 "," }'
done
