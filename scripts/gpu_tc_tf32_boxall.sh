#!/usr/bin/env bash
# The H200 tf32 header with every leaf feature boxed (h200-tf32-vendors-lt8-boxall-k16.hpp,
# --leaf-box-all) deployed, on a build made beforehand, within DEADLINE_S (default 190):
#   BUILD=/tmp/b OUT_DIR=<dir> scripts/gpu_tc_tf32_boxall.sh
# BUILD: EXAMPLES=ON scripts/gpu_build_remote.sh /tmp/b ktune_gpu_tests tuned_gemm_bench with
#   CMAKE_ARGS='-DKTUNE_CUDA_TF32_SELECTOR=<src>/libraries/gemm/selectors/h200-tf32-vendors-lt8-boxall-k16.hpp
#   -DKTUNE_CUDA_BF16_SELECTOR=<src>/libraries/gemm/selectors/h200-bf16-vendors-lt8-k16.hpp'
#   (checked here: a build of another tf32 header would measure that one).
# Runs the GPU tests TunedGemmEx* (every shipped config of the tf32 and bf16 headers vs float64),
# then tuned_gemm_bench per WORKLOADS (default: the ViT shapes, in no H200 tf32 sweep, then llm,
# the training's held-out workload, then large, in sample), each in the time left, against cuBLAS
# and cuBLASLt's #0 in the same run (LT_TOP default 0: no top-8 search), and writes the tables
# (scripts/gemm_deployed_tables.py) beside the CSVs and logs in OUT_DIR.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
start=$(date +%s)
limit=${DEADLINE_S:-190}
if [ -z "${BUILD:-}" ] || [ -z "${OUT_DIR:-}" ]; then
  echo "gpu_tc_tf32_boxall.sh: set BUILD and OUT_DIR" >&2
  exit 2
fi
grep -qs 'KTUNE_CUDA_TF32_SELECTOR.*h200-tf32-vendors-lt8-boxall-k16.hpp' "$BUILD/CMakeCache.txt" ||
  { echo "gpu_tc_tf32_boxall.sh: $BUILD was not built with the boxall tf32 header" >&2; exit 2; }
# gpu_tc_deployed.sh resumes a CSV left in its work dir: an earlier run's picks must not count.
W=/tmp/tc-deployed
[ -e "$W" ] && mv "$W" "$W.before-$$"
mkdir -p "$OUT_DIR"
export BUILD OUT=$OUT_DIR LT_TOP=${LT_TOP:-0} BENCH_ARGS=${BENCH_ARGS:---rep-budget-ms 10}
PHASES=tests TESTS_FILTER='TunedGemmEx*' TESTS_SECONDS=60 scripts/gpu_tc_deployed.sh
runs=()
for w in ${WORKLOADS:-workloads/gemm/vit.csv@tf32 llm@tf32 large@tf32}; do
  left=$((limit - ($(date +%s) - start) - 15))
  [ "$left" -gt 20 ] || { echo "no time left for $w"; break; }
  PHASES=bench WORKLOADS=$w BENCH_SECONDS=$left scripts/gpu_tc_deployed.sh
  name=$(basename "${w%%@*}" .csv)-${w#*@}
  runs+=(--run "$name=$W/deployed-$name.csv")
done
cp "$W"/* "$OUT_DIR"/
data=results/h200/tc-tf32-lt8/gemm-tc-tf32.csv.xz  # the oracle column, where the sweep is here
[ -f "$data" ] && runs+=(--data "$data")
python3 scripts/gemm_deployed_tables.py "${runs[@]}" --csv "$OUT_DIR/deployed-tables.csv" \
  --markdown "$OUT_DIR/deployed-tables.md"
echo "total $(($(date +%s) - start)) s"
