#!/usr/bin/env bash
# ktune::gemm_ex in tf32 (the shipped tf32 selector) on the lent H100 in one call, within
# DEADLINE_S seconds (default 560): scripts/gpu_tc_deployed.sh's build and tests phases
# (TESTS_FILTER default TunedGemmEx*: every shipped config of every shipped precision vs float64),
# then its bench phase once per workload of WORKLOADS (default llm@tf32 large@tf32 dnn@tf32: the
# held-out one first), each within the time left and each writing $OUT/tc-deployed.tar.gz, so a
# cut run still brings back what finished. To shorten the build, the FP32 selector is the small
# k4 one and bf16 / fp16 ship the planted 3-config test selector (tests/deploy_vendor): neither
# is measured here. LT_TOP (default 0: no top-8 search) and BENCH_ARGS (default --rep-budget-ms
# 10) pass through.
# Run from a checkout: SYSROOT=.carry/sys/sysroot.tar.gz OUT=... scripts/gpu_tc_tf32_deployed.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
start=$(date +%s)
limit=${DEADLINE_S:-560}
S=$PWD/libraries/gemm/selectors
# One copy per precision, the contents made to differ: two named selectors cannot share a header
# (#pragma once, which GCC also applies to identical copies of one age).
for q in bf16 fp16; do
  { cat tests/deploy_vendor/vendor-wins-tc-k3.hpp; echo "// $q copy"; } > "/tmp/vendor-wins-tc-k3-$q.hpp"
done
export BUILD=${BUILD:-/tmp/kt-build-tc-tf32} OUT=${OUT:-/tmp/ktune-out}
export CMAKE_ARGS=${CMAKE_ARGS:-"-DKTUNE_CUDA_SELECTOR=$S/h100-80gb-hbm3-k4.hpp -DKTUNE_CUDA_BF16_SELECTOR=/tmp/vendor-wins-tc-k3-bf16.hpp -DKTUNE_CUDA_FP16_SELECTOR=/tmp/vendor-wins-tc-k3-fp16.hpp"}
export TESTS_FILTER=${TESTS_FILTER:-TunedGemmEx*} LT_TOP=${LT_TOP:-0}
export BENCH_ARGS=${BENCH_ARGS:---rep-budget-ms 10}
PHASES='build tests' TESTS_SECONDS=${TESTS_SECONDS:-150} scripts/gpu_tc_deployed.sh || exit 1
for w in ${WORKLOADS:-llm@tf32 large@tf32 dnn@tf32}; do
  left=$((limit - ($(date +%s) - start) - 10))
  [ "$left" -gt 20 ] || { echo "no time left for $w"; break; }
  PHASES=bench WORKLOADS=$w BENCH_SECONDS=$left scripts/gpu_tc_deployed.sh
done
echo "total $(($(date +%s) - start)) s"
