#!/usr/bin/env bash
# The coordinator's GPU call on merged main, in phases (PHASES, default all):
#   build  scripts/gpu_build_remote.sh (EXAMPLES=ON) of the GPU test programs, ktune and
#          tuned_gemm_bench into BUILD
#   tests  the GPU suite (ctest labels gpu, nn_cuda, gpu_vendor, gpu_vendor_tc, gpu_vendor_lt, cuda, nn_onnx,
#          deploy_multidevice_cuda, and the file families' CUDA tests), less the tests matching
#          SKIP_TESTS (a ctest -E regex; default: none)
#   vit    the deployed GEMM library on the held-out ViT shapes (workloads/gemm/vit.csv) in fp32
#          (ktune::gemm vs cuBLAS) and bf16 / fp16 (ktune::gemm_ex vs cuBLAS and cuBLASLt), each
#          row verified and timed in the same run
#   ktt    KTT's published tutorial problem file with its kernel, read unchanged, benched on
#          cuda:0 (scripts/run_published_ktt_vectoradd.sh; the files copied into KTT_DIR)
#   examples  the CUDA examples of examples/own-kernels (*_cuda.json) benched on cuda:0, every
#          config verified against the example's float64 C++ reference; stores exported as CSV
# Everything lands in OUT (logs, CSVs, nvidia-smi).
#   SYSROOT=... OUT=... [KTT_DIR=.carry/filefam/ktt] scripts/gpu_merged_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-/tmp/kt-build-check}
OUT=${OUT:?OUT}
PHASES=${PHASES:-build tests vit ktt examples}
. scripts/device_common.sh
mkdir -p "$OUT"
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-cache}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/nvidia-smi.txt"
if has build; then
  start=$(date +%s)
  EXAMPLES=ON scripts/gpu_build_remote.sh "$BUILD" ktune ktune_gpu_tests ktune_nn_cuda_tests \
    ktune_gpu_vendor_tests ktune_gpu_vendor_tc_tests ktune_gpu_vendor_lt_tests ktune_cuda_tests ktune_nn_onnx_tests ktune_infer \
    ktune_deploy_multidevice_cuda_tests ktune_filefamily_tests tuned_gemm_bench > "$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; exit 1; }
  echo "build: $(($(date +%s) - start)) s"
fi
# shellcheck disable=SC1090
. "$BUILD.env"
B=$BUILD/bin
if has tests; then
  start=$(date +%s)
  (cd "$BUILD" && ctest -L '^(gpu|nn_cuda|gpu_vendor|gpu_vendor_tc|gpu_vendor_lt|cuda|nn_onnx|deploy_multidevice_cuda)$' ${SKIP_TESTS:+-E "$SKIP_TESTS"} -j 4 \
    --timeout 300 --output-on-failure > "$OUT/gpu-tests.log" 2>&1)
  echo "gpu suite exit $? ($(($(date +%s) - start)) s)"
  "$B/ktune_filefamily_tests" --gtest_filter='*Cuda*' > "$OUT/filefamily-cuda-tests.log" 2>&1
  echo "file-family CUDA tests exit $?"
  grep -E "tests passed|tests failed|\*\*\*|Failed|Not Run" "$OUT/gpu-tests.log" | head -20
fi
if has vit; then
  for w in workloads/gemm/vit.csv workloads/gemm/vit.csv@bf16 workloads/gemm/vit.csv@fp16; do
    start=$(date +%s)
    name=deployed-vit${w#*vit.csv}
    name=${name/@/-}
    timeout "${BENCH_SECONDS:-100}" "$B/tuned_gemm_bench" --device cuda --workload "$w" \
      --out "$OUT/$name.csv" > "$OUT/$name.log" 2>&1
    echo "bench $w exit $? ($(($(date +%s) - start)) s), $(($(wc -l < "$OUT/$name.csv") - 1)) shapes"
  done
fi
if has ktt; then
  scripts/run_published_ktt_vectoradd.sh "$B/ktune" "${KTT_DIR:-.carry/filefam/ktt}" \
    /tmp/ktt-vectoradd --device cuda:0 > "$OUT/ktt-vectoradd.log" 2>&1
  echo "KTT tutorial exit $?"
  tail -5 "$OUT/ktt-vectoradd.log"
fi
if has examples; then
  for f in examples/own-kernels/*/*_cuda.json; do
    name=$(basename "$f" .json)
    "$B/ktune" bench --family-file "$f" --device cuda:0 --store "/tmp/ex-$name.sqlite" \
      >> "$OUT/examples.log" 2>&1
    echo "$name rc=$?" | tee -a "$OUT/examples.log"
    "$B/ktune" export --store "/tmp/ex-$name.sqlite" --format csv -o "$OUT/ex-$name.csv" \
      >> "$OUT/examples.log" 2>&1
  done
fi
