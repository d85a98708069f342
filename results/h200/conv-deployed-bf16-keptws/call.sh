#!/usr/bin/env bash
# Session 26 call 3: the deployed bf16 conv library (bf16 output) with its workspaces kept per
# stream (merged 0bb58e4) against cuDNN at its best in bf16, in sample and held out; the conv
# library GPU tests (the early residual fetch, the kept scratch, a graph-captured cuDNN call),
# DeviceFacts and the wgmma conv kind's tests.
set -u
R=/tmp/c3; mkdir -p $R
DEST=$OUT
H=$PWD/libraries/conv2d/selectors
( OUT= OUT_DIR=$R SYSROOT=.carry/sys/sysroot.tar.gz DEADLINE_S=390 DEVICE_SLUG=h200 PEAK_GFLOPS=989400 \
    BANDWIDTH_GBS=4800 PRECISION=bf16 OUTPUT=bf16 DATASET=results/h200/conv-tc-sweep-persist/sweep-bf16.csv.gz \
    EXTRA_TESTS=1 EXTRA_FILTER='DeviceFacts.*:Conv2dIgemmWgmma.*' \
    CMAKE_ARGS="-DKTUNE_CONV_CUDA_BF16_SELECTOR=$H/h200-bf16-vendors-k16.hpp -DKTUNE_CONV_CUDA_BF16_HELDOUT_DEVICE=h200" \
    bash scripts/conv_deploy/gpu_bf16_deployed.sh > $R/call.out 2>&1 ) &
JOB=$!
while kill -0 $JOB 2>/dev/null; do sleep 45; tar czf $DEST/call3.tar.gz -C $R . 2>/dev/null; done
tar czf $DEST/call3.tar.gz -C $R .; cat $R/phases.log
