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
# OUTPUT=bf16: the deployed call writes bf16 (ktune::conv2d_ex(..., Conv2dOutput::bf16, ...):
# every config writes its bf16 output itself, cuDNN's engine included, no widening pass) like the
# vendor column, its FP32-output call timed beside it in the same run (the tables' "FP32 output ->
# bf16 output" lines), and on each cuDNN pick cuDNN in the call's search space (NHWC) run bare
# (the "against cuDNN NHWC alone" line: the call's own cost); the tests of both output types and of
# the conv kernels run first; the summary adds call-vs-engine.md (each vendor-served call, cuDNN
# NHWC alone and the search's own time of the kept engine);
# the files are conv-deployed-bf16-output.tar.gz and bf16-output-summary.md, WORK_DIR
# /tmp/bf16out.
#   BUILD=/tmp/b OUT_DIR=$OUT [OUTPUT=bf16] [DEADLINE_S=200] [COMMIT=sha] \
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
OUTPUT=${OUTPUT:-fp32}
[[ $OUTPUT == fp32 || $OUTPUT == bf16 ]] || { echo "OUTPUT=$OUTPUT: fp32 or bf16" >&2; exit 2; }
name=conv-deployed-bf16-callmatch summary=callmatch-summary.md work=/tmp/callmatch
tests='TunedConv2dExCuda*:TunedConv2dCuda*:Conv2dCudnn.*:Conv2dCudaBackend.Cudnn*'
if [[ $OUTPUT == bf16 ]]; then
  name=conv-deployed-bf16-output summary=bf16-output-summary.md work=/tmp/bf16out
  tests='TunedConv2dExCuda*:Conv2dIgemmMma.*:Conv2dIgemmWgmma.*:Conv2dCudnn.*'
fi
D=${WORK_DIR:-$work}
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
run_gpu_tests "$(cap 55)" "$D/gpu-tests.log" "$BUILD/bin/ktune_gpu_tests" \
  --gtest_filter="$tests"
echo "[$SECONDS s] gpu tests exit $?" | tee -a "$D/phases.log"
# Each deployed cuDNN search's result (legacy vs engines, kept) goes to the bench's stderr.
export KTUNE_CONV2D_CUDNN_LOG=1
B="--device cuda --precision bf16 --output $OUTPUT --device-slug $slug
  --peak-gflops ${PEAK_GFLOPS:-989400} --bandwidth-gbs ${BANDWIDTH_GBS:-4800}"
# shellcheck disable=SC2086  # B: several options
timeout "$(cap 105)" "$BUILD/bin/tuned_conv_bench" $B --workload dnn \
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
  --output "$OUTPUT" --seconds "$SECONDS" > "$D/summary.md" 2> "$D/summary.err"
[[ -s "$D/summary.err" ]] || rm -f "$D/summary.err"
echo "[$SECONDS s] done" | tee -a "$D/phases.log"
tar czf "$OUT_DIR/$name.tar.gz" -C "$(dirname "$D")" "$(basename "$D")"
cp "$D/summary.md" "$OUT_DIR/$summary"
