#!/usr/bin/env bash
# Session 34, call A: bf16 (FP32 C) sweep of every tensor-core GEMM kind the H200 runs (with the
# 32-bit-address mma and the C16-template wgmma kernels: wgmma, mmasplit, wgmmapp, wgmmamc, wgmmats, wgmmacs) against cuBLAS
# and each of cuBLASLt's first 8 answers, one store, one run: large, dnn (the training workloads),
# then llm and vit (held out) while time lasts. Same timing as results/h200/tc-bf16-lt8.
set -uo pipefail
L=/tmp/logsA; mkdir -p $L
export SYSROOT=.carry/sys/sysroot.tar.gz
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $L/nvidia-smi.txt
scripts/gpu_build_remote.sh /tmp/b ktune > $L/build.log 2>&1 ||
  { tail -30 $L/build.log; tar czf $OUT/callA-logs.tar.gz -C $L .; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
. /tmp/b.env
export KTUNE_CACHE_DIR=/tmp/kc
K=kind:mma,kind:wgmma,kind:mmasplit,kind:wgmmapp,kind:wgmmamc,kind:wgmmats,kind:wgmmacs
for w in large dnn llm vit; do
  left=$(( 560 - ($(date +%s) - t0) ))
  (( left > 20 )) || { echo "skipped $w (time)"; continue; }
  s=$(date +%s); arg=workloads/gemm/$w.csv@bf16; [ $w = dnn ] && arg=dnn@bf16
  timeout $left /tmp/b/bin/ktune bench --family gemm --device cuda:0 --workload $arg --configs $K \
    --store $L/sweep.sqlite --warmups 0 --min-reps 3 --max-reps 10 --rep-budget-ms 1 \
    --timeout-ms 1000 --budget-ms $(( (left - 10) * 1000 )) > $L/bench-$w.log 2>&1
  echo "$w exit $? ($(( $(date +%s) - s )) s)"; tail -3 $L/bench-$w.log
done
/tmp/b/bin/ktune export --store $L/sweep.sqlite --format csv -o $L/gemm-tc-bf16-all.csv.gz
rm -f $L/sweep.sqlite
tar czf $OUT/callA-logs.tar.gz -C $L .
echo "all $(( $(date +%s) - t0 )) s"
