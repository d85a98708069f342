#!/usr/bin/env bash
# The tf32 tensor-core kinds on the lent H100 in one call, within DEADLINE_S seconds (default
# 570), writing under $OUT (scripts/gpu_wgmma.sh's files):
#   scripts/gpu_wgmma.sh's build and tests phases (TESTS_FILTER: the wgmmatf32 tests), with the
#   SASS of aot_check_wgmma.cu (tf32 instantiations included) taken in the background meanwhile;
#   then one sweep per workload of WORKLOADS (default large@tf32 dnn@tf32 llm@tf32) with CONFIGS
#   (default kind:mma,kind:mmasplit,kind:wgmmatf32) + cuBLAS and cuBLASLt in tf32, each capped
#   at CAP_<name> seconds (large 110) and the time left; every sweep exports the store, so a cut
#   run still brings back the workloads it finished.
# Run from a checkout: SYSROOT=.carry/sys/sysroot.tar.gz OUT=... scripts/gpu_tc_tf32.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
start=$(date +%s)
limit=${DEADLINE_S:-570}
export BUILD=${BUILD:-/tmp/kt-build} OUT=${OUT:-/tmp/ktune-out}
export CONFIGS=${CONFIGS:-kind:mma,kind:mmasplit,kind:wgmmatf32}
export TESTS_FILTER=${TESTS_FILTER:-WgmmaTf32*:WgmmaGemmHost*:WgmmaGemmTest.Tf32*:WgmmaGemmTest.Refuses*}
W=/tmp/wgmma-work
mkdir -p "$W"
PHASES=build scripts/gpu_wgmma.sh || exit 1
(
  nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a -cubin -I. -Xptxas -v \
    -o /tmp/wgmma.cubin kernels/gemm/cuda/aot_check_wgmma.cu > "$W/ptxas.txt" 2>&1
  cuobjdump -sass /tmp/wgmma.cubin > "$W/sass.txt"
  # The instruction mix of the tf32 instantiations (PREC 1: ...ELi1ELi1ELi0E).
  awk '/Function : /{on = /ELi1ELi1ELi0EEv/} on' "$W/sass.txt" |
    grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9_.]+' | awk '{print $2}' | sed 's/\..*//' |
    sort | uniq -c | sort -rn > "$W/sass-mix-tf32.txt"
  gzip -f "$W/sass.txt"
) &
sass=$!
PHASES=tests TESTS_SECONDS=${TESTS_SECONDS:-120} scripts/gpu_wgmma.sh
wait $sass
grep -E "HGMMA|UTMALDG|SYNCS|LDL|STL|USETMAXREG|HMMA" "$W/sass-mix-tf32.txt"
for w in ${WORKLOADS:-large@tf32 dnn@tf32 llm@tf32}; do
  left=$((limit - ($(date +%s) - start) - 15))
  cap_name="CAP_${w%@*}"
  cap=${!cap_name:-$([ "${w%@*}" = large ] && echo 110 || echo 100000)}
  [ "$left" -gt 30 ] || { echo "no time left for $w"; break; }
  PHASES=sweep WORKLOADS=$w SWEEP_SECONDS=$((cap < left ? cap : left)) scripts/gpu_wgmma.sh
done
echo "total $(($(date +%s) - start)) s"
