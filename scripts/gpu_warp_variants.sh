#!/usr/bin/env bash
# Issue #13, warp kernel register bound: one device call that builds ktune, sweeps the warp kind
# on `large` with kernels/gemm/cuda/gemm_warp.cuh as committed (at most 128 registers a thread),
# then with the launch bounds' minimum block count removed (nvcc free to use up to 255), rebuilt
# in place, into a second store; both with cuBLAS rows of the same run. Also the warp GPU tests of
# the first variant and ptxas' register/spill report plus the SASS instruction mix of the main
# loop of three instantiations per variant (cuobjdump exists on the device only). Then the variant
# with the higher geomean of best warp config / cuBLAS over `large` sweeps the warp kind on `dnn`
# for the time left (the store comes back; a later call resumes it).
#   CARRY=.carry/gpu bash scripts/gpu_warp_variants.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/gpu_device_build.sh
. scripts/gpu_device_build.sh
. scripts/device_common.sh
export KTUNE_CACHE_DIR=/tmp/ktune-cache
K=$B/bin/ktune
S=(--warmups 0 --min-reps 3 --max-reps 10 --rep-budget-ms 1 --timeout-ms 1000)
inspect() {  # ptxas report + main-loop instruction mix of three instantiations
  scripts/warp_sass_mix.sh > $W/sass-$1.txt 2>&1
  tail -8 $W/sass-$1.txt
}
run_gpu_tests 150 "$W/gpu-tests-capped.log" "$B/bin/ktune_gpu_tests" --gtest_filter='Warp*'
cp kernels/gemm/cuda/gemm_warp.cuh $W/gemm_warp.cuh.capped
for v in capped free; do
  if [ $v = free ]; then
    sed -i 's|^\(__global__ void __launch_bounds__(32 \* (BM / WM) \* (BN / WN)\),$|\1)|; /^  *512 \/ (32 \* (BM \/ WM) \* (BN \/ WN)) > 0$/,/^  *: 1)$/d' kernels/gemm/cuda/gemm_warp.cuh
    grep -n -A1 "__launch_bounds__" kernels/gemm/cuda/gemm_warp.cuh
    ninja -C $B ktune > $W/ninja-free.log 2>&1 || { tail -20 $W/ninja-free.log; break; }
    echo "rebuilt at ${SECONDS}s"
  fi
  inspect $v
  timeout 150 $K bench --family gemm --device cuda:0 --workload large --configs kind:warp \
    --store $W/$v.sqlite "${S[@]}" > $W/bench-$v.log 2>&1
  echo "$v: exit $? at ${SECONDS}s: $(tail -1 $W/bench-$v.log)"
  $K export --store $W/$v.sqlite --format csv -o $OUT/large-warp-$v.csv.gz
done
geomean() {  # best warp config / cuBLAS over the shapes of an exported sweep
  python3 - "$1" <<'PY'
import collections, csv, gzip, math, sys
best, vendor = collections.defaultdict(lambda: math.inf), {}
for r in csv.DictReader(gzip.open(sys.argv[1], "rt")):
    if r["status"] != "ok": continue
    t = float(r["median_ms"])
    if r["config"].startswith("kind="): best[r["problem"]] = min(best[r["problem"]], t)
    else: vendor[r["problem"]] = t
ratios = [math.log(vendor[p] / best[p]) for p in vendor if p in best]
print(f"{math.exp(sum(ratios) / len(ratios)):.4f}" if ratios else "0")
PY
}
gc=$(geomean $OUT/large-warp-capped.csv.gz) gf=$(geomean $OUT/large-warp-free.csv.gz)
echo "best warp / cuBLAS on large: capped $gc, free $gf" | tee $W/decision.txt
if python3 -c "import sys; sys.exit(0 if $gc >= $gf else 1)"; then
  cp $W/gemm_warp.cuh.capped kernels/gemm/cuda/gemm_warp.cuh
  ninja -C $B ktune > $W/ninja-capped.log 2>&1 || { tail -20 $W/ninja-capped.log; exit 1; }
  echo "capped kept, rebuilt at ${SECONDS}s" | tee -a $W/decision.txt
fi
t=$((${LIMIT:-575} - SECONDS))
if ((t > 30)); then
  timeout $t $K bench --family gemm --device cuda:0 --workload dnn --configs kind:warp \
    --store $W/dnn.sqlite "${S[@]}" > $W/bench-dnn.log 2>&1
  echo "dnn: exit $? at ${SECONDS}s: $(tail -1 $W/bench-dnn.log)"
  $K export --store $W/dnn.sqlite --format csv -o $OUT/dnn-warp.csv.gz
fi
tar czf $OUT/logs.tar.gz -C $W --exclude='*.sqlite*' .
echo "done at ${SECONDS}s"
