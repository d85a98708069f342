#!/usr/bin/env bash
# conv-deploy's follow-up call: VGG16 through nn/cuda's ktune backend with the conv2d selector
# trained on the ResNet-50 layers only (held out), beside PyTorch in the same run.
set -uo pipefail
# shellcheck source=scripts/device_common.sh
. "$(dirname "$0")/device_common.sh"
C=${CARRY:-.carry/conv-deploy2} S=/tmp/kt-src/scripts/networks
ROOT=/tmp/kt-sysroot BUILD=/tmp/kt-build W=/tmp/nets
mkdir -p "$ROOT" /tmp/kt-src "$OUT" $W/weights $W/inputs $W/ref $W/logits
tar xzf $C/sysroot.tar.gz -C "$ROOT" && tar xzf $C/src.tar.gz -C /tmp/kt-src || exit 1
SECONDS=0
( python3 $S/make_weights.py --network vgg16 --seed 0 --out $W/weights/vgg16.safetensors
  python3 $S/make_weights.py --inputs 1 --batch 2 --out-dir $W/inputs
  python3 $S/torch_run.py logits --network vgg16 --weights $W/weights/vgg16.safetensors \
    --inputs $W/inputs/input-1.safetensors --out-dir $W/ref ) > $OUT/torch-prep.log 2>&1 &
PREP=$!
export PATH="$ROOT/usr/bin:$PATH"
export LD_LIBRARY_PATH="$ROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_LIBDIR="$ROOT/usr/lib/x86_64-linux-gnu/pkgconfig:$ROOT/usr/share/pkgconfig"
cmake -S /tmp/kt-src -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_NATIVE=OFF \
  -DKTUNE_EXAMPLES=ON -DKTUNE_BENCH=OFF -DCMAKE_PREFIX_PATH="$ROOT/usr" \
  -DCMAKE_PROJECT_INCLUDE=$PWD/$C/fake_openblas.cmake \
  -DKTUNE_CONV_CUDA_SELECTOR=/tmp/kt-src/libraries/conv2d/selectors/h100-80gb-hbm3-resnet50-k8.hpp \
  -DKTUNE_CUDNN_LIBRARY="$ROOT/usr/local/cuda-13.0/lib/libcudnn.so.9" \
  "-DCMAKE_CXX_FLAGS=-isystem $ROOT/usr/include -isystem $ROOT/usr/local/cuda/include" > $OUT/cmake.log 2>&1 ||
  { tail -30 $OUT/cmake.log; exit 1; }
timeout 190 ninja -C $BUILD -j "$(nproc)" ktune_nn_cuda_bench > $OUT/ninja.log 2>&1
echo "build exit $? after ${SECONDS}s"; grep -E "error:|FAILED" $OUT/ninja.log | head -20
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
done
wait $PREP; echo "torch prep exit $? at ${SECONDS}s"; tail -3 $OUT/torch-prep.log
timeout 50 $BUILD/bin/ktune_nn_cuda_bench --network vgg16 --backend ktune-cuda --batch 1 16 \
  --weights-dir $W/weights --csv $OUT/networks-heldout.csv --layers-csv $OUT/layers-heldout.csv \
  --logits-dir $W/logits --inputs $W/inputs/input-1.safetensors
echo "ktune bench exit $? at ${SECONDS}s"
timeout 40 python3 $S/torch_run.py bench --network vgg16 --weights $W/weights/vgg16.safetensors \
  --batch 1 16 --variants pytorch pytorch-cudagraph --csv $OUT/networks-heldout.csv
echo "torch bench exit $? at ${SECONDS}s"
f=$W/logits/vgg16-ktune-input-1.safetensors
[ -f $f ] && timeout 20 python3 $S/check_logits.py --network vgg16 --input 1 \
  --reference $W/ref/vgg16-input-1.safetensors --candidate ktune-heldout=$f --csv $OUT/agreement-heldout.csv
cat $OUT/networks-heldout.csv
# Time permitting: the tuned conv2d GPU tests (every shipped config of this library, plans).
left=$((280 - SECONDS))
if [ $left -gt 50 ]; then
  timeout $((left - 15)) ninja -C $BUILD -j "$(nproc)" ktune_gpu_tests > $OUT/ninja-tests.log 2>&1
  echo "tests build exit $? at ${SECONDS}s"
  run_gpu_tests 12 $OUT/gpu-tests.log $BUILD/bin/ktune_gpu_tests --gtest_filter='TunedConv2d*'
fi
echo "all done at ${SECONDS}s"
