#!/usr/bin/env bash
# The tensor-core conv2d kind (cuda_igemm_mma) on the lent GPU machine, in phases (PHASES,
# default "build tests sweep cudnn"), each writing under $OUT as it goes:
#   build  scripts/gpu_build_remote.sh of ktune and ktune_gpu_tests into BUILD
#   tests  the kind's GPU tests (every config x layer set x bf16 / fp16) -> gpu-tests.log
#   sweep  every cuda_igemm_mma config on the VGG16 + ResNet-50 layers at BATCHES (default 1) in
#          PRECISION (default bf16) -> conv2d-igemm-mma.csv.gz (ktune export)
#   cudnn  cuDNN's fastest legacy-API algorithm on the same layers in the same precision
#          (scripts/conv_igemm/cudnn16_bench.cpp) -> cudnn16.csv
# Then, here: scripts/conv_igemm/tables.py (per-layer CSV and summary).
# Run from a checkout:  SYSROOT=.carry/sys/sysroot.tar.gz [SRC=src.tar.gz] OUT=... \
#   scripts/gpu_conv_igemm.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-/tmp/kt-build}
OUT=${OUT:-/tmp/ktune-out}
W=/tmp/igemm-work
mkdir -p "$OUT" "$W"
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-cache}
PHASES=${PHASES:-build tests sweep cudnn}
PRECISION=${PRECISION:-bf16}
BATCHES=${BATCHES:-1}
. scripts/device_common.sh
src=$(pwd)
[ -n "${SRC:-}" ] && src=/tmp/kt-src  # where gpu_build_remote.sh unpacks SRC

if has build; then
  start=$(date +%s)
  scripts/gpu_build_remote.sh "$BUILD" ktune ktune_gpu_tests > "$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
  echo "build: $(($(date +%s) - start)) s"
fi
# shellcheck disable=SC1090
. "$BUILD.env"
B=$BUILD/bin
gpu_info "$OUT/nvidia-smi.txt"

# The layers: network, layer, n and the features, from the committed workload files.
python3 - "$src/workloads/conv2d" "$BATCHES" > "$W/layers.csv" <<'PY'
import csv, os, sys
root, batches = sys.argv[1], [int(b) for b in sys.argv[2].split(",")]
print("network,layer,n,h,w,c,k,r,s,stride,pad")
for batch in batches:
    for net, name in (("vgg16", "conv2d-vgg16.csv"), ("resnet50", "conv2d-resnet50.csv")):
        rows = csv.DictReader(l for l in open(os.path.join(root, name)) if not l.startswith("#"))
        for r in rows:
            print(",".join([net, r["layer"], str(batch)] +
                           [r[f] for f in ("h", "w", "c", "k", "r", "s", "stride", "pad")]))
PY
cp "$W/layers.csv" "$OUT/layers.csv"

if has tests; then
  run_gpu_tests "${TESTS_SECONDS:-200}" "$OUT/gpu-tests.log" "$B/ktune_gpu_tests" \
    --gtest_filter='Conv2dIgemmMma*'
fi

if has sweep; then
  start=$(date +%s)
  timeout "${SWEEP_SECONDS:-200}" "$B/ktune" bench --family conv2d --device cuda:0 \
    --workload "$W/layers.csv@$PRECISION" --configs kind:cuda_igemm_mma --no-vendors \
    --store /tmp/igemm.sqlite --warmups 0 --min-reps 3 --max-reps 10 --rep-budget-ms 1 \
    --timeout-ms 1000 > "$OUT/sweep.log" 2>&1
  echo "sweep exit $? ($(($(date +%s) - start)) s)"
  tail -2 "$OUT/sweep.log"
  "$B/ktune" export --store /tmp/igemm.sqlite --format csv -o "$OUT/conv2d-igemm-mma.csv.gz"
fi

if has cudnn; then
  start=$(date +%s)
  cuda=/tmp/kt-sysroot/usr/local/cuda-13.0  # the sysroot's cuDNN 9, as the build links it
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  "$nvcc" -O2 -std=c++17 -I"$cuda/include" scripts/conv_igemm/cudnn16_bench.cpp -o "$W/cudnn16" \
    -L"$cuda/lib" -l:libcudnn.so.9 -Xlinker -rpath="$cuda/lib" || exit 1
  LD_LIBRARY_PATH="$cuda/lib:$LD_LIBRARY_PATH" timeout "${CUDNN_SECONDS:-120}" "$W/cudnn16" "$W/layers.csv" "$PRECISION" "$OUT/cudnn16.csv" \
    > "$OUT/cudnn16.log" 2>&1
  echo "cudnn exit $? ($(($(date +%s) - start)) s)"
  tail -2 "$OUT/cudnn16.log"
fi
