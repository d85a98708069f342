#!/usr/bin/env bash
# Issue #13 on the lent GPU machine: builds ktune from this checkout (scripts/gpu_build_remote.sh,
# sysroot from scripts/make_device_sysroot.sh in $CARRY), runs the warp-kernel GPU tests, sweeps
# the `large` workload with the CUDA kinds beyond the seed one (warp first, then tiled and split-K:
# one run, cuBLAS rows measured in it), optionally the warp kind on `dnn` (DNN_SECONDS > 0), and
# profiles one warp config per transpose pair on 4096^3 with ncu (PROFILE=1). Each step is
# time-boxed so the call ends inside the device tool's 10 minutes; stores come back gzipped.
# LARGE=0 skips `large`; DNN_RESUME=FILE.csv.gz imports an earlier partial dnn sweep first (the
# store then measures only what is missing); TESTS is the gtest filter ('*': the whole GPU suite,
# run last when SUITE_LAST=1). KINDS sweeps other kinds than warp on both workloads (then
# LARGE_TILED_SECONDS=0 skips the tiled and split-K kinds on `large`).
#   CARRY=.carry/gpu DNN_SECONDS=0 PROFILE=1 bash scripts/gpu_warp_resweep.sh
#   CARRY=.carry/gpu LARGE=0 DNN_RESUME=.carry/gpu/dnn-warp.csv.gz DNN_SECONDS=300 TESTS='*' \
#     SUITE_LAST=1 bash scripts/gpu_warp_resweep.sh
#   CARRY=.carry/gpu KINDS=kind:warpsplit LARGE_TILED_SECONDS=0 DNN_SECONDS=330 TESTS='*' \
#     SUITE_LAST=1 bash scripts/gpu_warp_resweep.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/gpu_device_build.sh
. scripts/gpu_device_build.sh
. scripts/device_common.sh
export KTUNE_CACHE_DIR=/tmp/ktune-cache
K=$B/bin/ktune
left() { echo $((${LIMIT:-570} - SECONDS)); }

gpu_tests() {
  run_gpu_tests "$1" "$W/gpu-tests.log" "$B/bin/ktune_gpu_tests" --gtest_filter="${TESTS:-Warp*}"
}
[ "${SUITE_LAST:-0}" = 1 ] || gpu_tests 200

S=(--warmups 0 --min-reps 3 --max-reps 10 --rep-budget-ms 1 --timeout-ms 1000)
sweep() {  # sweep NAME WORKLOAD CONFIGS SECONDS
  local t=$4
  (($(left) - 20 < t)) && t=$(($(left) - 20))
  ((t > 10)) || { echo "$1: no time left"; return; }
  timeout "$t" $K bench --family gemm --device cuda:0 --workload "$2" --configs "$3" \
    --store $W/$1.sqlite "${S[@]}" > $W/bench-$1.log 2>&1
  echo "$1: exit $? at ${SECONDS}s: $(tail -1 $W/bench-$1.log)"
}
if [ "${LARGE:-1}" = 1 ]; then
  sweep large large "${KINDS:-kind:warp}" "${LARGE_WARP_SECONDS:-150}"
  $K report --store $W/large.sqlite --workload large --csv $W/warp-large-vs-vendor.csv > $W/report-warp.txt 2>&1
  tail -4 $W/report-warp.txt
  [ "${LARGE_TILED_SECONDS:-150}" -gt 0 ] &&
    sweep large large kind:tiled,kind:splitk "${LARGE_TILED_SECONDS:-150}"
fi
if [ -n "${DNN_RESUME:-}" ]; then
  $K import --store $W/dnn.sqlite --csv "$DNN_RESUME" > $W/import-dnn.log 2>&1
  echo "resumed dnn: exit $?: $(tail -1 $W/import-dnn.log)"
fi
[ "${DNN_SECONDS:-0}" -gt 0 ] && sweep dnn dnn "${KINDS:-kind:warp}" "$DNN_SECONDS"

if [ "${PROFILE:-0}" = 1 ] && command -v ncu > /dev/null && (($(left) > 90)); then
  for tt in 00 10 01; do
    printf 'transa,transb,m,n,k,batch\n%s,%s,4096,4096,4096,1\n' "${tt:0:1}" "${tt:1:1}" > $W/one-$tt.csv
    timeout 40 ncu --target-processes all -k regex:ktune_gemm_warp -c 1 --section SpeedOfLight \
      --section WarpStateStats --section InstructionStats --section Occupancy --section LaunchStats \
      --section MemoryWorkloadAnalysis \
      $K bench --family gemm --device cuda:0 --workload $W/one-$tt.csv --no-vendors \
      --configs "kind=warp;bm=128;bn=128;bk=16;wm=64;wn=32;tm=8;tn=8;st=4;gr=8;splits=1" \
      --store $W/ncu-$tt.sqlite "${S[@]}" > $W/ncu-$tt.txt 2>&1
    echo "ncu $tt exit $? at ${SECONDS}s"
  done
  grep -hE "Duration|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc A|Achieved Occupancy|Registers Per|Stall|No Eligible" $W/ncu-*.txt | head -40
fi
# SASS of one NN instantiation for the instruction mix (cuobjdump is on the device only).
f=$(grep -rl 'ktune_gemm_warpILi128ELi128ELi16ELi64ELi32ELi8ELi8ELi4ELi8ELi0ELi0E' $KTUNE_CACHE_DIR 2> /dev/null | head -1)
[ -n "$f" ] && command -v cuobjdump > /dev/null && cuobjdump -sass "$f" > $W/warp-nn.sass 2>&1
[ "${SUITE_LAST:-0}" = 1 ] && gpu_tests $(($(left) - 15))
for s in large dnn; do [ -f $W/$s.sqlite ] && $K export --store $W/$s.sqlite --format csv -o $OUT/$s.csv.gz; done
tar czf $OUT/logs.tar.gz -C $W --exclude='*.sqlite' .
echo "done at ${SECONDS}s"; ls -la $OUT
