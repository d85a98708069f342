#!/usr/bin/env bash
# Tune and remember on the GPU (docs/deploy.md): the shipped CUDA GEMM library (default selector
# headers) on the held-out ViT workload (workloads/gemm/vit.csv) against cuBLAS and cuBLASLt #0,
# per precision tf32, bf16 and fp32: (a) plain; (b) with KTUNE_REMEMBER in its steady state (a
# first process fills a fresh cache, a second one is timed, serving the cache's answers); then
# plain again (the card's drift over the precision's runs). SHAPES (KTUNE_REMEMBER_SHAPES: unsure,
# the default, or all; SHAPES_FP32 for fp32 alone) says which shapes a first call tunes; a header
# without a kUnsure rule tunes none unless all. Last, the first-call costs (remember_overhead_cuda).
# First (TESTS=0 skips it) the GPU tests of the CUDA vendor-wins libraries, tune and remember
# among them (ktune_gpu_vendor_tc_tests: TunedGemmRememberCuda.*; ktune_gpu_vendor_tests).
# Writes small CSVs, logs and the caches into OUT_DIR; scripts/gpu_remember_runjson.py OUT_DIR
# (run where the results are committed) adds the tables and run.json.
#   SYSROOT=... [W=/tmp/rv] [B=$W/build] [TESTS=0] [SHAPES=all] [SHAPES_FP32=unsure] \
#     scripts/gpu_remember_vit.sh OUT_DIR
# Expected: ~3-5 min cold build, ~1 min of tests, then ~1.5-2 min of runs.
set -uo pipefail
out=${1:?usage: gpu_remember_vit.sh OUT_DIR}
W=${W:-/tmp/rv}
B=${B:-$W/build}  # B: an existing build dir (e.g. of another script) is reused
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out" "$W"
stamp() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$out/phases.log"; }
nvidia-smi > "$out/nvidia-smi.txt" 2>&1
targets=(tuned_gemm_bench remember_overhead_cuda)
[ "${TESTS:-1}" = 0 ] || targets+=(ktune_gpu_vendor_tc_tests ktune_gpu_vendor_tests)
stamp "build ${targets[*]}"
if ! EXAMPLES=ON "$here/scripts/gpu_build_remote.sh" "$B" "${targets[@]}" > "$W/build.log" 2>&1; then
  tail -40 "$W/build.log" | tee "$out/build-tail.log"
  exit 1
fi
# shellcheck disable=SC1090
. "$B.env"
if [ "${TESTS:-1}" != 0 ]; then
  stamp "GPU tests"
  for t in ktune_gpu_vendor_tc_tests ktune_gpu_vendor_tests; do
    timeout 240 "$B/bin/$t" > "$out/$t.log" 2>&1
    echo "   $t: exit $?"
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|Failure" "$out/$t.log" | head -20
  done
fi
timing=(--min-reps 5 --max-reps 50 --rep-budget-ms 10)
# Every run starts without the caller's tune-and-remember settings.
clean() {
  env -u KTUNE_REMEMBER -u KTUNE_REMEMBER_BUDGET_MS -u KTUNE_REMEMBER_CANDIDATES \
    -u KTUNE_REMEMBER_SHAPES "$@"
}
bench() {  # NAME WORKLOAD [VAR=value ...]
  local name=$1 workload=$2
  shift 2
  rm -f "$out/$name.csv"
  clean "$@" "$B/bin/tuned_gemm_bench" --device cuda --workload "$here/$workload" \
    --out "$out/$name.csv" "${timing[@]}" > "$out/$name.log" 2>&1
  echo "   $name: exit $?, $(($(wc -l < "$out/$name.csv") - 1)) rows"
}
for p in tf32 bf16 fp32; do
  workload=workloads/gemm/vit.csv
  shapes=${SHAPES:-unsure}
  [ "$p" = fp32 ] && shapes=${SHAPES_FP32:-$shapes}
  [ "$p" = fp32 ] || workload="$workload@$p"
  cache=$out/remember-$p.sqlite
  rm -f "$cache" "$cache-wal" "$cache-shm"
  stamp "$p: plain, fill, remembered, plain again"
  bench "plain-$p" "$workload"
  bench "fill-$p" "$workload" "KTUNE_REMEMBER=$cache" "KTUNE_REMEMBER_SHAPES=$shapes"
  bench "remember-$p" "$workload" "KTUNE_REMEMBER=$cache" "KTUNE_REMEMBER_SHAPES=$shapes"
  bench "plain2-$p" "$workload"
done
stamp "first-call costs"
clean "$B/bin/remember_overhead_cuda" > "$out/overhead.csv" 2> "$out/overhead.log"
echo "   overhead: exit $?"
cat "$out/overhead.csv"
stamp "done"
ls -la "$out"
