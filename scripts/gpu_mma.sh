#!/usr/bin/env bash
# The tensor-core (mma) GEMM kind on the lent GPU machine, in phases (PHASES, default
# "build tests sweep"), each writing under $OUT:
#   build  scripts/gpu_build_remote.sh of ktune, ktune_gpu_tests and ktune_core_tests into BUILD
#   tests  the mma GPU tests (every config x transposes x edges x misalignment x precision), the
#          host precision tests, and the SASS instruction mix of one bf16 and one tf32 config
#   sweep  WORKLOADS (default "large@bf16 large@tf32") x kind:mma + cuBLAS in the same precision,
#          the store exported and the gemm-vs-vendor report of each workload
# Run from a checkout:  SYSROOT=.carry/gpu/sysroot.tar.gz OUT=... scripts/gpu_mma.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-/tmp/kt-build}
OUT=${OUT:-/tmp/ktune-out}
W=/tmp/mma-work  # what each phase writes; packed into $OUT/<phase>.tar.gz (8 files come back)
mkdir -p "$OUT" "$W"
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-cache}
PHASES=${PHASES:-build tests sweep}
. scripts/device_common.sh

if has build; then
  start=$(date +%s)
  scripts/gpu_build_remote.sh "$BUILD" ktune ktune_gpu_tests ktune_core_tests || exit 1
  echo "build: $(($(date +%s) - start)) s"
fi
# shellcheck disable=SC1090
. "$BUILD.env"
B=$BUILD/bin
gpu_info "$OUT/nvidia-smi.txt"

if has tests; then
  run_gpu_tests "${TESTS_SECONDS:-400}" "$W/gpu-tests-mma.log" "$B/ktune_gpu_tests" \
    --gtest_filter='MmaGemm*'
  "$B/ktune_core_tests" --gtest_filter='GemmPrecision*:Space*' > "$W/core-tests.log" 2>&1
  echo "core tests exit $?"
  tail -3 "$W/core-tests.log"
  # SASS of the kernels the sweep compiles: matrix (HMMA), ldmatrix (LDSM), cp.async (LDGSTS).
  for inst in "128,128,32,64,64,4,2,0,0" "128,128,32,64,64,4,1,0,0"; do
    printf '#include "kernels/gemm/cuda/gemm_mma.cuh"\ntemplate __global__ void ktune_gemm_mma<%s>(long long, long long, long long, float, const KtuneMmaElem<%s>::type*, long long, long long, const KtuneMmaElem<%s>::type*, long long, long long, float, float*, long long, long long);\n' \
      "$inst" "$(echo "$inst" | cut -d, -f7)" "$(echo "$inst" | cut -d, -f7)" > /tmp/mma_sass.cu
    nvcc -std=c++17 -gencode=arch=compute_90,code=sm_90 -cubin -I. -Xptxas -v -o /tmp/mma.cubin \
      /tmp/mma_sass.cu 2>&1 | grep -E "registers|spill" 
    echo "== ktune_gemm_mma<$inst>" >> "$W/sass-mix.txt"
    cuobjdump -sass /tmp/mma.cubin | grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9_.]+' |
      awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn >> "$W/sass-mix.txt"
  done
  grep -E "==|HMMA|LDSM|LDGSTS|FFMA|LDS$|LDL|STL" "$W/sass-mix.txt"
  tar czf "$OUT/tests.tar.gz" -C "$W" gpu-tests-mma.log core-tests.log sass-mix.txt
fi

if has sweep; then
  S="--warmups 0 --min-reps 3 --max-reps 10 --rep-budget-ms 1 --timeout-ms 1000"
  slug=$(gpu_slug)
  for w in ${WORKLOADS:-large@bf16 large@tf32}; do
    start=$(date +%s)
    # shellcheck disable=SC2086
    "$B/ktune" bench --family gemm --device cuda:0 --workload "$w" --configs kind:mma \
      --store /tmp/mma.sqlite $S ${BENCH_ARGS:-} > "$W/bench-$w.log" 2>&1
    echo "bench $w exit $? ($(($(date +%s) - start)) s)"
    tail -2 "$W/bench-$w.log"
    "$B/ktune" report --store /tmp/mma.sqlite --device "${slug:-h100-80gb-hbm3}" --workload "$w" \
      --csv "$W/$w-vs-vendor.csv" --markdown "$W/$w-vs-vendor.md" > /dev/null 2>&1 ||
      echo "report $w failed"
    [ -f scripts/vendor_ratios.py ] && python3 scripts/vendor_ratios.py "$W/$w-vs-vendor.csv" |
      tee -a "$W/$w-vs-vendor.md"
  done
  "$B/ktune" export --store /tmp/mma.sqlite --format csv -o "$OUT/gemm-mma${TAG:-}.csv.gz"
  tar czf "$OUT/sweep${TAG:-}.tar.gz" -C "$W" $(cd "$W" && ls bench-* ./*-vs-vendor.*)
fi
