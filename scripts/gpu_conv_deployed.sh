#!/usr/bin/env bash
# The deployed conv2d libraries on the lent GPU machine (one device call): builds (CUDA on,
# KTUNE_NATIVE=OFF, examples on) the GPU tests and the deployed conv2d benchmarks from a git
# archive of the branch, runs the tuned-library GPU tests, then tuned_conv_bench --device cuda
# on dnn (in-sample selector) and on vgg16-conv with the selector trained on the ResNet-50
# layers only (held out). Logs and results to $OUT.
set -uo pipefail
C=${CARRY:-.carry/conv-deploy}  # src.tar.gz (git archive), sysroot.tar.gz, stateless.csv.gz
ROOT=/tmp/kt-sysroot BUILD=/tmp/kt-build
mkdir -p "$ROOT" /tmp/kt-src "$OUT"
tar xzf $C/sysroot.tar.gz -C "$ROOT" && tar xzf $C/src.tar.gz -C /tmp/kt-src || exit 1
export PATH="$ROOT/usr/bin:$PATH"
export LD_LIBRARY_PATH="$ROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_LIBDIR="$ROOT/usr/lib/x86_64-linux-gnu/pkgconfig:$ROOT/usr/share/pkgconfig"
cmake -S /tmp/kt-src -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_NATIVE=OFF \
  -DKTUNE_EXAMPLES=ON -DKTUNE_BENCH=OFF -DCMAKE_PREFIX_PATH="$ROOT/usr" \
  -DKTUNE_CUDNN_LIBRARY="$ROOT/usr/local/cuda-13.0/lib/libcudnn.so.9" \
  "-DCMAKE_CXX_FLAGS=-isystem $ROOT/usr/include -isystem $ROOT/usr/local/cuda/include" > $OUT/cmake.log 2>&1 ||
  { tail -30 $OUT/cmake.log; exit 1; }
SECONDS=0
timeout 230 ninja -C $BUILD -j "$(nproc)" -k 0 ktune_gpu_tests tuned_conv_bench tuned_conv_bench_resnet50 > $OUT/ninja.log 2>&1
echo "build exit $? after ${SECONDS}s"; grep -E "error:|FAILED" $OUT/ninja.log | head -30
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
  $(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, q, "lib") for p in nvidia.__path__ for q in os.listdir(p)))' 2>/dev/null); do
  [ -d "$d" ] && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
done
export KTUNE_CACHE_DIR=/tmp/ktune-cache
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader | tee $OUT/nvidia-smi.txt
(cd /tmp/kt-src && git log -1 2>/dev/null); 
timeout 60 $BUILD/bin/ktune_gpu_tests --gtest_filter='TunedConv2d*:TunedGemm*' > $OUT/gpu-tests.log 2>&1
echo "gpu tests exit $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|tests ran" $OUT/gpu-tests.log | tail -12
B="--device cuda --device-slug h100-80gb-hbm3 --peak-gflops 66900 --bandwidth-gbs 3350"
timeout 130 $BUILD/bin/tuned_conv_bench $B --workload dnn --dataset $C/stateless.csv.gz \
  --csv $OUT/conv-deployed-vs-cudnn.csv --md $OUT/conv-deployed-vs-cudnn.md > $OUT/bench.log 2>&1
echo "bench exit $?"; tail -4 $OUT/bench.log
timeout 60 $BUILD/bin/tuned_conv_bench_resnet50 $B --workload vgg16-conv --dataset $C/stateless.csv.gz \
  --csv $OUT/conv-deployed-vs-cudnn-heldout.csv --md $OUT/conv-deployed-vs-cudnn-heldout.md > $OUT/bench-heldout.log 2>&1
echo "held-out bench exit $?"; tail -3 $OUT/bench-heldout.log
gzip -f $OUT/ninja.log
