#!/usr/bin/env bash
# Session 26 call 5: the CUDA tune-and-remember GPU tests again after the two-process test's fix.
set -u
R=/tmp/c5; mkdir -p $R; SECONDS=0
export SYSROOT=$PWD/.carry/sys/sysroot.tar.gz
EXAMPLES=ON timeout 250 scripts/gpu_build_remote.sh /tmp/rv/build ktune_gpu_vendor_tc_tests > $R/build.log 2>&1
echo "[$SECONDS s] build exit $?" >> $R/phases.log
. /tmp/rv/build.env
timeout 40 /tmp/rv/build/bin/ktune_gpu_vendor_tc_tests \
  --gtest_filter='TunedGemmRememberCuda.*:StreamQueries.*:TunedGemmVendorTcLt.CallWorkspace*' > $R/gpu-tests.log 2>&1
echo "[$SECONDS s] gpu tests exit $?" >> $R/phases.log
tar czf $OUT/call5.tar.gz -C $R .; cat $R/phases.log; grep -E "^\[  (PASSED|FAILED)" $R/gpu-tests.log
