#!/usr/bin/env bash
# Issue #30's BF16 CPU check, for a quiet machine (nothing else running; needs AVX512_BF16):
# builds ktune_infer in BUILD_DIR, then examples/networks/bench_cpu.sh runs ResNet-50 and VGG16
# at batch 1 and 16 on the `ktune_bf16`, `onednn_bf16`, `auto_bf16` (per layer and per inference
# the faster of the two), `ktune` and `onednn` backends taking
# turns one inference each in one process (the bf16 pair beside the FP32 figures of the same
# run), whole network and per layer, logits of each compared with the FP32 `onednn` backend's
# -> OUT_DIR/networks.csv, networks-layers.csv (oneDNN's implementation per layer in `choice`),
# networks-agree.csv, networks.md, networks-bf16.md (examples/networks/networks_bf16_md.py: the
# bf16 tables, geomean and time-weighted ratios, worst layers), cpu.txt, run.json.
# Usage: scripts/cpu_bf16_bench.sh BUILD_DIR OUT_DIR   (e.g. build /tmp/bf16; issue 30's committed
# figures, results/amd-epyc-2c/networks-cpu, come from bench_cpu.sh's ROUNDS mode: each backend in
# its own process, alternating; ROUNDS=... passes through to it here too)
# (BATCHES="1 16" and NETWORKS="resnet50 vgg16" by default: a quick check may name fewer; REPS
# and REPS_BIG, default 20 and 5, the timed inferences at batch 1 and above; BACKENDS the list.)
# Expected run time on the 2-core Zen 4 EPYC, quiet: about 5 minutes without `auto_bf16` (VGG16 at
# batch 16 is the longest part), about 2 more with it (its set-up timings; an estimate); the build adds its own time when not up to date.
# Measured quiet (2026-11-28, networks-bf16-auto-s17, in git history): BATCHES="1 16" REPS_BIG=15 with
# BACKENDS=ktune_bf16,onednn_bf16,auto_bf16,onednn: 266 s.
# networks-layers.csv's `choice` names ktune_bf16's path per layer too (gemm_bf16, or
# winograd_f4_fp32[_fused]: FP32 Winograd on bf16 operands); networks-bf16.md sums those layers.
set -euo pipefail
build=${1:?BUILD_DIR}; out=${2:?OUT_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
grep -qw avx512_bf16 /proc/cpuinfo || { echo "error: this CPU has no AVX512_BF16" >&2; exit 1; }
cmake --build "$build" -j"$(nproc)" --target ktune_infer
mkdir -p "$out"
start=$(date +%s)
backends=${BACKENDS:-ktune_bf16,onednn_bf16,auto_bf16,ktune,onednn}
BACKENDS=$backends "$here/examples/networks/bench_cpu.sh" "$build" "$out" \
  "${BATCHES:-1 16}" "${REPS:-20}" "${REPS_BIG:-5}"
/usr/bin/python3 "$here/examples/networks/networks_bf16_md.py" "$out" > "$out/networks-bf16.md"
summary=$(tail -n 1 "$out/networks-bf16.md")
how="taking turns in one process"
[ -z "${ROUNDS:-}" ] || how="each in its own process, alternating in ROUNDS=$ROUNDS rounds \
(${ROUNDS_BATCH16:-$ROUNDS} at batch > 1; medians over the processes)"
/usr/bin/python3 "$here/scripts/run_json_amend.py" "$out" --command \
  "${ROUNDS:+ROUNDS=$ROUNDS }BATCHES=\"${BATCHES:-1 16}\" REPS=${REPS:-20} REPS_BIG=${REPS_BIG:-5} BACKENDS=$backends $0 $*" --measures \
  "VGG16 and ResNet-50 inference in bf16 (bf16 weights and activations, FP32 accumulation; FP32 \
activations between layers, rounded to bf16 inside each layer) on ktune_bf16 and onednn_bf16, \
and auto_bf16 (per layer and per inference the faster of the two); backends $backends $how, whole network and per layer, batch \
${BATCHES:-1 16}, ${REPS:-20} timed inferences at batch 1 and ${REPS_BIG:-5} above (networks-bf16.md). ${summary#summary: }. ktune_bf16 has fixed blocking, no \
selector; its one rule, which 3x3 stride-1 layers run FP32 Winograd on bf16 operands (16+ \
channels and 32+ F(4x4) tiles, or 16+ tiles and c*k >= 2^18; per layer in networks-layers.csv \
choice), was drawn from steering runs of these same layers: in-sample" --vendors "oneDNN 2.6.3 bf16 convolution / inner \
product (convolution_auto, formats any, the reorder of the FP32 NHWC input to bf16 and of the \
output back counted; implementation per layer in networks-layers.csv choice); no OpenBLAS call \
(ktune_infer runs with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset)"
echo "cpu_bf16_bench: $(( $(date +%s) - start )) s"
