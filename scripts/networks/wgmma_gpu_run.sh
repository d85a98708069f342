#!/usr/bin/env bash
# The device call of issue #25 item 3: ktune's tensor-core engines with the wgmma conv candidate
# (nn/cuda/wgmma_conv.hpp: ktune-cuda-bf16, and since the tf32 wgmma conv ktune-cuda-tf32) on
# VGG16 and ResNet-50 at batch 1 and 16, in each of PRECISIONS (default bf16), against PyTorch's
# variants of the same precision (channels_last, CUDA graph, both) in the same call. Phases
# (PHASES, default all; a later call on the same warm machine may run the rest):
#   build  the network bench and its tests (scripts/gpu_build_remote.sh, EXAMPLES=ON: the tuned
#          libraries; from $CARRY/src.tar.gz when there, else this checkout) while the weights,
#          inputs and PyTorch's reference logits of every precision are made; the standalone
#          check of the kernel where $CARRY/wgmma_conv_check is (prebuilt on the host: nvcc -O3
#          -std=c++17 -gencode=arch=compute_90a,code=sm_90a kernels/conv2d/cuda/wgmma_conv_check.cu)
#   tests  the network GPU tests (ktune_nn_cuda_tests)
#   bench  per precision: the benches (BACKENDS, default ktune-cuda auto-cuda cudnn, in that
#          precision; seeded weights of make_weights.py) and PyTorch's variants (TORCH=0: not)
#   check  the logits check (tf32 tolerance 2e-2, bf16 1e-1, and top-5, as precision_gpu_run.sh)
# Results land in $OUT as they come.
#   CARRY=.carry/wgnet PRECISIONS="tf32 bf16" bash scripts/networks/wgmma_gpu_run.sh
set -uo pipefail
C=$(realpath "${CARRY:-.carry/wgnet}") W=/tmp/prec
S=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$S/../.." && pwd)
L=$OUT/logs
PHASES=${PHASES:-build tests bench check}
PRECISIONS=${PRECISIONS:-bf16}
has() { [[ " $PHASES " == *" $1 "* ]]; }
tolerance() { case $1 in tf32) echo 2e-2 ;; *) echo 1e-1 ;; esac; }
mkdir -p "$L" $W/weights $W/inputs $W/ref $W/logits
SECONDS=0
exec > >(tee -a "$OUT/run.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c 'import torch, torchvision; print("torch", torch.__version__, "torchvision", torchvision.__version__, "cudnn", torch.backends.cudnn.version())'
if has build; then
  src=()
  [ -f "$C/src.tar.gz" ] && src=(SRC="$C/src.tar.gz")
  (
    cd "$ROOT" && env SYSROOT="$ROOT/.carry/sys/sysroot.tar.gz" "${src[@]}" EXAMPLES=ON \
      bash scripts/gpu_build_remote.sh /tmp/b ktune_nn_cuda_bench ktune_nn_cuda_tests
  ) > $L/build.log 2>&1 &
  BUILD=$!
  # shellcheck disable=SC2086  # several precisions
  bash $S/torch_reference.sh $W "$PRECISIONS" > $L/torch-prep.log 2>&1 &
  PREP=$!
  if [ -x "$C/wgmma_conv_check" ]; then
    timeout 90 $C/wgmma_conv_check test > $L/wgmma-check-test.log 2>&1
    echo "wgmma check test exit $? at ${SECONDS}s: $(grep -c ^PASS $L/wgmma-check-test.log) PASS, $(grep -c ^FAIL $L/wgmma-check-test.log) FAIL"
    tail -1 $L/wgmma-check-test.log
  fi
  wait $BUILD; rc=$?
  echo "build exit $rc at ${SECONDS}s"; tail -3 $L/build.log
  [ $rc = 0 ] || exit 1
  wait $PREP; echo "torch prep exit $? at ${SECONDS}s"
fi
# shellcheck disable=SC1091
. /tmp/b.env
B=/tmp/b/bin
if has tests; then
  timeout ${TESTS_S:-60} $B/ktune_nn_cuda_tests > $L/nn-cuda-tests.log 2>&1
  echo "nn cuda tests exit $? at ${SECONDS}s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|Failure|bound" $L/nn-cuda-tests.log | head -20
fi
if has bench; then
  for p in $PRECISIONS; do
    for net in vgg16 resnet50; do
      # shellcheck disable=SC2086  # BACKENDS: several names
      timeout ${BENCH_S:-80} $B/ktune_nn_cuda_bench --network $net --batch 1 16 --precision $p \
        --backend ${BACKENDS:-ktune-cuda auto-cuda cudnn} --warmup 5 --reps 20 \
        --csv $OUT/networks.csv --layers-csv $OUT/layers.csv --weights-dir $W/weights \
        --logits-dir $W/logits --inputs $W/inputs/input-{1,2}.safetensors > $L/bench-$net-$p.log 2>&1
      echo "ktune bench $net $p exit $? at ${SECONDS}s"; grep -vE "^note|safetensors$" $L/bench-$net-$p.log
    done
    [ "${TORCH:-1}" = 1 ] || continue  # TORCH=0: ktune's backends only (PyTorch timed in another call)
    for net in vgg16 resnet50; do
      timeout ${TORCH_S:-50} python3 $S/torch_run.py bench --network $net \
        --weights $W/weights/$net.safetensors --batch 1 16 --precision $p --warmup 5 --reps 20 \
        --csv $OUT/networks.csv \
        --variants pytorch-channels-last pytorch-cudagraph pytorch-channels-last-cudagraph 2>&1 |
        grep -v -i warn
      echo "torch bench $net $p done at ${SECONDS}s"
    done
  done
fi
if has check; then
  for p in $PRECISIONS; do
    for net in vgg16 resnet50; do
      for seed in 1 2; do
        args=()
        for b in ktune cudnn auto; do
          f=$W/logits/$net-$b-$p-input-$seed.safetensors
          [ -f "$f" ] && args+=(--candidate "$b-$p=$f")
        done
        python3 $S/check_logits.py --network $net --input $seed --precision $p \
          --tolerance "$(tolerance $p)" --reference $W/ref/$net-input-$seed.safetensors \
          "${args[@]}" --csv $OUT/agreement.csv
      done
    done
  done
  echo "check done at ${SECONDS}s"
fi
