#!/usr/bin/env bash
# Committed copy of the script run as .carry/coord/final.sh (see results/LOG.md, scale-out).
# Coordinator's last call (nvidia-h200-x2): device build of main, the scale-out remeasure with
# work stealing (scaleout's subset: seed configs x dnn shard 0/14, cuda:0 then cuda:all into fresh
# stores, key sets compared), then the GPU suite and the network CUDA tests with what time is left.
set -uo pipefail
C=.carry/coord
ROOT=/tmp/kt-sysroot BUILD=/tmp/kt-build
mkdir -p "$ROOT" /tmp/kt-src "$OUT"
tar xzf $C/sysroot.tar.gz -C "$ROOT" && tar xzf $C/src.tar.gz -C /tmp/kt-src || exit 1
export PATH="$ROOT/usr/bin:$PATH"
export LD_LIBRARY_PATH="$ROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_LIBDIR="$ROOT/usr/lib/x86_64-linux-gnu/pkgconfig:$ROOT/usr/share/pkgconfig"
SECONDS=0
cmake -S /tmp/kt-src -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_NATIVE=OFF \
  -DKTUNE_EXAMPLES=ON -DKTUNE_BENCH=OFF -DCMAKE_PREFIX_PATH="$ROOT/usr" \
  -DCMAKE_PROJECT_INCLUDE=/tmp/kt-src/scripts/networks/fake_openblas.cmake \
  -DKTUNE_CUDNN_LIBRARY="$ROOT/usr/local/cuda-13.0/lib/libcudnn.so.9" \
  "-DCMAKE_CXX_FLAGS=-isystem $ROOT/usr/include -isystem $ROOT/usr/local/cuda/include" > $OUT/cmake.log 2>&1 ||
  { tail -30 $OUT/cmake.log; exit 1; }
timeout 170 ninja -C $BUILD -j "$(nproc)" -k 0 ktune ktune_gpu_tests ktune_nn_cuda_tests > $OUT/ninja.log 2>&1
echo "build exit $? after ${SECONDS}s"; grep -E "error:|FAILED" $OUT/ninja.log | head -20
gzip -f $OUT/ninja.log
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
done
export KTUNE_CACHE_DIR=/tmp/ktune-cache
nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee $OUT/nvidia-smi.txt
K=$BUILD/bin/ktune
ARGS=(--family gemm --workload dnn --configs kind:seed --shard 0/14 --warmups 0 --min-reps 3
  --max-reps 10 --rep-budget-ms 1 --timeout-ms 1000)
$K bench --device cuda:0 "${ARGS[@]}" --budget-ms 1 --store /tmp/warm.sqlite > $OUT/warm.log 2>&1
echo "warm exit $? after ${SECONDS}s"
run() {  # gpus device store time-limit
  local t0 t1 rc n
  t0=$(date +%s.%N)
  timeout "$4" $K bench --device "$2" "${ARGS[@]}" --store "$3" > "$OUT/bench-$1gpu.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  n=$($K export --store "$3" --format csv 2> /dev/null | tail -n +2 | wc -l)
  echo "$1,$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }'),$n" >> $OUT/scaleout.csv
  echo "gpus $1 ($2): exit $rc at ${SECONDS}s, $(tail -1 "$OUT/bench-$1gpu.log")"
}
echo "gpus,wall_s,measurements" > $OUT/scaleout.csv
run 1 cuda:0 /tmp/one.sqlite 140
run 2 cuda:all /tmp/all.sqlite 100
cat $OUT/scaleout.csv
for s in one all; do
  $K export --store /tmp/$s.sqlite --format csv -o /tmp/$s.csv 2> /dev/null
  tail -n +2 /tmp/$s.csv | cut -d, -f1-4 | sort > /tmp/$s.keys
done
if cmp -s /tmp/one.keys /tmp/all.keys; then echo "identical key sets: $(wc -l < /tmp/one.keys) keys";
else echo "KEY SETS DIFFER"; diff /tmp/one.keys /tmp/all.keys | head -5; fi | tee $OUT/keys.txt
gzip -c /tmp/all.csv > $OUT/scaleout-2gpu.csv.gz
left=$((375 - SECONDS))
echo "GPU suite with ${left}s left"
if [ $left -gt 30 ]; then
  timeout $((left - 25)) $BUILD/bin/ktune_gpu_tests > $OUT/gpu-tests.log 2>&1
  echo "gpu tests exit $? at ${SECONDS}s"
  grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|tests ran" $OUT/gpu-tests.log | tail -25
  timeout 20 $BUILD/bin/ktune_nn_cuda_tests > $OUT/nn-cuda-tests.log 2>&1
  echo "nn cuda tests exit $? at ${SECONDS}s"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED" $OUT/nn-cuda-tests.log
fi
echo "total ${SECONDS}s"
