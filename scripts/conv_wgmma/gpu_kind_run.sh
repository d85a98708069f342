#!/usr/bin/env bash
# The cuda_igemm_wgmma conv2d kind on the lent H100, one device call (<= 600 s with the machine's
# start): every phase has its own time cap under one deadline (DEADLINE_S after the script
# starts) and packs its files into $OUT/conv-wgmma-kind.tar.gz before the next starts.
#   build  scripts/gpu_build_remote.sh: ktune, ktune_gpu_tests
#   tests  ktune_gpu_tests --gtest_filter='Conv2dIgemmWgmma.*:Conv2dIgemmMma.*' -> gpu-tests.log
#   bf16   ktune bench --workload dnn@bf16 (VGG16 + ResNet-50 conv layers, batch 1 and 16): every
#          cuda_igemm_wgmma config and the family's cudnn vendor row (cuDNN at its best in bf16:
#          legacy Find + backend engines, NHWC and NCHW, fastest kept; its engine and layout in
#          the row's message), all verified against float64 -> sweep-bf16.csv.gz
# Then, here: scripts/conv_wgmma/kind_table.py sweep-bf16.csv.gz --csv per-layer.csv
# --markdown summary.md.
#   SYSROOT=.carry/sys/sysroot.tar.gz SRC=.carry/wgkind/src.tar.gz OUT=... \
#     bash scripts/conv_wgmma/gpu_kind_run.sh
set -uo pipefail
SYSROOT=$(realpath "${SYSROOT:-.carry/sys/sysroot.tar.gz}")
[ -n "${SRC:-}" ] && SRC=$(realpath "$SRC")
OUT=$(realpath -m "${OUT:-/tmp/ktune-out}")
FILES=/tmp/conv-wgmma-kind-files
export SYSROOT SRC
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-/tmp/kt-build}
PHASES=${PHASES:-build tests bf16}
DEADLINE_S=${DEADLINE_S:-380}
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-cache}
mkdir -p "$OUT" "$FILES"
. scripts/device_common.sh
SECONDS=0

pack() { tar czf "$OUT/conv-wgmma-kind.tar.gz" -C "$FILES" .; }
note() {
  echo "[$SECONDS s] $*" | tee -a "$FILES/phases.log"
  pack
}

gpu_info "$FILES/nvidia-smi.txt"
if has build; then
  timeout "$(cap 260)" scripts/gpu_build_remote.sh "$BUILD" ktune ktune_gpu_tests \
    > "$FILES/build.log" 2>&1
  note "build exit $?"
  tail -3 "$FILES/build.log"
fi
[ -x "$BUILD/bin/ktune" ] || { note "no ktune binary: stop"; exit 1; }
# shellcheck disable=SC1090  # written by gpu_build_remote.sh
. "$BUILD.env"
B=$BUILD/bin
if has tests && [ -x "$B/ktune_gpu_tests" ]; then
  t=$(cap 100)
  run_gpu_tests "$t" "$FILES/gpu-tests.log" "$B/ktune_gpu_tests" \
    --gtest_filter='Conv2dIgemmWgmma.*:Conv2dIgemmMma.*'
  note "tests exit $? (cap $t s)"
fi
if has bf16; then
  t=$(cap 200)
  if ((t > 0)); then
    timeout "$t" "$B/ktune" bench --family conv2d --device cuda:0 --workload dnn@bf16 \
      --configs kind:cuda_igemm_wgmma --store /tmp/sweep-bf16.sqlite --warmups 1 \
      --min-reps 3 --max-reps 10 --rep-budget-ms 2 --timeout-ms 1000 \
      > "$FILES/sweep-bf16.log" 2>&1
    note "bf16 sweep exit $? (cap $t s)"
    tail -2 "$FILES/sweep-bf16.log"
    "$B/ktune" export --store /tmp/sweep-bf16.sqlite --format csv -o "$FILES/sweep-bf16.csv.gz"
  else
    note "bf16: no time left"
  fi
fi
note "done"
