#!/usr/bin/env bash
# The deployed tensor-core GEMM library (ktune::gemm_ex) on the lent GPU machine, in phases:
#   build  scripts/gpu_build_remote.sh (EXAMPLES=ON: libraries/ and tuned_gemm_bench, and
#          TEST_PROGRAMS) into BUILD; CMAKE_ARGS picks other selectors (e.g. the `vendors` ones)
#   tests  the GPU tests of TESTS_FILTER (default: the deployed library's TunedGemmEx*, every
#          shipped config of every shipped precision vs float64, and TunedGemmCuda*, the FP32 API)
#          in each of TEST_PROGRAMS (default ktune_gpu_tests)
#   bench  tuned_gemm_bench over WORKLOADS (default: per precision bf16 then fp16, the held-out
#          llm first, then the training workloads large and dnn): ktune::gemm_ex vs cuBLAS and
#          cuBLASLt's heuristic #0 (and the fastest of its top LT_TOP, default 8; 0 skips that
#          search) in the same precision, same run, each verified; a CSV left by an interrupted
#          bench is resumed; BENCH_ARGS: more tuned_gemm_bench options (e.g. its timing policy)
# Everything lands in $OUT/tc-deployed.tar.gz (CSVs, logs, nvidia-smi).
#   SYSROOT=.carry/gpu/sysroot.tar.gz OUT=... PHASES='build tests bench' scripts/gpu_tc_deployed.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-/tmp/kt-build-tc}
OUT=${OUT:-/tmp/ktune-out}
W=/tmp/tc-deployed
mkdir -p "$OUT" "$W"
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-cache}
PHASES=${PHASES:-build tests bench}
. scripts/device_common.sh
gpu_info "$W/nvidia-smi.txt"

if has build; then
  start=$(date +%s)
  # shellcheck disable=SC2086  # TEST_PROGRAMS: several targets
  EXAMPLES=ON scripts/gpu_build_remote.sh "$BUILD" ${TEST_PROGRAMS:-ktune_gpu_tests} \
    tuned_gemm_bench || exit 1
  echo "build: $(($(date +%s) - start)) s"
fi
# shellcheck disable=SC1090
. "$BUILD.env"
B=$BUILD/bin

if has tests; then
  for program in ${TEST_PROGRAMS:-ktune_gpu_tests}; do
    run_gpu_tests --append "${TESTS_SECONDS:-180}" "$W/gpu-tests-deployed-tc.log" "$B/$program" \
      --gtest_filter="${TESTS_FILTER:-TunedGemmEx*:TunedGemmCuda*}"
  done
fi

if has bench; then
  for w in ${WORKLOADS:-llm@bf16 large@bf16 dnn@bf16 llm@fp16 large@fp16 dnn@fp16}; do
    start=$(date +%s)
    # A workload file (workloads/gemm/vit.csv@bf16) is named by its base name: vit-bf16.
    base=$(basename "${w%%@*}" .csv)
    name=$base${w#"${w%%@*}"}
    name=${name/@/-}
    # shellcheck disable=SC2086  # BENCH_ARGS: several options
    timeout "${BENCH_SECONDS:-200}" "$B/tuned_gemm_bench" --device cuda --workload "$w" \
      --out "$W/deployed-$name.csv" --lt-top "${LT_TOP:-8}" ${BENCH_ARGS:-} \
      >> "$W/bench-$name.log" 2>&1
    echo "bench $w exit $? ($(($(date +%s) - start)) s), $(($(wc -l < "$W/deployed-$name.csv") - 1)) shapes"
  done
fi
tar czf "$OUT/tc-deployed.tar.gz" -C "$W" .
