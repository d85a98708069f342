#!/usr/bin/env bash
# The device call of issue #29's GPU part: torchvision models through ONNX on the CUDA backends
# against PyTorch (examples/networks/onnx_torchvision_gpu.py), from binaries built on the CPU
# machine (a device build takes ~3 of the call's minutes): KTUNE_NATIVE=OFF (x86-64-v3), CUDA on,
# examples on, their libraries not on the device image beside them.
#   CARRY=.carry/onnxgpu [TESTS=0] bash /tmp/kt-src/scripts/networks/onnx_gpu_run.sh BUDGET_S \
#     [onnx_torchvision_gpu.py options, e.g. --models vgg19,googlenet]
# $CARRY holds bin.tar.gz (bin/ktune_nn_cuda_bench, bin/ktune_nn_cuda_tests,
# bin/ktune_nn_onnx_tests, lib/*.so*: packed by scripts/networks/pack_device_bin.sh); sources in
# /tmp/kt-src (the caller unpacks src.tar.gz there). BUDGET_S: seconds for the whole script.
# Results land in $OUT: run.log, agreement.csv, latency.csv, summary.md, logs.tar.gz.
set -uo pipefail
C=${CARRY:-.carry/onnxgpu} S=/tmp/kt-src BUDGET=${1:-150} W=/tmp/onnxgpu
shift
mkdir -p $W/logs "$OUT"
trap 'tar czf $OUT/logs.tar.gz -C $W logs' EXIT
. $(dirname "$0")/device_bin_env.sh
grep -m1 "model name" /proc/cpuinfo
B=$W/bin
if [ "${TESTS:-1}" = 1 ]; then
  timeout 60 $B/ktune_nn_cuda_tests > $W/logs/nn-cuda-tests.log 2>&1
  echo "nn cuda tests exit $? at ${SECONDS}s"
  timeout 60 $B/ktune_nn_onnx_tests --gtest_filter='Cuda/*' > $W/logs/nn-onnx-cuda-tests.log 2>&1
  echo "onnx cuda tests exit $? at ${SECONDS}s"
  grep -hE "^\[  (PASSED|FAILED|SKIPPED) |Failure|error" $W/logs/nn-*tests.log | head -20
fi
PYTHONUNBUFFERED=1 python3 $S/examples/networks/onnx_torchvision_gpu.py $B/ktune_nn_cuda_bench $OUT \
  --budget $((BUDGET - SECONDS - 10)) "$@" 2> >(grep -v -i warn >&2)
echo "onnx torchvision exit $? at ${SECONDS}s"
mv $OUT/bench.log $W/logs/ 2>/dev/null
