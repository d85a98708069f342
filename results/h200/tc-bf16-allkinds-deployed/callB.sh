#!/usr/bin/env bash
# Session 34, call B: the deployed ktune::gemm_ex bf16 with the all-kinds box-all header
# (h200-bf16-all-vendors-lt8-boxall-k16, trained on the re-sweep tc-bf16-all-2) against the
# shipped one (h200-bf16-vendors-lt8-k16), both built from this tree (the new kernels), same run.
# The new header on every shape of vit, llm, large and dnn; the shipped header on the shapes
# where its pick differs (diff-W.csv; elsewhere the two call the same config). Protocol of
# results/h200/gemm-deployed-turns-mma: --lt-top 0 --rep-budget-ms 10 --rounds 3.
set -uo pipefail
L=/tmp/logsB; mkdir -p $L
export SYSROOT=.carry/sys/sysroot.tar.gz KTUNE_CACHE_DIR=/tmp/kc
t0=$(date +%s); limit=585
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee $L/nvidia-smi.txt
S=$PWD/libraries/gemm/selectors
common="-DKTUNE_CUDA_SELECTOR=$S/h200-fp32-vendors-lt8-k16.hpp -DKTUNE_CUDA_TF32_SELECTOR=$S/h200-tf32-vendors-lt8-boxall-k16.hpp"
EXAMPLES=ON CMAKE_ARGS="$common -DKTUNE_CUDA_BF16_SELECTOR=$S/h200-bf16-all-vendors-lt8-boxall-k16.hpp" \
  scripts/gpu_build_remote.sh /tmp/bn ktune_gpu_tests tuned_gemm_bench > $L/build-new.log 2>&1 &
pn=$!
while [ ! -e /tmp/bn/ninja.log ] && kill -0 $pn 2>/dev/null; do sleep 1; done
EXAMPLES=ON CMAKE_ARGS="$common -DKTUNE_CUDA_BF16_SELECTOR=$S/h200-bf16-vendors-lt8-k16.hpp" \
  scripts/gpu_build_remote.sh /tmp/bo tuned_gemm_bench > $L/build-old.log 2>&1 &
po=$!
wait $pn; rn=$?
echo "build new: rc $rn at $(( $(date +%s) - t0 )) s"; tail -3 $L/build-new.log
. /tmp/bn.env
if [ $rn = 0 ]; then
  timeout 150 /tmp/bn/bin/ktune_gpu_tests --gtest_filter='TunedGemmEx*' > $L/gpu-tests.log 2>&1
  echo "tests rc $? at $(( $(date +%s) - t0 )) s"; tail -4 $L/gpu-tests.log
fi
wait $po; ro=$?
echo "build old: rc $ro at $(( $(date +%s) - t0 )) s"; tail -3 $L/build-old.log
bench() { # SIDE WORKLOAD NAME
  local left=$(( limit - ($(date +%s) - t0) - 5 ))
  (( left > 10 )) || { echo "skipped $1 $3 (time)"; return; }
  local s=$(date +%s)
  timeout $left /tmp/b$1/bin/tuned_gemm_bench --device cuda --workload "$2" --out $L/$1-$3.csv \
    --lt-top 0 --rep-budget-ms 10 --rounds 3 >> $L/$1-$3.log 2>&1
  echo "$1 $3 exit $? ($(( $(date +%s) - s )) s), $(( $(wc -l < $L/$1-$3.csv) - 1 )) shapes"
}
for w in vit llm large dnn; do
  arg=workloads/gemm/$w.csv@bf16; [ $w = dnn ] && arg=dnn@bf16
  [ $rn = 0 ] && bench n "$arg" $w
  [ $ro = 0 ] && bench o ".carry/s34/diff-$w.csv@bf16" $w
done
tar czf $OUT/callB-logs.tar.gz -C $L .
echo "all $(( $(date +%s) - t0 )) s"
