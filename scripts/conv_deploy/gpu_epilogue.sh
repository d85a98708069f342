#!/usr/bin/env bash
# ktune::conv2d_ex's fused epilogue (Conv2dEpilogue: bias, residual, ReLU) on the lent GPU, from an
# already-built tree: the GPU tests TunedConv2dExCudaEpilogue.* (every shipped bf16 config and the
# picks with each epilogue, FP32 and bf16 output, against float64; ktune's kernels bit for bit
# their plain output's epilogue; cuDNN and precision fp32 with the pass after; a planted error)
# and Conv2dIgemmMma.* (the sweep's kernel gained three ignored arguments), then
# tuned_conv_epilogue_bench (the fused call against the plain call + a separate pass on
# VGG16 / ResNet-50 layers, in sample).
# Leaves conv-epilogue.tar.gz (logs, the bench's md and csv, run.json draft) and
# conv-epilogue-summary.md in OUT_DIR. About 30-60 s.
#   BUILD=/tmp/b OUT_DIR=$OUT [DEADLINE_S=60] [COMMIT=sha] bash scripts/conv_deploy/gpu_epilogue.sh
# BUILD: built by scripts/gpu_build_remote.sh with EXAMPLES=ON and the targets
#   ktune_gpu_tests tuned_conv_epilogue_bench
# (its BUILD.env is sourced).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=scripts/device_common.sh
. scripts/device_common.sh
BUILD=${BUILD:?BUILD: a build dir of scripts/gpu_build_remote.sh}
OUT_DIR=${OUT_DIR:?OUT_DIR: where the results go}
DEADLINE_S=${DEADLINE_S:-60}
D=${WORK_DIR:-/tmp/conv-epilogue}
rm -rf "$D"
mkdir -p "$D" "$OUT_DIR"
# shellcheck disable=SC1090,SC1091  # the build's env file (gpu_build_remote.sh)
. "$BUILD.env"
SECONDS=0
gpu_info "$D/nvidia-smi.txt"
commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
export KTUNE_CACHE_DIR=/tmp/ktune-cache
run_gpu_tests "$(cap 32)" "$D/gpu-tests.log" "$BUILD/bin/ktune_gpu_tests" \
  --gtest_filter='TunedConv2dExCudaEpilogue.*'
tests_rc=$?
echo "[$SECONDS s] gpu tests exit $tests_rc" | tee -a "$D/phases.log"
# The sweep's mma kernel (NVRTC) gained three ignored arguments: its own tests, if time remains.
run_gpu_tests --append "$(cap 8)" "$D/gpu-tests.log" "$BUILD/bin/ktune_gpu_tests" \
  --gtest_filter='Conv2dIgemmMma.*'
mma_rc=$?
echo "[$SECONDS s] Conv2dIgemmMma tests exit $mma_rc" | tee -a "$D/phases.log"
timeout "$(cap 20)" "$BUILD/bin/tuned_conv_epilogue_bench" "$D/conv-epilogue.md" \
  "$D/conv-epilogue.csv" > "$D/bench.log" 2>&1
bench_rc=$?
echo "[$SECONDS s] bench exit $bench_rc" | tee -a "$D/phases.log"
passed=$(grep -c '^\[       OK \]' "$D/gpu-tests.log")
failed=$(grep -c '^\[  FAILED  \] [A-Za-z]' "$D/gpu-tests.log")
gpu=$(head -2 "$D/nvidia-smi.txt" | tail -1)
summary=$(grep '^Fused vs plain' "$D/conv-epilogue.md" 2>/dev/null)
{
  echo "# conv2d_ex fused epilogue on $gpu"
  echo
  echo "GPU tests (TunedConv2dExCudaEpilogue.*, then Conv2dIgemmMma.*): $passed passed, $failed failed (exits $tests_rc, $mma_rc)."
  echo
  cat "$D/conv-epilogue.md" 2>/dev/null || echo "bench: exit $bench_rc (bench.log)"
} > "$D/summary.md"
python3 - "$D" "$commit" "$gpu" "$passed" "$failed" "$summary" << 'PY'
import json, os, sys
d, commit, gpu, passed, failed, summary = sys.argv[1:]
json.dump({
    "command": "BUILD=<gpu_build_remote.sh dir, EXAMPLES=ON, targets ktune_gpu_tests "
               "tuned_conv_epilogue_bench> OUT_DIR=$OUT bash scripts/conv_deploy/gpu_epilogue.sh",
    "commit": commit, "date": __import__("datetime").date.today().isoformat(),
    "device": gpu,
    "measures": "ktune::conv2d_ex bf16 with the fused epilogue (bias + residual + ReLU) vs the "
                "plain call + a separate elementwise pass, FP32 and bf16 output, us a call (warm "
                f"buffers). {summary} GPU tests: {passed} passed, {failed} failed",
    "files": sorted(f for f in os.listdir(d) if f != "run.json"),
    "in_sample": True,
    "vendors": ["none compared: the baseline is the same library's plain call + a separate pass "
                "(cuDNN serves the layers the selector gives it, in both columns)"],
}, open(os.path.join(d, "run.json"), "w"), indent=1)
PY
echo "[$SECONDS s] done" | tee -a "$D/phases.log"
tar czf "$OUT_DIR/conv-epilogue.tar.gz" -C "$(dirname "$D")" "$(basename "$D")"
cp "$D/summary.md" "$OUT_DIR/conv-epilogue-summary.md"
