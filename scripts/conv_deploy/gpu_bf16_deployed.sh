#!/usr/bin/env bash
# The deployed bf16 conv2d library (ktune::conv2d_ex: the tensor-core kinds and cuDNN as a
# candidate) against cuDNN at its best in bf16, on the lent H100 (one device call): builds
# (scripts/gpu_build_remote.sh, examples on) the GPU tests and the conv benchmarks from the carried
# source tarball, runs the tuned conv2d libraries' GPU tests (every shipped bf16 config against the
# float64 reference with the bf16 bound), then tuned_conv_bench --precision bf16 on dnn (VGG16 +
# ResNet-50 at batch 1 and 16, selector trained on both: in sample) and the two held-out programs
# (selector trained on one network, run on the other). The vendor column is cuDNN at its fastest
# bf16 algorithm of the legacy Find and the backend engines, NHWC or NCHW (the sweep's `cudnn`).
# Logs and results to $OUT; each phase capped so that the call ends by DEADLINE_S.
#   CARRY=.carry/convdeploy SYSROOT=.carry/sys/sysroot.tar.gz DEADLINE_S=400 \
#     scripts/conv_deploy/gpu_bf16_deployed.sh   # CARRY: src.tar.gz, bf16-rows.csv.gz
# EXTRA_TESTS=1 also runs other GPU tests right after the conv library's (EXTRA_FILTER, default
# the wgmma kernels' Wgmma*:Conv2dIgemmWgmma.*), only if budget remains (capped like the others).
# PRECISION=fp16: the same for ktune::conv2d_ex in fp16 (the library's fp16 selector, H200-trained:
# h200-fp16-vendors-k16.hpp; held out tuned_conv_bench_fp16_{vgg16,resnet50}) against cuDNN at its
# best in fp16 (OUTPUT=fp16: both writing fp16; default FP32 output), oracle column from
# results/h200/conv-tc-sweep-persist/sweep-fp16.csv.gz unless DATASET; result files named by the precision
# (conv-deployed-fp16-vs-cudnn.*, heldout-trained-*). PRECISION=tf32 likewise, with the H200 tf32
# selector built in (-DKTUNE_CONV_CUDA_TF32_SELECTOR) and the tf32 sweep (conv-tc-sweep-persist) as the
# oracle column. The results folder: $OUT, or $OUT_DIR.
# Another card: DEVICE_SLUG, PEAK_GFLOPS, BANDWIDTH_GBS, DATASET (the oracle column's sweep; default
# $CARRY/bf16-rows.csv.gz), CMAKE_ARGS (e.g. the H200 headers:
# -DKTUNE_CONV_CUDA_BF16_SELECTOR=<src>/libraries/conv2d/selectors/h200-bf16-vendors-k16.hpp
# -DKTUNE_CONV_CUDA_BF16_HELDOUT_DEVICE=h200; the guarded headers: the precision's
# -DKTUNE_CONV_CUDA_<P>_SELECTOR=<src>/libraries/conv2d/selectors/h200-<p>-vendors-guard-k16.hpp
# -DKTUNE_CONV_CUDA_HELDOUT_RECIPE=vendors-guard), and without $CARRY/src.tar.gz the checkout is built.
set -uo pipefail
# shellcheck source=scripts/device_common.sh
. "$(dirname "$0")/../device_common.sh"
C=${CARRY:-.carry/convdeploy}
export SYSROOT=${SYSROOT:-.carry/sys/sysroot.tar.gz}
DEADLINE_S=${DEADLINE_S:-400}
OUT=${OUT:-${OUT_DIR:?OUT or OUT_DIR: where the results go}}
P=${PRECISION:-bf16}
case $P in
  bf16) dataset=${DATASET:-$C/bf16-rows.csv.gz} ;;
  fp16) dataset=${DATASET:-results/h200/conv-tc-sweep-persist/sweep-fp16.csv.gz} ;;
  tf32)  # the shipped library has no tf32 selector by default: the H200 one
    dataset=${DATASET:-results/h200/conv-tc-sweep-persist/sweep-tf32.csv.gz} OUTPUT=
    # first, so that a -DKTUNE_CONV_CUDA_TF32_SELECTOR in CMAKE_ARGS (another header) wins
    export CMAKE_ARGS="-DKTUNE_CONV_CUDA_TF32_SELECTOR=$PWD/libraries/conv2d/selectors/h200-tf32-vendors-k16.hpp ${CMAKE_ARGS:-}" ;;
  *) echo "PRECISION=$P: bf16, fp16 or tf32" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
gpu_info "$OUT/nvidia-smi.txt"
SECONDS=0
src_tar=$C/src.tar.gz
[ -f "$src_tar" ] || src_tar=
SRC=$src_tar EXAMPLES=ON timeout "$(cap 300)" scripts/gpu_build_remote.sh /tmp/b \
  ktune_gpu_tests tuned_conv_bench "tuned_conv_bench_${P}_vgg16" "tuned_conv_bench_${P}_resnet50" \
  > "$OUT/build.log" 2>&1
echo "[$SECONDS s] build exit $?" | tee -a "$OUT/phases.log"; tail -3 "$OUT/build.log"
. /tmp/b.env
export KTUNE_CACHE_DIR=/tmp/ktune-cache
run_gpu_tests "$(cap 90)" "$OUT/gpu-tests.log" /tmp/b/bin/ktune_gpu_tests \
  --gtest_filter='TunedConv2dExCuda*:TunedConv2dCuda*'
echo "[$SECONDS s] gpu tests exit $?" | tee -a "$OUT/phases.log"
# cap answers 0 (timeout 0 = no limit) when time is short: run only with >= 30 s left.
if [ "${EXTRA_TESTS:-0}" = 1 ] && (($(cap 150) >= 30)); then
  run_gpu_tests "$(cap 150)" "$OUT/gpu-tests-wgmma.log" /tmp/b/bin/ktune_gpu_tests \
    --gtest_filter="${EXTRA_FILTER:-Wgmma*:Conv2dIgemmWgmma.*}"
  echo "[$SECONDS s] wgmma tests (EXTRA_TESTS) exit $?" | tee -a "$OUT/phases.log"
fi
B="--device cuda --precision $P --device-slug ${DEVICE_SLUG:-h100-80gb-hbm3}"
B+=" --peak-gflops ${PEAK_GFLOPS:-989400} --bandwidth-gbs ${BANDWIDTH_GBS:-3350}"
B+=" --dataset $dataset${OUTPUT:+ --output $OUTPUT}"  # OUTPUT=bf16 / fp16: the precision's own
for pair in vgg16:resnet50 resnet50:vgg16; do
  trained=${pair%%:*} run=${pair##*:}
  # shellcheck disable=SC2086
  timeout "$(cap 60)" /tmp/b/bin/tuned_conv_bench_${P}_$trained $B --workload $run-conv \
    --csv "$OUT/heldout-trained-$trained.csv" --md "$OUT/heldout-trained-$trained.md" \
    > "$OUT/bench-heldout-trained-$trained.log" 2>&1
  echo "[$SECONDS s] bench (trained on $trained, run on $run) exit $?" | tee -a "$OUT/phases.log"
  tail -2 "$OUT/bench-heldout-trained-$trained.log"
done
# shellcheck disable=SC2086  # B: several options (the in-sample run after the held-out ones)
timeout "$(cap 120)" /tmp/b/bin/tuned_conv_bench $B --workload dnn \
  --csv "$OUT/conv-deployed-$P-vs-cudnn.csv" --md "$OUT/conv-deployed-$P-vs-cudnn.md" \
  > "$OUT/bench.log" 2>&1
echo "[$SECONDS s] bench (in sample) exit $?" | tee -a "$OUT/phases.log"; tail -2 "$OUT/bench.log"
gzip -f /tmp/b/ninja.log && cp /tmp/b/ninja.log.gz "$OUT/" 2>/dev/null
echo "[$SECONDS s] done" | tee -a "$OUT/phases.log"
