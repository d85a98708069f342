#!/usr/bin/env bash
# Runs on the lent GPU machine (device tool): optionally the GPU test suite, then one time-boxed
# chunk of the full CUDA sweep (dnn × every CUDA config + cuBLAS), then optionally the deployed
# tuned library against cuBLAS (examples/tuned-gemm). Resumable across machines: the store
# travels in .carry/gpu-store.sqlite.gz, the deployed rows in .carry/deployed-cuda.csv, and both
# come back through $OUT.
#   RUN_TESTS=1 SWEEP_SECONDS=400 DEPLOYED_SECONDS=120 scripts/gpu_sweep.sh
# FAMILY (default gemm) picks the family swept, CARRY (default .carry) the folder the store and
# NVRTC cache travel in, GTEST_FILTER the GPU tests run.
#   FAMILY=conv2d CARRY=.carry/conv-cuda KTUNE_BIN=.carry/conv-cuda RUN_TESTS=1 ... scripts/gpu_sweep.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BIN=${KTUNE_BIN:-build-gpu/bin}
OUT=${OUT:-/tmp/ktune-out}
mkdir -p "$OUT"
STORE=/tmp/ktune-gpu.sqlite
export KTUNE_CACHE_DIR=/tmp/ktune-cache

. scripts/device_common.sh
use_device_cuda_libraries
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/nvidia-smi.txt"
ldd "$BIN/ktune" | grep -E "not found|nvrtc|cublas|cudnn" | tee "$OUT/ldd.txt"

# The store may travel in parts: at most 16 MiB a file comes back from the device.
CARRY=${CARRY:-.carry}
if ls "$CARRY"/gpu-store.sqlite.gz.part-* > /dev/null 2>&1; then
  cat "$CARRY"/gpu-store.sqlite.gz.part-* | gunzip -c > "$STORE"
elif [ -f "$CARRY"/gpu-store.sqlite.gz ]; then
  gunzip -c "$CARRY"/gpu-store.sqlite.gz > "$STORE"
fi
[ -f "$CARRY"/nvrtc-cache.tar.gz ] && mkdir -p "$KTUNE_CACHE_DIR" && tar xzf "$CARRY"/nvrtc-cache.tar.gz -C "$KTUNE_CACHE_DIR"

if [ "${RUN_TESTS:-0}" = 1 ]; then
  run_gpu_tests "${TESTS_SECONDS:-240}" "$OUT/gpu-tests.log" "$BIN/ktune_gpu_tests" \
    ${GTEST_FILTER:+--gtest_filter="$GTEST_FILTER"}
fi

if [ "${SWEEP_SECONDS:-0}" -gt 0 ]; then
  # The verification run already warms each config up.
  warm=""
  "$BIN/ktune" bench --help | grep -q -- --warmups && warm="--warmups 0"
  "$BIN/ktune" bench --device cuda:0 --family "${FAMILY:-gemm}" --workload "${WORKLOAD:-dnn}" --store "$STORE" \
    $warm --min-reps 3 --max-reps 10 --rep-budget-ms 1 --timeout-ms 1000 \
    --budget-ms "$((SWEEP_SECONDS * 1000))" ${BENCH_ARGS:-} > "$OUT/bench.log" 2>&1
  echo "bench exit $?"
  tail -3 "$OUT/bench.log"
  gzip -c "$STORE" | split -b 15m - "$OUT/gpu-store.sqlite.gz.part-"
  tar czf "$OUT/nvrtc-cache.tar.gz" -C "$KTUNE_CACHE_DIR" .
fi

if [ "${DEPLOYED_SECONDS:-0}" -gt 0 ]; then
  [ -f .carry/deployed-cuda.csv ] && cp .carry/deployed-cuda.csv "$OUT/deployed-cuda.csv"
  timeout "$DEPLOYED_SECONDS" "$BIN/tuned_gemm_bench" --device cuda --workload "${WORKLOAD:-dnn}" \
    --out "$OUT/deployed-cuda.csv" > "$OUT/deployed.log" 2>&1
  echo "tuned_gemm_bench exit $?"
  tail -3 "$OUT/deployed.log"
fi
ls -la "$OUT"
