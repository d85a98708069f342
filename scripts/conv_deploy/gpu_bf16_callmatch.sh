#!/usr/bin/env bash
# The deployed bf16 conv2d library (ktune::conv2d_ex) whose vendor=cudnn call now searches what
# the sweep's cudnn rows searched in NHWC (legacy Find and the backend engines, faster kept:
# kernels/conv2d/deploy/vendor_cudnn.hpp), against cuDNN at its best in bf16, on the lent GPU, from
# an already-built tree. The selector was trained on H100 rows: on another card this measures the
# H100-trained library there. Runs in order, each phase capped so the script ends by DEADLINE_S:
# the conv2d tuned libraries' GPU tests (the deployed cuDNN call against float64 with the bf16
# bound, a planted error) and the family's cuDNN tests (the shared engine search), then
# tuned_conv_bench --precision bf16 on dnn (VGG16 + ResNet-50 at batch 1 and 16: in sample), then
# the two held-out programs if time remains. No --dataset: the committed
# sweeps are another card's, so the oracle column stays empty. Works in WORK_DIR (default
# /tmp/callmatch) and leaves two files in OUT_DIR (the device tool brings back few files):
# conv-deployed-bf16-callmatch.tar.gz (logs, CSVs, tables, summary.md, run.json draft) and
# callmatch-summary.md (a copy of the summary).
#   BUILD=/tmp/b OUT_DIR=$OUT [DEADLINE_S=200] [COMMIT=sha] \
#     bash scripts/conv_deploy/gpu_bf16_callmatch.sh
# BUILD: built by scripts/gpu_build_remote.sh with EXAMPLES=ON and the targets
#   ktune_gpu_tests tuned_conv_bench tuned_conv_bench_bf16_vgg16 tuned_conv_bench_bf16_resnet50
# (its BUILD.env is sourced). PEAK_GFLOPS / BANDWIDTH_GBS: the roofline's nominal figures (H200
# SXM defaults: 989.4 dense bf16 TFLOP/s, 4.8 TB/s).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=scripts/device_common.sh
. scripts/device_common.sh
BUILD=${BUILD:?BUILD: a build dir of scripts/gpu_build_remote.sh}
OUT_DIR=${OUT_DIR:?OUT_DIR: where the results go}
DEADLINE_S=${DEADLINE_S:-200}
D=${WORK_DIR:-/tmp/callmatch}
rm -rf "$D"
mkdir -p "$D" "$OUT_DIR"
# shellcheck disable=SC1090,SC1091  # the build's env file (gpu_build_remote.sh)
. "$BUILD.env"
SECONDS=0
gpu_info "$D/nvidia-smi.txt"
slug=$(gpu_slug)
slug=${slug:-unknown-gpu}
commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}  # COMMIT: the source's
export KTUNE_CACHE_DIR=/tmp/ktune-cache
# The deployed calls' tests and the family's cuDNN tests (their engine search is the shared one).
run_gpu_tests "$(cap 50)" "$D/gpu-tests.log" "$BUILD/bin/ktune_gpu_tests" \
  --gtest_filter='TunedConv2dExCuda*:TunedConv2dCuda*:Conv2dCudnn.*:Conv2dCudaBackend.Cudnn*'
echo "[$SECONDS s] gpu tests exit $?" | tee -a "$D/phases.log"
# Each deployed cuDNN search's result (legacy vs engines, kept) goes to the bench's stderr.
export KTUNE_CONV2D_CUDNN_LOG=1
B="--device cuda --precision bf16 --device-slug $slug --peak-gflops ${PEAK_GFLOPS:-989400}
  --bandwidth-gbs ${BANDWIDTH_GBS:-4800}"
# shellcheck disable=SC2086  # B: several options
timeout "$(cap 120)" "$BUILD/bin/tuned_conv_bench" $B --workload dnn \
  --csv "$D/conv-deployed-bf16-vs-cudnn.csv" --md "$D/conv-deployed-bf16-vs-cudnn.md" \
  > "$D/bench.log" 2>&1
echo "[$SECONDS s] bench (in sample) exit $?" | tee -a "$D/phases.log"
for pair in vgg16:resnet50 resnet50:vgg16; do
  trained=${pair%%:*} run=${pair##*:}
  (($(cap 40) >= 20)) || { echo "[$SECONDS s] held out ($trained) skipped: no time" |
    tee -a "$D/phases.log"; continue; }
  # shellcheck disable=SC2086
  timeout "$(cap 40)" "$BUILD/bin/tuned_conv_bench_bf16_$trained" $B --workload "$run-conv" \
    --csv "$D/heldout-trained-$trained.csv" --md "$D/heldout-trained-$trained.md" \
    > "$D/bench-heldout-trained-$trained.log" 2>&1
  echo "[$SECONDS s] bench (trained on $trained, run on $run) exit $?" | tee -a "$D/phases.log"
done
grep -h "^ktune::conv2d_ex cudnn" "$D"/bench*.log > "$D/cudnn-search.log" 2>/dev/null
python3 scripts/conv_deploy/callmatch_summary.py --dir "$D" --commit "$commit" \
  --seconds "$SECONDS" > "$D/summary.md" 2> "$D/summary.err"
echo "[$SECONDS s] done" | tee -a "$D/phases.log"
tar czf "$OUT_DIR/conv-deployed-bf16-callmatch.tar.gz" -C "$(dirname "$D")" "$(basename "$D")"
cp "$D/summary.md" "$OUT_DIR/callmatch-summary.md"
