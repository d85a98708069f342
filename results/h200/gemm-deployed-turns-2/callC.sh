#!/usr/bin/env bash
# Session 34, call C: the deployed ktune::gemm_ex with the H200's shipped headers (fp32
# h200-fp32-vendors-lt8-k16, tf32 h200-tf32-vendors-lt8-boxall-k16, bf16 h200-bf16-vendors-lt8-k16)
# built from this tree (the 32-bit-address mma and C16-template wgmma kernels), protocol of
# results/h200/gemm-deployed-turns-mma (--lt-top 0 --rep-budget-ms 10 --rounds 3): tf32 on llm,
# vit, large, dnn, then bf16 on dnn, large, vit, llm while time lasts.
set -uo pipefail
L=/tmp/logsC; mkdir -p $L
export SYSROOT=.carry/sys/sysroot.tar.gz KTUNE_CACHE_DIR=/tmp/kc
t0=$(date +%s); limit=588
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $L/nvidia-smi.txt
S=$PWD/libraries/gemm/selectors
EXAMPLES=ON CMAKE_ARGS="-DKTUNE_CUDA_SELECTOR=$S/h200-fp32-vendors-lt8-k16.hpp -DKTUNE_CUDA_TF32_SELECTOR=$S/h200-tf32-vendors-lt8-boxall-k16.hpp -DKTUNE_CUDA_BF16_SELECTOR=$S/h200-bf16-vendors-lt8-k16.hpp" \
  scripts/gpu_build_remote.sh /tmp/b ktune_gpu_tests tuned_gemm_bench > $L/build.log 2>&1 ||
  { tail -30 $L/build.log; tar czf $OUT/callC-logs.tar.gz -C $L .; exit 1; }
echo "build at $(( $(date +%s) - t0 )) s"
. /tmp/b.env
timeout 120 /tmp/b/bin/ktune_gpu_tests --gtest_filter='TunedGemmEx*' > $L/gpu-tests.log 2>&1
echo "tests rc $? at $(( $(date +%s) - t0 )) s"; tail -2 $L/gpu-tests.log
for wp in llm@tf32 vit@tf32 large@tf32 dnn@tf32 dnn@bf16 large@bf16 vit@bf16 llm@bf16; do
  w=${wp%@*} p=${wp#*@}
  arg=workloads/gemm/$w.csv@$p; [ $w = dnn ] && arg=dnn@$p
  left=$(( limit - ($(date +%s) - t0) - 3 ))
  (( left > 10 )) || { echo "skipped $wp (time)"; continue; }
  s=$(date +%s)
  timeout $left /tmp/b/bin/tuned_gemm_bench --device cuda --workload "$arg" --out $L/turns-$w-$p.csv \
    --lt-top 0 --rep-budget-ms 10 --rounds 3 >> $L/turns-$w-$p.log 2>&1
  echo "$wp exit $? ($(( $(date +%s) - s )) s), $(( $(wc -l < $L/turns-$w-$p.csv) - 1 )) shapes"
done
tar czf $OUT/callC-logs.tar.gz -C $L .
echo "all $(( $(date +%s) - t0 )) s"
