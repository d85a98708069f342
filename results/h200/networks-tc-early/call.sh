#!/usr/bin/env bash
# Session 26 call 2: the networks in tf32 and bf16 with the wgmma conv's residual fetched before
# the main loop (merged 63128ae): ktune-cuda, auto-cuda and cudnn against PyTorch's variants.
set -u
R=/tmp/c2; mkdir -p $R; SECONDS=0
DEST=$OUT
( OUT=$R/net CARRY=.carry/s26 PHASES='build tests bench check' PRECISIONS='tf32 bf16' TESTS_S=60 \
    BENCH_S=90 TORCH_S=55 BACKENDS='ktune-cuda auto-cuda cudnn' timeout 575 bash scripts/networks/wgmma_gpu_run.sh \
    > $R/net-run.out 2>&1
  echo "[$SECONDS s] networks exit $?" >> $R/phases.log ) &
JOB=$!
while kill -0 $JOB 2>/dev/null; do sleep 45; tar czf $DEST/call2.tar.gz -C $R . 2>/dev/null; done
tar czf $DEST/call2.tar.gz -C $R .; cat $R/phases.log; tail -3 $R/net-run.out
