#!/usr/bin/env bash
# The device call of issue #25 item 3: ktune-cuda-bf16 with the wgmma conv candidate
# (nn/cuda/wgmma_conv.hpp) on VGG16 and ResNet-50 in bf16 at batch 1 and 16, against PyTorch's
# bf16 variants (channels_last, CUDA graph, both) in the same call. Builds the network bench and
# its tests on the device (scripts/gpu_build_remote.sh, EXAMPLES=ON: the tuned libraries),
# while the weights, inputs and PyTorch's reference logits are made; runs the standalone check of
# the kernel (prebuilt on the host: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a
# kernels/conv2d/cuda/wgmma_conv_check.cu), the network GPU tests, the benches (ktune-cuda,
# auto-cuda and cudnn in bf16, seeded weights of make_weights.py) and the logits check (bf16
# tolerance 1e-1 and top-5, as precision_gpu_run.sh). Results land in $OUT as they come.
#   mkdir -p /tmp/kt-src && tar xzf .carry/wgnet/src.tar.gz -C /tmp/kt-src &&
#   CARRY=.carry/wgnet bash /tmp/kt-src/scripts/networks/wgmma_gpu_run.sh
set -uo pipefail
C=$(realpath "${CARRY:-.carry/wgnet}") S=/tmp/kt-src/scripts/networks W=/tmp/prec
L=$OUT/logs
mkdir -p "$L" $W/weights $W/inputs $W/ref $W/logits
SECONDS=0
exec > >(tee "$OUT/run.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c 'import torch, torchvision; print("torch", torch.__version__, "torchvision", torchvision.__version__, "cudnn", torch.backends.cudnn.version())'
(
  cd /tmp/kt-src && SYSROOT=$OLDPWD/.carry/sys/sysroot.tar.gz SRC=$C/src.tar.gz EXAMPLES=ON \
    bash scripts/gpu_build_remote.sh /tmp/b ktune_nn_cuda_bench ktune_nn_cuda_tests
) > $L/build.log 2>&1 &
BUILD=$!
bash $S/torch_reference.sh $W bf16 > $L/torch-prep.log 2>&1 &
PREP=$!
timeout 90 $C/wgmma_conv_check test > $L/wgmma-check-test.log 2>&1
echo "wgmma check test exit $? at ${SECONDS}s: $(grep -c ^PASS $L/wgmma-check-test.log) PASS, $(grep -c ^FAIL $L/wgmma-check-test.log) FAIL"
tail -1 $L/wgmma-check-test.log
wait $BUILD; rc=$?
echo "build exit $rc at ${SECONDS}s"; tail -3 $L/build.log
[ $rc = 0 ] || exit 1
# shellcheck disable=SC1091
. /tmp/b.env
B=/tmp/b/bin
timeout ${TESTS_S:-60} $B/ktune_nn_cuda_tests > $L/nn-cuda-tests.log 2>&1
echo "nn cuda tests exit $? at ${SECONDS}s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|Failure|bound" $L/nn-cuda-tests.log | head -20
wait $PREP; echo "torch prep exit $? at ${SECONDS}s"
for net in vgg16 resnet50; do
  timeout ${BENCH_S:-80} $B/ktune_nn_cuda_bench --network $net --batch 1 16 --precision bf16 \
    --backend ${BACKENDS:-ktune-cuda auto-cuda cudnn} --warmup 5 --reps 20 \
    --csv $OUT/networks.csv --layers-csv $OUT/layers.csv --weights-dir $W/weights \
    --logits-dir $W/logits --inputs $W/inputs/input-{1,2}.safetensors > $L/bench-$net.log 2>&1
  echo "ktune bench $net exit $? at ${SECONDS}s"; grep -vE "^note|safetensors$" $L/bench-$net.log
done
for net in vgg16 resnet50; do
  timeout ${TORCH_S:-50} python3 $S/torch_run.py bench --network $net \
    --weights $W/weights/$net.safetensors --batch 1 16 --precision bf16 --warmup 5 --reps 20 \
    --csv $OUT/networks.csv \
    --variants pytorch-channels-last pytorch-cudagraph pytorch-channels-last-cudagraph 2>&1 |
    grep -v -i warn
  echo "torch bench $net done at ${SECONDS}s"
done
for net in vgg16 resnet50; do
  for seed in 1 2; do
    args=()
    for b in ktune cudnn auto; do
      f=$W/logits/$net-$b-bf16-input-$seed.safetensors
      [ -f "$f" ] && args+=(--candidate "$b-bf16=$f")
    done
    python3 $S/check_logits.py --network $net --input $seed --precision bf16 --tolerance 1e-1 \
      --reference $W/ref/$net-input-$seed.safetensors "${args[@]}" --csv $OUT/agreement.csv
  done
done
echo "check done at ${SECONDS}s"
