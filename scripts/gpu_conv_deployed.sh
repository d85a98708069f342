#!/usr/bin/env bash
# The deployed conv2d libraries against cuDNN at its best, on the lent GPU machine (one device
# call): while the build runs (niced: the GPU is idle but for this), PyTorch times cuDNN per
# precision (fp32, tf32, bf16, fp16) and layout on the VGG16 + ResNet-50 layers
# (kernels/conv2d/cudnn_precisions.py); then builds (scripts/gpu_build_remote.sh, examples on)
# the GPU tests and the deployed conv2d benchmarks from the carried source tarball, runs the
# cuDNN-baseline and tuned-library GPU tests, then tuned_conv_bench --device cuda on dnn
# (in-sample selector) and on vgg16-conv with the selector trained on the ResNet-50 layers only
# (held out); the vendor column is the FP32 `cudnn` baseline (fastest FMA algorithm of NHWC
# and NCHW). Logs and results to $OUT.
#   CARRY=.carry/tcconv scripts/gpu_conv_deployed.sh   # src.tar.gz, stateless.csv.gz
#   SYSROOT=.carry/tc/sysroot.tar.gz
set -uo pipefail
# shellcheck source=scripts/device_common.sh
. "$(dirname "$0")/device_common.sh"
C=${CARRY:-.carry/conv-deploy}
export SYSROOT=${SYSROOT:-$C/sysroot.tar.gz}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader | tee $OUT/nvidia-smi.txt
mkdir -p /tmp/kt-precisions && tar xzf $C/src.tar.gz -C /tmp/kt-precisions
(cd /tmp/kt-precisions && timeout 300 python3 kernels/conv2d/cudnn_precisions.py --budget-ms 40 \
  --csv $OUT/cudnn-precisions.csv --md $OUT/cudnn-precisions.md > $OUT/cudnn-precisions.log 2>&1;
  echo "precisions exit $?" >> $OUT/cudnn-precisions.log) &
torch_pid=$!
SECONDS=0
SRC=$C/src.tar.gz EXAMPLES=ON timeout 330 nice -n 19 scripts/gpu_build_remote.sh /tmp/b \
  ktune_gpu_tests tuned_conv_bench tuned_conv_bench_resnet50 > $OUT/build.log 2>&1
echo "build exit $? after ${SECONDS}s"; tail -3 $OUT/build.log
wait $torch_pid; tail -2 $OUT/cudnn-precisions.log
. /tmp/b.env
export KTUNE_CACHE_DIR=/tmp/ktune-cache
run_gpu_tests 90 $OUT/gpu-tests.log /tmp/b/bin/ktune_gpu_tests \
  --gtest_filter='Conv2dCudnn*:Conv2dCudaBackend.Cudnn*:TunedConv2d*'
B="--device cuda --device-slug h100-80gb-hbm3 --peak-gflops 66900 --bandwidth-gbs 3350"
timeout 130 /tmp/b/bin/tuned_conv_bench $B --workload dnn --dataset $C/stateless.csv.gz \
  --csv $OUT/conv-deployed-vs-cudnn.csv --md $OUT/conv-deployed-vs-cudnn.md > $OUT/bench.log 2>&1
echo "bench exit $?"; tail -4 $OUT/bench.log
timeout 60 /tmp/b/bin/tuned_conv_bench_resnet50 $B --workload vgg16-conv --dataset $C/stateless.csv.gz \
  --csv $OUT/conv-deployed-vs-cudnn-heldout.csv --md $OUT/conv-deployed-vs-cudnn-heldout.md > $OUT/bench-heldout.log 2>&1
echo "held-out bench exit $?"; tail -3 $OUT/bench-heldout.log
gzip -f /tmp/b/ninja.log; cp /tmp/b/ninja.log.gz $OUT/ 2>/dev/null
