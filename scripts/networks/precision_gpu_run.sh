#!/usr/bin/env bash
# The device call of issue #25's networks in every precision: VGG16 and ResNet-50 at batch 1
# and 16 in fp32, tf32 and bf16 on ktune's CUDA backends (ktune, cudnn, cublas; ktune in every
# precision whose gemm_ex selector the build ships; auto-cuda, the engine's whole-network choice among them, rows `auto*`) and on PyTorch in the same precision (channels_last, CUDA graph, both; eager NCHW
# left out: slower than NCHW + CUDA graph in every row of results/h100-80gb-hbm3/networks.csv),
# one after the other on one GPU, plus the GPU tests and the logits check per precision, from
# binaries built on the CPU machine (KTUNE_NATIVE=OFF, CUDA on, examples on: a device build
# takes ~3 of the call's minutes).
#   CARRY=.carry/tcnet bash /tmp/kt-src/scripts/networks/precision_gpu_run.sh
# $CARRY holds bin.tar.gz (bin/ktune_nn_cuda_bench, bin/ktune_nn_cuda_tests, lib/*.so*: packed
# by scripts/networks/pack_device_bin.sh); sources in /tmp/kt-src (the caller unpacks
# src.tar.gz there). Results land in $OUT: networks.csv, layers.csv, agreement.csv, run.log,
# logs.tar.gz; scripts/networks/networks_precision_md.py makes the tables.
# Knobs: PRECISIONS, BACKENDS, VARIANTS (PyTorch's), NETWORKS narrow the run; QUICK=1 times on
# seeded random weights (the bench's own, torchvision's init) and skips the logits check;
# TESTS=0 skips the network tests, GPU_TESTS='Conv2dCudnn.*' also runs that filter of
# bin/ktune_gpu_tests (when packed); TESTS_S limits each test binary (default 45 s); a carried
# $CARRY/wgmma_conv_check runs its `test` beside them.
set -uo pipefail
C=${CARRY:-.carry/tcnet} S=/tmp/kt-src/scripts/networks W=/tmp/prec
L=$W/logs
mkdir -p $L $W/weights $W/inputs $W/ref $W/logits "$OUT"
trap 'tar czf $OUT/logs.tar.gz -C $W logs' EXIT
. $(dirname "$0")/device_bin_env.sh
P=${PRECISIONS:-"bf16 tf32 fp32"}  # the new ones first: a cut run loses fp32 (committed before)
BACKENDS=${BACKENDS:-"ktune-cuda cudnn cublas auto-cuda"}
VARIANTS=${VARIANTS:-"pytorch-channels-last pytorch-cudagraph pytorch-channels-last-cudagraph"}
NETWORKS=${NETWORKS:-"vgg16 resnet50"}
QUICK=${QUICK:-0}
# Weights, inputs and PyTorch's reference logits in every precision while the tests run.
(
  [ $QUICK = 1 ] && exit 0
  bash $S/torch_reference.sh $W "$P"
) > $L/torch-prep.log 2>&1 &
PREP=$!
B=$W/bin
# The conv2d family's standalone wgmma conv check (prebuilt: nvcc -O3 -std=c++17
# -gencode=arch=compute_90a,code=sm_90a kernels/conv2d/cuda/wgmma_conv_check.cu) when carried,
# beside the tests (correctness only: no timing runs meanwhile).
if [ -x $C/wgmma_conv_check ]; then
  timeout 90 $C/wgmma_conv_check test > $L/wgmma-check-test.log 2>&1 &
  CHECK=$!
fi
if [ -n "${GPU_TESTS:-}" ] && [ -x $B/ktune_gpu_tests ]; then
  timeout ${TESTS_S:-45} $B/ktune_gpu_tests --gtest_filter="$GPU_TESTS" > $L/gpu-tests.log 2>&1
  echo "gpu tests ($GPU_TESTS) exit $? at ${SECONDS}s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|Failure|error|bound" $L/gpu-tests.log | head -30
fi
if [ "${TESTS:-1}" != 0 ]; then
  timeout ${TESTS_S:-45} $B/ktune_nn_cuda_tests > $L/nn-cuda-tests.log 2>&1
  echo "nn cuda tests exit $? at ${SECONDS}s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|Failure|error|bound" $L/nn-cuda-tests.log |
    head -30
fi
if [ -n "${CHECK:-}" ]; then
  wait $CHECK
  echo "wgmma check test exit $? at ${SECONDS}s: $(grep -c ^PASS $L/wgmma-check-test.log) PASS, $(grep -c ^FAIL $L/wgmma-check-test.log) FAIL"
fi
wait $PREP; echo "torch prep exit $? at ${SECONDS}s"; grep "vs float64" $L/torch-prep.log
# One process per network, each with its own time limit, so that a cut run still leaves both
# networks' rows (each row is written when timed).
for net in $NETWORKS; do
  data=(--weights-dir $W/weights --logits-dir $W/logits --inputs $W/inputs/input-{1,2}.safetensors)
  [ $QUICK = 1 ] && data=()
  timeout ${BENCH_S:-55} $B/ktune_nn_cuda_bench --network $net --batch 1 16 --precision $P \
    --backend $BACKENDS --warmup 5 --reps 20 --csv $OUT/networks.csv \
    --layers-csv $OUT/layers.csv "${data[@]}" > $L/bench-$net.log 2>&1
  echo "ktune bench $net exit $? at ${SECONDS}s"; grep -vE "^note|safetensors$" $L/bench-$net.log
done
for net in $NETWORKS; do
  weights=(--weights $W/weights/$net.safetensors)
  [ $QUICK = 1 ] && weights=()
  timeout ${TORCH_S:-45} python3 $S/torch_run.py bench --network $net "${weights[@]}" \
    --batch 1 16 --precision $P --warmup 5 --reps 20 --csv $OUT/networks.csv \
    --variants $VARIANTS 2>&1 | grep -v -i warn
  echo "torch bench $net done at ${SECONDS}s"
done
[ $QUICK = 1 ] && exit 0
# Whole-network tolerance per precision (no derived bound through 16 or 50 layers): PyTorch's
# own row must meet it too.
declare -A TOL=([fp32]=1e-3 [tf32]=2e-2 [bf16]=1e-1)
for p in $P; do
  sfx=$([ $p = fp32 ] || echo "-$p")
  for net in vgg16 resnet50; do
    for seed in 1 2; do
      args=()
      for b in ktune cudnn cublas auto; do
        f=$W/logits/$net-$b$sfx-input-$seed.safetensors
        [ -f $f ] && args+=(--candidate $b$sfx=$f)
      done
      python3 $S/check_logits.py --network $net --input $seed --precision $p --tolerance ${TOL[$p]} \
        --reference $W/ref/$net-input-$seed.safetensors "${args[@]}" --csv $OUT/agreement.csv |
        grep -v " pass$"
    done
  done
done
echo "check done at ${SECONDS}s ($(grep -c ',1,[a-z0-9]*$' $OUT/agreement.csv) rows pass, $(grep -c ',0,[a-z0-9]*$' $OUT/agreement.csv) fail)"
