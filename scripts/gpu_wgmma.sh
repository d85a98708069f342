#!/usr/bin/env bash
# The Hopper tensor-core (wgmma) GEMM kind on the lent GPU machine, in one call, writing under
# $OUT (8 files come back):
#   build  scripts/gpu_build_remote.sh of ktune and ktune_gpu_tests into BUILD
#   sass   nvcc -Xptxas -v resource report and SASS instruction mix of aot_check_wgmma.cu (sm_90a)
#   tests  the GPU tests of TESTS_FILTER (default WgmmaGemm*: every wgmma config x transposes x
#          bf16/fp16 x whole / ragged / persistent shapes, alpha/beta, refusals)
#   sweep  WORKLOADS (default large@bf16) x CONFIGS (default kind:mma,kind:wgmma,kind:mmasplit) +
#          cuBLAS and cuBLASLt in the same precision, same run; the store exported. A later call
#          on the same warm machine (PHASES=sweep) adds to the same store.
# Run from a checkout:  SYSROOT=.carry/gpu/sysroot.tar.gz OUT=... scripts/gpu_wgmma.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-/tmp/kt-build}
OUT=${OUT:-/tmp/ktune-out}
W=/tmp/wgmma-work
mkdir -p "$OUT" "$W"
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-cache}
PHASES=${PHASES:-build sass tests sweep}
. scripts/device_common.sh
gpu_info "$OUT/nvidia-smi.txt"

if has build; then
  start=$(date +%s)
  scripts/gpu_build_remote.sh "$BUILD" ktune ktune_gpu_tests || exit 1
  echo "build: $(($(date +%s) - start)) s"
fi
# shellcheck disable=SC1090
. "$BUILD.env"
B=$BUILD/bin

if has sass; then
  nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a -cubin -I. -Xptxas -v \
    -o /tmp/wgmma.cubin kernels/gemm/cuda/aot_check_wgmma.cu > "$W/ptxas.txt" 2>&1
  grep -E "registers|spill|arn" "$W/ptxas.txt"
  cuobjdump -sass /tmp/wgmma.cubin > "$W/sass.txt"
  grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9_.]+' "$W/sass.txt" | awk '{print $2}' | sed 's/\..*//' |
    sort | uniq -c | sort -rn > "$W/sass-mix.txt"
  grep -E "HGMMA|UTMALDG|SYNCS|LDL|STL|USETMAXREG|HMMA" "$W/sass-mix.txt"
  gzip -f "$W/sass.txt"
fi

if has tests; then
  run_gpu_tests "${TESTS_SECONDS:-240}" "$W/gpu-tests-wgmma.log" "$B/ktune_gpu_tests" \
    --gtest_filter="${TESTS_FILTER:-WgmmaGemm*}"
fi

if has sweep; then
  S="--warmups 0 --min-reps 3 --max-reps 10 --rep-budget-ms 1 --timeout-ms 1000"
  slug=$(gpu_slug)
  for w in ${WORKLOADS:-large@bf16}; do
    start=$(date +%s)
    # shellcheck disable=SC2086
    timeout "${SWEEP_SECONDS:-300}" "$B/ktune" bench --family gemm --device cuda:0 --workload "$w" \
      --configs "${CONFIGS:-kind:mma,kind:wgmma,kind:mmasplit}" --store /tmp/wgmma.sqlite $S \
      > "$W/bench-$w.log" 2>&1
    echo "bench $w exit $? ($(($(date +%s) - start)) s)"
    tail -2 "$W/bench-$w.log"
    "$B/ktune" report --store /tmp/wgmma.sqlite --device "${slug:-h100-80gb-hbm3}" --workload "$w" \
      --csv "$W/$w-vs-vendor.csv" --markdown "$W/$w-vs-vendor.md" > /dev/null 2>&1 ||
      echo "report $w failed"
  done
  "$B/ktune" export --store /tmp/wgmma.sqlite --format csv -o "$OUT/gemm-wgmma.csv.gz"
fi
tar czf "$OUT/wgmma.tar.gz" -C "$W" .
