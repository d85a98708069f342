#!/usr/bin/env bash
# net-cuda's device call (issue #15): builds the CUDA network backends on the lent machine (the
# carried sysroot of Debian dev packages, as .carry/final/gpu_check.sh; KTUNE_NATIVE=OFF;
# examples ON for the tuned CUDA libraries, with an empty PkgConfig::OPENBLAS since the sysroot
# has no OpenBLAS and only the unbuilt CPU GEMM benchmark uses it), writes torchvision weights
# and inputs while it builds, runs the GPU tests, then in one run on the same GPU: ktune's
# backends (ktune, cudnn, cublas) and PyTorch (default, channels_last, CUDA graph), the logits check and,
# time permitting, torch.compile rows. Everything lands in $OUT (the device tool's output folder).
# Run from the repository root on the GPU machine with a carried folder $CARRY holding this script,
# fake_openblas.cmake, src.tar.gz (`git archive --format=tar.gz HEAD -- . ':!results'`) and
# sysroot.tar.gz (the Debian dev packages of scripts/gpu_build_remote.sh):
#   CARRY=.carry/net-cuda bash .carry/net-cuda/gpu_run.sh
# Results: networks.csv, layers.csv (-> networks-layers.csv), epilogue.csv, agreement.csv, run.log,
# logs.tar.gz; scripts/networks/networks_cuda_md.py makes the tables.
set -uo pipefail
C=${CARRY:-.carry/net-cuda} S=/tmp/kt-src/scripts/networks
ROOT=/tmp/kt-sysroot BUILD=/tmp/kt-build W=/tmp/nets
L=$W/logs  # logs travel back as one tarball ($OUT holds at most 8 files)
mkdir -p "$ROOT" /tmp/kt-src "$OUT" $W/weights $W/inputs $W/ref $W/logits $L
trap 'tar czf $OUT/logs.tar.gz -C $W logs' EXIT
tar xzf $C/sysroot.tar.gz -C "$ROOT" && tar xzf $C/src.tar.gz -C /tmp/kt-src || exit 1
exec > >(tee $OUT/run.log) 2>&1
SECONDS=0
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c 'import torch, torchvision; print("torch", torch.__version__, "torchvision", torchvision.__version__, "cudnn", torch.backends.cudnn.version())'
  nvcc --version | tail -2; nproc
} > $L/env.txt 2>&1
cat $L/env.txt
# Weights, inputs and PyTorch's reference logits while the build runs (correctness, not timing).
(
  for net in vgg16 resnet50; do
    python3 $S/make_weights.py --network $net --seed 0 --out $W/weights/$net.safetensors
  done
  python3 $S/make_weights.py --inputs 1 2 3 --batch 2 --out-dir $W/inputs
  for net in vgg16 resnet50; do
    python3 $S/torch_run.py logits --network $net --weights $W/weights/$net.safetensors \
      --inputs $W/inputs/input-{1,2,3}.safetensors --out-dir $W/ref
  done
) > $L/torch-prep.log 2>&1 &
PREP=$!
export PATH="$ROOT/usr/bin:$PATH"
export LD_LIBRARY_PATH="$ROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_LIBDIR="$ROOT/usr/lib/x86_64-linux-gnu/pkgconfig:$ROOT/usr/share/pkgconfig"
cmake -S /tmp/kt-src -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_NATIVE=OFF \
  -DKTUNE_EXAMPLES=ON -DKTUNE_BENCH=OFF -DCMAKE_PREFIX_PATH="$ROOT/usr" \
  -DCMAKE_PROJECT_INCLUDE=$PWD/$C/fake_openblas.cmake \
  -DKTUNE_CUDNN_LIBRARY="$ROOT/usr/local/cuda-13.0/lib/libcudnn.so.9" \
  "-DCMAKE_CXX_FLAGS=-isystem $ROOT/usr/include -isystem $ROOT/usr/local/cuda/include" > $L/cmake.log 2>&1 ||
  { tail -30 $L/cmake.log; exit 1; }
grep -E "nn/cuda|cuDNN" $L/cmake.log
timeout 330 ninja -C $BUILD -j "$(nproc)" ktune_nn_cuda_bench ktune_nn_cuda_tests > $L/ninja.log 2>&1
echo "build exit $? after ${SECONDS}s"; grep -E "error:|FAILED" $L/ninja.log | head -30
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
done
B=$BUILD/bin
timeout 120 $B/ktune_nn_cuda_tests > $L/nn-cuda-tests.log 2>&1
echo "nn cuda tests exit $? at ${SECONDS}s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|Failure|error" $L/nn-cuda-tests.log | head -20
wait $PREP; echo "torch prep exit $? at ${SECONDS}s"; tail -8 $L/torch-prep.log
# The benchmark: ktune's backends, then PyTorch, one after the other on this GPU.
timeout 240 $B/ktune_nn_cuda_bench --network vgg16 resnet50 --batch 1 16 --weights-dir $W/weights \
  --csv $OUT/networks.csv --layers-csv $OUT/layers.csv --epilogue-csv $OUT/epilogue.csv \
  --logits-dir $W/logits --inputs $W/inputs/input-{1,2,3}.safetensors
echo "ktune bench exit $? at ${SECONDS}s"
for net in vgg16 resnet50; do
  timeout 100 python3 $S/torch_run.py bench --network $net --weights $W/weights/$net.safetensors \
    --batch 1 16 --variants pytorch pytorch-channels-last pytorch-cudagraph --csv $OUT/networks.csv
done
echo "torch bench done at ${SECONDS}s"
for net in vgg16 resnet50; do
  for seed in 1 2 3; do
    args=()
    for b in ktune cudnn cublas; do
      f=$W/logits/$net-$b-input-$seed.safetensors
      [ -f $f ] && args+=(--candidate $b=$f)
    done
    python3 $S/check_logits.py --network $net --input $seed --reference $W/ref/$net-input-$seed.safetensors \
      "${args[@]}" --csv $OUT/agreement.csv | grep -v " pass$"
  done
done
echo "check done at ${SECONDS}s ($(grep -c ',1$' $OUT/agreement.csv) rows pass, $(grep -c ',0$' $OUT/agreement.csv) fail)"
# torch.compile rows while the call has time left (compiles take a while).
for net in vgg16 resnet50; do
  left=$((560 - SECONDS))
  [ $left -lt 60 ] && { echo "no time left for torch.compile ($net)"; continue; }
  timeout $left python3 $S/torch_run.py bench --network $net --weights $W/weights/$net.safetensors \
    --batch 1 16 --variants pytorch-compile --csv $OUT/networks.csv 2>&1 | grep -v Warning | tail -4
done
echo "all done at ${SECONDS}s"
