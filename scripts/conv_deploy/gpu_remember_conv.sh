#!/usr/bin/env bash
# Tune and remember in the CUDA conv2d libraries (docs/deploy.md, "Tune and remember: conv") on
# the lent H200, one device call: builds (scripts/gpu_build_remote.sh, examples on) the GPU tests,
# their worker, and the held-out bf16 conv benchmarks (tuned_conv_bench_bf16_{vgg16,resnet50}: the
# H200 bf16 selector trained on one network's layers, run on the other's); runs the library's
# tune-and-remember GPU tests (TunedConv2dRememberCuda.*) and conv2d_ex's (TunedConv2dExCuda*:
# the served path changed), and the GEMM libraries' (TunedGemmRememberCuda.*); then per held-out
# pair, in bf16 with bf16 output against cuDNN at its best in bf16 in the same run: plain; fill (a first process with a fresh cache); remembered (a
# second process, timed, serving the cache's answers); plain again when time is left (the card's
# drift). The shipped recipe's headers state no kUnsure rule, so every layer is tuned
# (SHAPES=all; RECIPE=vendors-guard with SHAPES=unsure tunes the layers the guarded headers are
# unsure of). TF32=1: the same in tf32 after (two more libraries to build). Results, logs and the
# caches into OUT_DIR; then, where the results are committed (summary.md, run.json; each cache
# written out as CSV and removed):
#   python3 scripts/conv_deploy/remember_conv_summary.py OUT_DIR --commit <sha> --seconds <s>
#   SYSROOT=.carry/sys/sysroot.tar.gz OUT_DIR=... [DEADLINE_S=470] [TF32=1] [RECIPE=vendors] \
#     [SHAPES=all] [BUDGET_MS=100] bash scripts/conv_deploy/gpu_remember_conv.sh
# Expected on an H200: ~3 min cold build (16 cores), ~1 min of tests, ~3.5 min of benchmarks
# (plain, fill, remembered for both pairs first; plain again with the time left before DEADLINE_S).
set -uo pipefail
# shellcheck source=scripts/device_common.sh
. "$(dirname "$0")/../device_common.sh"
export SYSROOT=${SYSROOT:-.carry/sys/sysroot.tar.gz}
DEADLINE_S=${DEADLINE_S:-470}
OUT=${OUT_DIR:?OUT_DIR: where the results go}
RECIPE=${RECIPE:-vendors}
SHAPES=${SHAPES:-all}
precisions=(bf16)
[ "${TF32:-0}" = 1 ] && precisions+=(tf32)
mkdir -p "$OUT"
gpu_info "$OUT/nvidia-smi.txt"
SECONDS=0
stamp() { echo "[$SECONDS s] $*" | tee -a "$OUT/phases.log"; }
targets=(ktune_gpu_tests ktune_conv2d_remember_cuda_worker)
# The GEMM libraries' tune-and-remember GPU tests too (GEMM_TESTS=0 skips them): their
# pick-or-remembered step moved to ktune/cuda/remember_cuda.hpp with this change.
[ "${GEMM_TESTS:-1}" = 1 ] && targets+=(ktune_gpu_vendor_tc_tests)
for p in "${precisions[@]}"; do targets+=("tuned_conv_bench_${p}_vgg16" "tuned_conv_bench_${p}_resnet50"); done
H=$PWD/libraries/conv2d/selectors
export CMAKE_ARGS="-DKTUNE_CONV_CUDA_BF16_SELECTOR=$H/h200-bf16-vendors-k16.hpp -DKTUNE_CONV_CUDA_BF16_HELDOUT_DEVICE=h200 -DKTUNE_CONV_CUDA_HELDOUT_RECIPE=$RECIPE ${CMAKE_ARGS:-}"
EXAMPLES=ON timeout "$(cap 330)" scripts/gpu_build_remote.sh /tmp/b "${targets[@]}" \
  > "$OUT/build.log" 2>&1
stamp "build exit $? (${targets[*]})"
tail -3 "$OUT/build.log"
# shellcheck disable=SC1091
. /tmp/b.env
export KTUNE_CACHE_DIR=/tmp/ktune-cache
# Every run starts without the caller's tune-and-remember settings.
clean() {
  env -u KTUNE_REMEMBER -u KTUNE_REMEMBER_BUDGET_MS -u KTUNE_REMEMBER_CANDIDATES \
    -u KTUNE_REMEMBER_SHAPES "$@"
}
run_gpu_tests "$(cap 120)" "$OUT/gpu-tests.log" env -u KTUNE_REMEMBER /tmp/b/bin/ktune_gpu_tests \
  --gtest_filter='TunedConv2dRememberCuda.*:TunedConv2dExCuda*'
stamp "gpu tests exit $?"
if [ "${GEMM_TESTS:-1}" = 1 ]; then
  run_gpu_tests --append "$(cap 60)" "$OUT/gpu-tests.log" env -u KTUNE_REMEMBER \
    /tmp/b/bin/ktune_gpu_vendor_tc_tests --gtest_filter='TunedGemmRememberCuda.*'
  stamp "GEMM remember tests exit $?"
fi
# bench PRECISION TRAINED RUN PASS: one process of tuned_conv_bench_<p>_<trained> on <run>'s
# layers (fill and remembered with the pair's cache), skipped when the time left is short.
bench() {
  local p=$1 trained=$2 run=$3 pass=$4 limit
  local name=$pass-$p-trained-$trained cache=$OUT/remember-$p-trained-$trained.sqlite
  local out_opt=(--output "$p") env_add=() dataset=results/h200/conv-tc-sweep-persist/sweep-$p.csv.gz
  [ "$p" = tf32 ] && out_opt=()  # tf32 writes FP32 only
  [ -f "$dataset" ] && out_opt+=(--dataset "$dataset")  # the oracle column (optional)
  [ "$pass" = fill ] && rm -f "$cache" "$cache-wal" "$cache-shm"
  if [ "$pass" = fill ] || [ "$pass" = remembered ]; then
    env_add=("KTUNE_REMEMBER=$cache" "KTUNE_REMEMBER_SHAPES=$SHAPES"
      "KTUNE_REMEMBER_BUDGET_MS=${BUDGET_MS:-100}")
  fi
  limit=$(cap 75)
  if [ "$limit" -lt 40 ]; then stamp "$name skipped (time)"; return; fi
  clean "${env_add[@]}" timeout "$limit" "/tmp/b/bin/tuned_conv_bench_${p}_$trained" \
    --device cuda --precision "$p" --device-slug h200 --peak-gflops 989400 \
    --bandwidth-gbs 4800 "${out_opt[@]}" --workload "$run-conv" --csv "$OUT/$name.csv" --md "$OUT/$name.md" \
    > "$OUT/$name.log" 2>&1
  stamp "$name exit $? ($run layers)"
  tail -1 "$OUT/$name.log"
}
pairs=(vgg16:resnet50 resnet50:vgg16)
# plain, fill, remembered for every pair first; plain again (the drift) with the time left.
for p in "${precisions[@]}"; do
  for pass in plain fill remembered; do
    for pair in "${pairs[@]}"; do bench "$p" "${pair%%:*}" "${pair##*:}" "$pass"; done
  done
done
for p in "${precisions[@]}"; do
  for pair in "${pairs[@]}"; do bench "$p" "${pair%%:*}" "${pair##*:}" plain2; done
done
stamp "done"
ls -la "$OUT"
