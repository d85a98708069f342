#!/usr/bin/env bash
# Session 26 call 4: tune and remember in the CUDA GEMM library (merged cudarem): its GPU tests
# and the kept-workspace tests (filtered), then scripts/gpu_remember_vit.sh (held-out ViT plain /
# remembered, first-call costs) on the same build.
set -u
R=/tmp/c4; mkdir -p $R/rv; SECONDS=0
DEST=$OUT
pack() { tar czf $DEST/call4.tar.gz -C $R . 2>/dev/null; }
export SYSROOT=$PWD/.carry/sys/sysroot.tar.gz W=/tmp/rv
(
  EXAMPLES=ON timeout 300 scripts/gpu_build_remote.sh /tmp/rv/build tuned_gemm_bench remember_overhead_cuda \
    ktune_gpu_vendor_tc_tests ktune_gpu_vendor_tests > $R/build.log 2>&1
  echo "[$SECONDS s] build exit $?" >> $R/phases.log
  . /tmp/rv/build.env
  timeout 100 /tmp/rv/build/bin/ktune_gpu_vendor_tc_tests \
    --gtest_filter='TunedGemmRememberCuda.*:StreamQueries.*:TunedGemmVendorTcLt.CallWorkspace*' > $R/gpu-tests.log 2>&1
  echo "[$SECONDS s] gpu tests exit $? ($(grep -c '^\[       OK' $R/gpu-tests.log) ok, $(grep -c '^\[  FAILED  \] [A-Z]' $R/gpu-tests.log) failed)" >> $R/phases.log
  timeout 60 /tmp/rv/build/bin/ktune_gpu_vendor_tests > $R/gpu-vendor-tests.log 2>&1
  echo "[$SECONDS s] vendor tests exit $? ($(grep -c '^\[       OK' $R/gpu-vendor-tests.log) ok, $(grep -c '^\[  FAILED  \] [A-Z]' $R/gpu-vendor-tests.log) failed)" >> $R/phases.log
  TESTS=0 timeout $((560 - SECONDS)) bash scripts/gpu_remember_vit.sh $R/rv > $R/rv-run.out 2>&1
  echo "[$SECONDS s] remember vit exit $?" >> $R/phases.log
) &
JOB=$!
while kill -0 $JOB 2>/dev/null; do sleep 30; pack; done
pack; cat $R/phases.log; tail -5 $R/rv-run.out
