#!/usr/bin/env bash
# A / B of two source trees' Hopper GEMM kernels on 8192^3 in one call on the lent GPU machine
# (the same card, the same process order), e.g. main against the lean K loop (wgmma-lean):
#   1. SRC_A built into BUILD (scripts/gpu_build_remote.sh), the build copied to BUILD-a;
#   2. SRC_B's changed files copied over the sources and BUILD rebuilt (only what they touch);
#   3. the GPU tests of TESTS_FILTER on B (TESTS_SECONDS; 0 skips them);
#   4. rounds A B B A of `ktune bench` on 8192^3 NN / NT / TN in each of PRECISIONS with CONFIGS and
#      the vendors (each round its own store; every row verified against the float64 reference),
#      exported as gemm-wgmma-big-{a1,b1,b2,a2}.csv.gz: scripts/wgmma_big/repro_summary.py DIR a1 b1
#      b2 a2 tables them.
# Everything goes to W, packed into $OUT/lean-ab.tar.gz after each step (a timeout keeps what is
# done). Run from a checkout:
#   SYSROOT=.carry/sys/sysroot.tar.gz SRC_A=.carry/x/main.tar.gz SRC_B=.carry/x/lean.tar.gz \
#     OUT=... bash scripts/wgmma_big/gpu_lean_ab.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-/tmp/kt-build}
OUT=${OUT:-/tmp/ktune-out}
W=/tmp/lean-ab-out
CONFIGS=${CONFIGS:-2994,3134,3149,3155,3168}
mkdir -p "$OUT" "$W"
pack() { tar czf "$OUT/lean-ab.tar.gz" -C "$W" .; }
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-cache}
# shellcheck source=scripts/device_common.sh
. scripts/device_common.sh
gpu_info "$W/nvidia-smi.txt"

start=$(date +%s)
SRC=${SRC_A:?} scripts/gpu_build_remote.sh "$BUILD" ktune ktune_gpu_tests > "$W/build-a.log" 2>&1 ||
  { tail -20 "$W/build-a.log"; pack; exit 1; }
rm -rf "$BUILD-a" && cp -a "$BUILD" "$BUILD-a"
echo "build a: $(($(date +%s) - start)) s"
start=$(date +%s)
# B's files that differ from A's are copied over the sources (a copy's mtime is now: an archive's
# are its commit's, older than A's build, and ninja would take them as built).
rm -rf /tmp/lean-b && mkdir -p /tmp/lean-b && tar xzf "${SRC_B:?}" -C /tmp/lean-b || exit 1
(cd /tmp/lean-b && find . -type f) | while read -r f; do
  cmp -s "/tmp/lean-b/$f" "/tmp/kt-src/$f" ||
    { mkdir -p "$(dirname "/tmp/kt-src/$f")" && cp "/tmp/lean-b/$f" "/tmp/kt-src/$f" && echo "b: $f"; }
done > "$W/b-files.txt"
# shellcheck disable=SC1090
. "$BUILD.env"
ninja -C "$BUILD" -j "$(nproc)" ktune ktune_gpu_tests > "$W/build-b.log" 2>&1 ||
  { tail -20 "$W/build-b.log"; pack; exit 1; }
echo "build b: $(($(date +%s) - start)) s, $(wc -l < "$W/b-files.txt") files changed"
pack

if [ "${TESTS_SECONDS:-150}" -gt 0 ]; then
  run_gpu_tests "${TESTS_SECONDS:-150}" "$W/gpu-tests-b.log" "$BUILD/bin/ktune_gpu_tests" \
    --gtest_filter="${TESTS_FILTER:-Wgmma*:Conv2dIgemmWgmma.*}"
  pack
fi

printf 'TransposeLHS,TransposeRHS,M,N,K,lda,ldb,ldc,batch\n%s\n%s\n%s\n' \
  false,false,8192,8192,8192,8192,8192,8192,1 false,true,8192,8192,8192,8192,8192,8192,1 \
  true,false,8192,8192,8192,8192,8192,8192,1 > /tmp/big8192.csv
for run in a1 b1 b2 a2; do
  bin=$BUILD/bin
  [ "${run%?}" = a ] && bin=$BUILD-a/bin
  store=/tmp/lean-ab-$run.sqlite
  for p in ${PRECISIONS:-bf16 fp16}; do
    start=$(date +%s)
    timeout "${BIG_SECONDS:-60}" "$bin/ktune" bench --family gemm --device cuda:0 \
      --workload "/tmp/big8192.csv@$p" --configs "$CONFIGS" --store "$store" --warmups 2 \
      --min-reps 10 --max-reps 20 --rep-budget-ms 40 --timeout-ms 5000 > "$W/bench-$p-$run.log" 2>&1
    echo "bench $run $p exit $? ($(($(date +%s) - start)) s)"
  done
  "$bin/ktune" export --store "$store" --format csv -o "$W/gemm-wgmma-big-$run.csv.gz"
  pack
done
ls -la "$W"
