#!/usr/bin/env bash
# The shipped vendors headers of every precision (fp32 h100-80gb-hbm3-vendors-k16 as the FP32
# selector; tf32 / bf16 / fp16 are the defaults) on the lent H100 in one call within DEADLINE_S
# (default 530): scripts/gpu_tc_tf32_deployed.sh's build, the GPU tests of every shipped config
# (TunedGemmEx*, TunedGemmCuda*), then tuned_gemm_bench per workload of WORKLOADS, each in the
# time left, each adding to $OUT/tc-deployed.tar.gz (a cut run brings back what finished). The
# held-out llm shapes are slow to verify (~2 s each: float64 references of 8192-token GEMMs), so
# the default order puts the cheap held-out ViT and `large` first.
#   SYSROOT=.carry/sys/sysroot.tar.gz OUT=... scripts/gpu_tc_safe.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
S=$PWD/libraries/gemm/selectors
export BUILD=${BUILD:-/tmp/kt-build-safe}
export CMAKE_ARGS=${CMAKE_ARGS:-"-DKTUNE_CUDA_SELECTOR=$S/h100-80gb-hbm3-vendors-k16.hpp"}
export TESTS_FILTER=${TESTS_FILTER:-'TunedGemmEx*:TunedGemmCuda*'} TESTS_SECONDS=${TESTS_SECONDS:-90}
export DEADLINE_S=${DEADLINE_S:-530}
v=workloads/gemm/vit.csv
export WORKLOADS=${WORKLOADS:-"$v@tf32 $v@bf16 $v@fp16 $v large@tf32 large@bf16 large@fp16 dnn@tf32 dnn@bf16 dnn@fp16 llm@tf32 llm@bf16 llm@fp16"}
exec scripts/gpu_tc_tf32_deployed.sh
