#!/usr/bin/env bash
# The deployed GEMM libraries vs cuBLAS on the GPU machine (H100: the selectors were trained there):
#   bash scripts/gpu_gemm_deployed.sh BUILD_DIR
# BUILD_DIR holds bin/tuned_gemm_bench and bin/tuned_gemm_bench_dnn built from main (-DKTUNE_EXAMPLES=ON,
# targets tuned_gemm_bench tuned_gemm_bench_dnn; the default KTUNE_CUDA_SELECTOR = K = 16 dnn+large).
# Deployed ktune::gemm vs cuBLAS (same run, each verified vs float64): held out first (dnn-only
# selector on `large`), then in-sample `large` and `dnn`. <= 245 s. Everything lands in
# $OUT/gemm/gemm-deployed.tar.gz (3 CSVs + logs).
set -uo pipefail
B=${1:?usage: deployed_bench.sh BUILD_DIR}/bin
W=$(mktemp -d)
mkdir -p "$OUT/gemm"
T0=$SECONDS
run() {  # run NAME LIMIT PROGRAM WORKLOAD
  timeout "$2" "$B/$3" --device cuda --workload "$4" --out "$W/deployed-$1.csv" > "$W/bench-$1.log" 2>&1
  echo "$1: exit $? at $((SECONDS - T0)) s, $(($(wc -l < "$W/deployed-$1.csv") - 1)) shapes" | tee -a "$W/summary.txt"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader > "$W/nvidia-smi.txt" 2>&1
run heldout-large 45 tuned_gemm_bench_dnn large
run large 45 tuned_gemm_bench large
run dnn 150 tuned_gemm_bench dnn
tar czf "$OUT/gemm/gemm-deployed.tar.gz" -C "$W" .
cat "$W/summary.txt"
