#!/usr/bin/env bash
# Issue #24's re-check of the tensor-core `vendors` library on the lent GPU machine, in one call:
#   1. build ktune and the ML tests from SRC (scripts/gpu_build_remote.sh), run the unsure-rule
#      tests, regenerate the bf16 / fp16 `vendors` selector headers from their recipes
#      (libraries/gemm/selectors.txt) and evaluate the recipe with and without the leaf margin
#      (ktune eval, leave one workload out: workload:llm is the held-out one);
#   2. build the tuned library with those headers, the GPU tests TunedGemmVendorTc* (the
#      cuBLASLt plan and same-bits tests among them) and tuned_gemm_bench;
#   3. tuned_gemm_bench over WORKLOADS (default: the bf16 dnn shapes below 0.9x of the last run,
#      then fp16 dnn) with --lt-top 0 --rep-budget-ms 10, each cut to what DEADLINE_S leaves.
# Everything lands in $OUT/tc-recheck.tar.gz (re-packed after each step).
#   SYSROOT=... SRC=... DATA=gemm-tc.csv.xz BELOW=below.csv OUT=... scripts/gpu_tc_vendor_recheck.sh
set -uo pipefail
T0=$(date +%s)
left() { echo $((${DEADLINE_S:-500} - ($(date +%s) - T0))); }
W=/tmp/tc-recheck
K=/tmp/kt-src
mkdir -p "$W"
# shellcheck source=scripts/device_common.sh
. "$(dirname "$0")/device_common.sh"
pack() { tar czf "$OUT/tc-recheck.tar.gz" -C "$W" .; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv \
  > "$W/nvidia-smi.txt"
cat "$W/nvidia-smi.txt"
S=$K/libraries/gemm/selectors
export CMAKE_ARGS="-DKTUNE_CUDA_SELECTOR=$S/h100-80gb-hbm3-k4.hpp -DKTUNE_CUDA_BF16_SELECTOR=$S/h100-80gb-hbm3-bf16-vendors-k16.hpp -DKTUNE_CUDA_FP16_SELECTOR=$S/h100-80gb-hbm3-fp16-vendors-k16.hpp"
EXAMPLES=ON scripts/gpu_build_remote.sh /tmp/b ktune ktune_ml_tests > "$W/build-1.log" 2>&1 ||
  { tail -40 "$W/build-1.log" /tmp/b/ninja.log; pack; exit 1; }
echo "build 1: $(($(date +%s) - T0)) s"
# shellcheck disable=SC1091
. /tmp/b.env
B=/tmp/b/bin
(cd /tmp/b && ninja ktune_families_cuda > "$W/build-deps.log" 2>&1) &
deps=$!
"$B/ktune_ml_tests" --gtest_filter='SelectorUnsure.*:*Codegen*:VendorCandidates.*' \
  > "$W/ml-tests.log" 2>&1
echo "ml tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$W/ml-tests.log" | tr '\n' ' ')"
mkdir -p "$K/results/h100-80gb-hbm3/tc-split-1"
cp "${DATA:?}" "$K/results/h100-80gb-hbm3/tc-split-1/gemm-tc.csv.xz"
(cd "$K" && scripts/deploy_selectors.sh libraries/gemm/selectors.txt "$W/selectors" "$B/ktune" \
  'h100-80gb-hbm3-[a-z]+16-vendors-k16') > "$W/selectors.log" 2>&1
cat "$W/selectors.log"
cp "$W"/selectors/*.hpp "$S/"
# Configure again: the library's version stamp and vendor scan read the headers.
cmake /tmp/b > "$W/reconfigure.log" 2>&1
pack
# The recipe with and without the leaf margin, leave one workload out, in the background.
(for p in bf16:2 fp16:3; do
   name=${p%:*}
   xzcat "$DATA" | awk -F, -v q="precision=${p#*:}" 'NR == 1 || $3 ~ q "$"' | gzip -1 > "/tmp/$name.csv.gz"
   for rule in share margin; do
     extra=(); [[ $rule == margin ]] && extra=(--unsure-leaf-margin 0.1)
     "$B/ktune" eval --data "/tmp/$name.csv.gz" --vendors --vendor-names cublas,cublaslt \
       --split workload --workloads "dnn@$name,large@$name,llm@$name" --pruners pca-kmeans \
       --norms cutoff --selectors tree-b --ks 16 --ceiling-ks 16 --min-vote-share 0.6 "${extra[@]}" \
       --markdown "$W/eval-$name-$rule.md" --csv "$W/eval-$name-$rule.csv" > "$W/eval-$name-$rule.log" 2>&1
   done
 done) &
evals=$!
wait $deps
(cd /tmp/b && ninja ktune_gpu_vendor_tc_tests tuned_gemm_bench > "$W/build-2.log" 2>&1) ||
  { grep -E "error|FAILED" "$W/build-2.log" | head -30; pack; exit 1; }
echo "build 2: $(($(date +%s) - T0)) s"
run_gpu_tests 60 "$W/gpu-tests-vendor-tc.log" "$B/ktune_gpu_vendor_tc_tests" \
  --gtest_filter='TunedGemmVendorTc*'
pack
cp "${BELOW:?}" /tmp/below.csv
for w in ${WORKLOADS:-/tmp/below.csv@bf16 dnn@fp16}; do
  t=$(($(left) - 8))
  ((t > 5)) || break
  name=$(basename "${w/@/-}")
  timeout "$t" "$B/tuned_gemm_bench" --device cuda --workload "$w" --out "$W/deployed-$name.csv" \
    --lt-top 0 --rep-budget-ms 10 >> "$W/bench-$name.log" 2>&1
  echo "bench $w exit $? ($(($(wc -l < "$W/deployed-$name.csv") - 1)) shapes, $(($(date +%s) - T0)) s)"
  pack
done
kill -0 "$evals" 2>/dev/null && echo "evals still running: cut when the command returns"
pack
echo "done: $(($(date +%s) - T0)) s"
