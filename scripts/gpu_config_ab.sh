#!/usr/bin/env bash
# A kernel change's A/B on the lent GPU in one device call (the protocol of
# results/h200/mma-register-ab, mma-shared32-ab and wgmma-c16-ab): builds ktune from this checkout
# (side "new") and from OLD_SRC, a source tarball of the tree before the change (side "old";
# `git archive --format=tar BASE -- . ':!results' | gzip`), with the carried sysroot; optionally
# runs ktune_gpu_tests of the new build (TESTS_FILTER) while the old tree builds; then times the
# same configs with each build over each set's workload, old / new in turns for ROUNDS rounds,
# each side with its own NVRTC cache and no vendor rows (the two builds run the vendors alike; an
# unchanged config among CONFIGS is the run's control), and exports every round as
# OUT_DIR/sweep-<set>-<side>-<round>.csv.gz. Rounds that would start later than DEADLINE_S
# seconds after the start are skipped (said on stdout). Compare with:
#   scripts/gemm_config_ab.py --a sweep-S-old-1.csv.gz sweep-S-old-2.csv.gz \
#     --b sweep-S-new-1.csv.gz sweep-S-new-2.csv.gz --csv ab-S.csv > ab-S.md
# Usage (from the repository root, on the device):
#   SYSROOT=.carry/sys/sysroot.tar.gz OLD_SRC=old-src.tar.gz OUT_DIR=/tmp/ab \
#   SETS="large=workloads/gemm/large.csv@bf16 dnn=shapes.csv@bf16" CONFIGS="kind=...,kind=..." \
#   [CONFIGS_<set>=...] [ROUNDS=2] [DEADLINE_S=570] [BENCH_ARGS="--rep-budget-ms 5 --max-reps 20"] \
#   [TESTS_FILTER='Wgmma*' EXAMPLES=ON CMAKE_ARGS=...] scripts/gpu_config_ab.sh
# CONFIGS_<set> (set name in the variable) replaces CONFIGS for that set, e.g. other kinds for a
# tf32 set. EXAMPLES / CMAKE_ARGS go to the new build (scripts/gpu_build_remote.sh), which
# ktune_gpu_tests' deployed-library tests need. BUILD_NEW / BUILD_OLD (default /tmp/ab-new,
# /tmp/ab-old): the build trees; AB_WORK (default /tmp): the stores and NVRTC caches.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device_common.sh
. scripts/device_common.sh
: "${SYSROOT:?a sysroot tarball (scripts/make_device_sysroot.sh)}" "${OLD_SRC:?the old tree}"
: "${OUT_DIR:?where the sweeps go}" "${SETS:?name=workload pairs}"
rounds=${ROUNDS:-2} deadline=${DEADLINE_S:-570}
new=${BUILD_NEW:-/tmp/ab-new} old=${BUILD_OLD:-/tmp/ab-old} work=${AB_WORK:-/tmp}
bench_args=${BENCH_ARGS:---rep-budget-ms 5 --max-reps 20}
t0=$(date +%s)
mkdir -p "$OUT_DIR"
export SYSROOT
gpu_info "$OUT_DIR/nvidia-smi.txt"
targets=(ktune)
[ -n "${TESTS_FILTER:-}" ] && targets+=(ktune_gpu_tests)
scripts/gpu_build_remote.sh "$new" "${targets[@]}" > "$OUT_DIR/build-new.log" 2>&1 ||
  { tail -30 "$OUT_DIR/build-new.log"; exit 1; }
echo "build new $(($(date +%s) - t0)) s"
(SRC=$OLD_SRC EXAMPLES='' CMAKE_ARGS='' scripts/gpu_build_remote.sh "$old" ktune \
  > "$OUT_DIR/build-old.log" 2>&1; echo "build old exit $? $(($(date +%s) - t0)) s") &
old_build=$!
# shellcheck disable=SC1090  # written by gpu_build_remote.sh
. "$new.env"
[ -z "${TESTS_FILTER:-}" ] || KTUNE_CACHE_DIR=$work/ab-kc-tests run_gpu_tests "${TESTS_SECONDS:-230}" \
  "$OUT_DIR/gpu-tests.log" "$new/bin/ktune_gpu_tests" --gtest_filter="$TESTS_FILTER"
wait $old_build
[ -x "$old/bin/ktune" ] || { tail -30 "$OUT_DIR/build-old.log"; exit 1; }
for pair in $SETS; do
  set_name=${pair%%=*} workload=${pair#*=}
  override=CONFIGS_$set_name
  configs=${!override:-${CONFIGS:?configs to time}}
  for round in $(seq "$rounds"); do
    for side in old new; do
      left=$((deadline - ($(date +%s) - t0)))
      ((left > 15)) || { echo "skipped $set_name $side $round (time)"; continue; }
      s=$(date +%s) store=$work/ab-$set_name-$side-$round.sqlite build=$new
      [ "$side" = old ] && build=$old
      # shellcheck disable=SC2086  # bench_args: several options
      KTUNE_CACHE_DIR=$work/ab-kc-$side timeout "$left" "$build/bin/ktune" bench --family gemm \
        --device cuda:0 --workload "$workload" --configs "$configs" --no-vendors $bench_args \
        --store "$store" > "$OUT_DIR/bench-$set_name-$side-$round.log" 2>&1
      echo "$set_name $side round $round exit $? ($(($(date +%s) - s)) s)"
      "$new/bin/ktune" export --store "$store" --format csv \
        -o "$OUT_DIR/sweep-$set_name-$side-$round.csv.gz" > /dev/null && rm -f "$store"
    done
  done
done
echo "all $(($(date +%s) - t0)) s"
