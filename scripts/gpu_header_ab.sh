#!/usr/bin/env bash
# Two selector headers of the deployed GEMM library (ktune::gemm_ex) in one device call (the
# protocol of results/h200/tc-bf16-allkinds-deployed): two builds of this checkout side by side
# (scripts/gpu_build_remote.sh, EXAMPLES=ON), differing only in SELECTOR_OPTION, header A in
# one and header B in the other; the GPU tests of TESTS_FILTER on build A while B builds; then
# per workload, in WORKLOADS' order, tuned_gemm_bench of build A on every shape and of build B
# on DIFF_DIR/differing-W.csv alone, the shapes where B's pick differs from A's (elsewhere the
# two call the same config: A's row serves both). Make DIFF_DIR on the host beforehand, and
# after the run B's full per-workload CSVs (the rows checked against both headers' picks):
#   scripts/selector_header_ab.py picks --a NAME_A=HEADER_A --b NAME_B=HEADER_B --precision P \
#     --out DIFF_DIR vit=workloads/gemm/vit.csv dnn=<an earlier run's dnn CSV> ...
#   scripts/selector_header_ab.py merge --picks DIFF_DIR/picks.csv --a NAME_A --b NAME_B \
#     --run OUT_DIR
# Usage (from the repository root, on the device):
#   SYSROOT=.carry/sys/sysroot.tar.gz OUT_DIR=$OUT/ab SELECTOR_OPTION=KTUNE_CUDA_BF16_SELECTOR \
#   HEADER_A=libraries/gemm/selectors/a.hpp HEADER_B=libraries/gemm/selectors/b.hpp \
#   DIFF_DIR=.carry/picks WORKLOADS="vit=workloads/gemm/vit.csv@bf16 dnn=dnn@bf16" \
#   [NAME_A=a NAME_B=b] [CMAKE_ARGS='-DKTUNE_CUDA_SELECTOR=... (the other selectors)'] \
#   [DEADLINE_S=570] [BENCH_ARGS='--lt-top 0 --rep-budget-ms 10 --rounds 3'] \
#   [TESTS_FILTER='TunedGemmEx*' TESTS_SECONDS=150] scripts/gpu_header_ab.sh
# WORKLOADS: NAME=WORKLOAD pairs, WORKLOAD as tuned_gemm_bench takes it (a built-in name or a
# file, @precision); side B gets DIFF_DIR/differing-NAME.csv with the same @suffix, and is not
# run where that file lists no shape. A bench starts only when more than MIN_BENCH_S (default 10)
# seconds are left before DEADLINE_S less 5 s (said on stdout when skipped) and runs under a
# timeout of what is left. OUT_DIR gets NAME_A-W.csv, NAME_B-differing-W.csv, their logs (.log
# beside each), the build logs, gpu-tests.log and nvidia-smi.txt. A failed build A stops the
# run (exit 1); a failed build B leaves A's benches run and the exit status 1. BUILD_A / BUILD_B
# (default /tmp/hab-a, /tmp/hab-b): the build trees. Bad input (a missing header, differing
# file or sysroot, an unknown option) exits 2 with one line naming it, before anything runs.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bad() { echo "gpu_header_ab.sh: $*" >&2; exit 2; }
[ -n "${SYSROOT:-}" ] || bad "SYSROOT: a sysroot tarball (scripts/make_device_sysroot.sh)"
[ -f "$SYSROOT" ] || bad "no such sysroot: $SYSROOT"
[ -n "${OUT_DIR:-}" ] || bad "OUT_DIR: where the CSVs and logs go"
option=${SELECTOR_OPTION:-}
case $option in
  KTUNE_CUDA_SELECTOR | KTUNE_CUDA_TF32_SELECTOR | KTUNE_CUDA_BF16_SELECTOR | \
    KTUNE_CUDA_FP16_SELECTOR | KTUNE_CUDA_BF16_C16_SELECTOR) ;;
  *) bad "SELECTOR_OPTION '$option' is none of KTUNE_CUDA_SELECTOR," \
    "KTUNE_CUDA_{TF32,BF16,FP16,BF16_C16}_SELECTOR" ;;
esac
[[ " ${CMAKE_ARGS:-} " != *" -D$option="* ]] || bad "CMAKE_ARGS sets $option itself"
for v in HEADER_A HEADER_B; do
  [ -n "${!v:-}" ] || bad "$v: a selector header"
  [ -f "${!v}" ] || bad "$v: no such header: ${!v}"
done
header_a=$(realpath "${HEADER_A:?}") header_b=$(realpath "${HEADER_B:?}")
[ -n "${DIFF_DIR:-}" ] || bad "DIFF_DIR: the differing-W.csv of scripts/selector_header_ab.py picks"
[ -n "${WORKLOADS:-}" ] || bad "WORKLOADS: NAME=WORKLOAD pairs"
for pair in $WORKLOADS; do
  [[ $pair == ?*=?* ]] || bad "WORKLOADS: '$pair' is not NAME=WORKLOAD"
  diff=$DIFF_DIR/differing-${pair%%=*}.csv
  [ -f "$diff" ] || bad "no such file: $diff"
done
name_a=${NAME_A:-a} name_b=${NAME_B:-b}
[ "$name_a" != "$name_b" ] || bad "NAME_A and NAME_B are both '$name_a'"
build_a=${BUILD_A:-/tmp/hab-a} build_b=${BUILD_B:-/tmp/hab-b}
deadline=${DEADLINE_S:-570} min_bench=${MIN_BENCH_S:-10}
bench_args=${BENCH_ARGS:---lt-top 0 --rep-budget-ms 10 --rounds 3}
# shellcheck source=scripts/device_common.sh
. scripts/device_common.sh
t0=$(date +%s)
mkdir -p "$OUT_DIR"
export SYSROOT EXAMPLES=ON KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/hab-kc}  # one tree: one cache
gpu_info "$OUT_DIR/nvidia-smi.txt"
targets=(tuned_gemm_bench)
[ -z "${TESTS_FILTER:-}" ] || targets+=(ktune_gpu_tests)
rm -f "$build_a/ninja.log"  # a warm machine's earlier build must not count as started
CMAKE_ARGS="${CMAKE_ARGS:-} -D$option=$header_a" scripts/gpu_build_remote.sh "$build_a" \
  "${targets[@]}" > "$OUT_DIR/build-$name_a.log" 2>&1 &
pid_a=$!
# B starts once A runs ninja: the sysroot is unpacked by then (gpu_build_remote.sh does it once).
while [ ! -e "$build_a/ninja.log" ] && kill -0 "$pid_a" 2> /dev/null; do sleep 1; done
CMAKE_ARGS="${CMAKE_ARGS:-} -D$option=$header_b" scripts/gpu_build_remote.sh "$build_b" \
  tuned_gemm_bench > "$OUT_DIR/build-$name_b.log" 2>&1 &
pid_b=$!
wait "$pid_a"
rc_a=$?
echo "build $name_a exit $rc_a ($(($(date +%s) - t0)) s)"
[ "$rc_a" = 0 ] || tail -30 "$OUT_DIR/build-$name_a.log"
# shellcheck disable=SC1090  # written by gpu_build_remote.sh
[ -f "$build_a.env" ] && . "$build_a.env"
if [ "$rc_a" = 0 ] && [ -n "${TESTS_FILTER:-}" ]; then
  run_gpu_tests "${TESTS_SECONDS:-150}" "$OUT_DIR/gpu-tests.log" "$build_a/bin/ktune_gpu_tests" \
    --gtest_filter="$TESTS_FILTER"
fi
wait "$pid_b"
rc_b=$?
echo "build $name_b exit $rc_b ($(($(date +%s) - t0)) s)"
[ "$rc_b" = 0 ] || tail -30 "$OUT_DIR/build-$name_b.log"
[ "$rc_a" = 0 ] || exit 1  # B's rows alone compare nothing

# bench SIDE BUILD WORKLOAD NAME: tuned_gemm_bench of BUILD over WORKLOAD into OUT_DIR/NAME.csv.
bench() {
  local left=$((deadline - ($(date +%s) - t0) - 5)) start
  ((left > min_bench)) || { echo "skipped $1 $4 (time)"; return; }
  start=$(date +%s)
  # shellcheck disable=SC2086  # bench_args: several options
  timeout "$left" "$2/bin/tuned_gemm_bench" --device cuda --workload "$3" \
    --out "$OUT_DIR/$4.csv" $bench_args >> "$OUT_DIR/$4.log" 2>&1
  local rc=$? rows=0
  [ -f "$OUT_DIR/$4.csv" ] && rows=$(($(wc -l < "$OUT_DIR/$4.csv") - 1))
  echo "$4 exit $rc ($(($(date +%s) - start)) s), $rows shapes"
}
for pair in $WORKLOADS; do
  w=${pair%%=*} workload=${pair#*=}
  suffix=
  [[ $workload == *@* ]] && suffix=@${workload##*@}
  diff=$DIFF_DIR/differing-$w.csv
  bench "$name_a" "$build_a" "$workload" "$name_a-$w"
  if [ "$(grep -cv '^[[:space:]]*\(#\|$\)' "$diff")" -le 1 ]; then
    echo "$name_b $w: no differing shape, not run"
  elif [ "$rc_b" = 0 ]; then
    bench "$name_b" "$build_b" "$diff$suffix" "$name_b-differing-$w"
  fi
done
echo "all $(($(date +%s) - t0)) s"
[ "$rc_b" = 0 ]
