#!/bin/bash
# Issue #28's device run, on a machine with a GPU and ktune built (scripts/gpu_build_remote.sh,
# NATIVE=ON, targets ktune ktune_filefamily_tests) in BUILD:
#  1. the CUDA file-family tests on the GPU (ktune_filefamily_tests, CUDA suites);
#  2. the CUDA deploy of a file family: saxpy measured on the GPU, deployed, installed and called
#     on the GPU by a separate project (run_file_family_package.cmake, GPU_ONLY);
#  3. the stencil cross-check on this machine's CPU, quiet (nothing else runs meanwhile):
#     scripts/cross_check_stencil_file.sh, then scripts/compare_file_family.py;
#  4. the three CUDA examples (examples/own-kernels/*/*_cuda.json) benched on cuda:0.
# Writes OUT/gpu-check.log and OUT/stencil-cross-check.tar.gz (the stores, logs, tables).
# Usage: scripts/file_family_gpu_check.sh BUILD OUT
set -uo pipefail
B=$1
OUT=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
LOG=$OUT/gpu-check.log
mkdir -p "$OUT"
step() { echo "== $* ($(date -u +%H:%M:%S))" | tee -a "$LOG"; }
{
  nvidia-smi -L
  lscpu | grep -E "Model name|^CPU\(s\)"
  echo "file families compile with: $(c++ --version | head -1)"
  grep CMAKE_CXX_COMPILER: "$B/CMakeCache.txt"
} >> "$LOG" 2>&1
step "1. CUDA file-family tests"
export KTUNE_CACHE_DIR=/tmp/kt-cache
"$B/bin/ktune_filefamily_tests" --gtest_filter='*Cuda*' >> "$LOG" 2>&1
echo "rc=$?" >> "$LOG"
step "2. CUDA deploy of a file family, called on the GPU"
cmake -DKTUNE="$B/bin/ktune" -DSOURCE_DIR="$SRC" -DWORK_DIR=/tmp/deploy-ff -DGPU_ONLY=ON \
  -P "$SRC/tests/deploy_package/run_file_family_package.cmake" >> "$LOG" 2>&1
echo "rc=$?" >> "$LOG"
step "3. stencil: built-in vs file family on the CPU"
X=/tmp/stencil-cross-check
"$SRC/scripts/cross_check_stencil_file.sh" "$B/bin/ktune" $X 2 >> "$LOG" 2>&1
echo "rc=$?" >> "$LOG"
python3 "$SRC/scripts/compare_file_family.py" "$B/bin/ktune" $X \
  "$SRC/examples/own-kernels/stencil_file/stencil_file.json" >> "$LOG" 2>&1
echo "rc=$?" >> "$LOG"
tar -C $X -czf "$OUT/stencil-cross-check.tar.gz" --exclude=cache .
step "4. CUDA examples on cuda:0"
for f in "$SRC"/examples/own-kernels/*/*_cuda.json; do
  "$B/bin/ktune" bench --family-file "$f" --device cuda:0 \
    --store "/tmp/$(basename "$f" .json).sqlite" >> "$LOG" 2>&1
  echo "$(basename "$f"): rc=$?" >> "$LOG"
done
step "done"
