#!/usr/bin/env bash
# Issue #25's conv-layer tables per precision, one call on the lent GPU machine (<= 550 s with
# the machine's start): every phase has its own time cap and all of them share one deadline
# (DEADLINE_S after the script starts), so a late phase is cut, not the call; each phase writes
# its files under $OUT (compressed) before the next starts. Phases (PHASES, default all):
#   torch    during the build (niced build, GPU idle): cuDNN's engine search through PyTorch in
#            bf16 / fp16, both layouts (kernels/conv2d/cudnn_precisions.py): a second harness's
#            view of cuDNN at its best -> cudnn-torch.csv
#   build    scripts/gpu_build_remote.sh (examples on): ktune, tuned_conv_bench,
#            tuned_conv_bench_resnet50
#   bf16     ktune bench --workload dnn@bf16 (VGG16 + ResNet-50 conv layers, batch 1 and 16):
#            every cuda_igemm_mma config and the cudnn vendor row (cuDNN at its best in bf16:
#            legacy Find + backend engines, NHWC and NCHW, fastest kept, its algorithm and layout
#            in the row's message), all verified against float64 -> sweep-bf16.csv.gz
#   fp16     the same in fp16 -> sweep-fp16.csv.gz
#   tf32     the same in tf32 (FP32 data, TF32 tensor-core math) -> sweep-tf32.csv.gz
#            (CONFIGS: the sweep's --configs, default kind:cuda_igemm_mma; e.g.
#            kind:cuda_igemm_mma,kind:cuda_igemm_wgmma for a training set of both tensor-core kinds)
#   lt       the GPU tests of the tuned GEMM library's vendor calls (ktune_gpu_vendor_tc_tests:
#            cuBLAS / cuBLASLt candidates in tf32 / bf16 / fp16) -> gpu-vendor-tc-tests.log
#   heldout  the deployed FP32 library (ktune::conv2d) with the selector trained on ResNet-50
#            only, run on VGG16, vs the cudnn vendor in FP32 (FMA) per layer
#            (tuned_conv_bench_resnet50 --workload vgg16-conv) -> fp32-heldout.csv
#   fp32     the same with the shipped (in-sample) selector on every layer
#            (tuned_conv_bench --workload dnn) -> fp32-deployed.csv
# No 16-bit or tf32 conv library ships (ktune::conv2d is FP32): the 16-bit "deployed" figures are
# a selector header's picks among these measured configs (scripts/conv_precision/tables.py,
# here, after the call).
#   CARRY=.carry/convtab SYSROOT=.carry/sys/sysroot.tar.gz OUT=... \
#     bash scripts/gpu_conv_precision_tables.sh
# CARRY holds stateless.csv.gz (conv2d-dnn.csv.gz without its ft=pre rows: the FP32 benches'
# oracle column).
set -uo pipefail
# Paths given relative to the caller's directory, before moving to this script's checkout.
CARRY=$(realpath "${CARRY:-.carry/convtab}")
SYSROOT=$(realpath "${SYSROOT:-.carry/sys/sysroot.tar.gz}")
# The files go to FILES and are packed into one $OUT/conv-precision.tar.gz after every phase: the
# device tool brings back at most a few files, and a timeout keeps what is done.
OUT=$(realpath -m "${OUT:-/tmp/ktune-out}")
FILES=/tmp/conv-precision-files
export SYSROOT
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-/tmp/kt-build}
PHASES=${PHASES:-torch build bf16 fp16 tf32 heldout fp32}
DEADLINE_S=${DEADLINE_S:-440}
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-cache}
mkdir -p "$OUT" "$FILES"
. scripts/device_common.sh
SECONDS=0

pack() { tar czf "$OUT/conv-precision.tar.gz" -C "$FILES" .; }
note() {
  echo "[$SECONDS s] $*" | tee -a "$FILES/phases.log"
  pack
}

gpu_info "$FILES/nvidia-smi.txt"
torch_pid=
if has torch; then
  (timeout "$(cap 220)" python3 kernels/conv2d/cudnn_precisions.py --precisions bf16 fp16 \
    --budget-ms 40 --csv "$FILES/cudnn-torch.csv" --md "$FILES/cudnn-torch.md" \
    > "$FILES/cudnn-torch.log" 2>&1
  echo "exit $?" >> "$FILES/cudnn-torch.log") &
  torch_pid=$!
fi
if has build; then
  targets=(ktune tuned_conv_bench tuned_conv_bench_resnet50)
  has lt && targets+=(ktune_gpu_vendor_tc_tests)
  EXAMPLES=ON timeout "$(cap 300)" nice -n 19 scripts/gpu_build_remote.sh "$BUILD" \
    "${targets[@]}" > "$FILES/build.log" 2>&1
  note "build exit $?"
  tail -3 "$FILES/build.log"
fi
[ -n "$torch_pid" ] && { wait "$torch_pid"; note "torch: $(tail -1 "$FILES/cudnn-torch.log")"; }
[ -x "$BUILD/bin/ktune" ] || { note "no ktune binary: stop"; exit 1; }
# shellcheck disable=SC1090  # written by gpu_build_remote.sh
. "$BUILD.env"
B=$BUILD/bin

# One precision of the sweep: every tensor-core config and the cudnn vendor row, each verified.
sweep() {
  local precision=$1 t
  t=$(cap "$2")
  ((t > 0)) || { note "$precision: no time left"; return; }
  timeout "$t" "$B/ktune" bench --family conv2d --device cuda:0 --workload "dnn@$precision" \
    --configs "${CONFIGS:-kind:cuda_igemm_mma}" --store "/tmp/sweep-$precision.sqlite" --warmups 1 \
    --min-reps 3 --max-reps 10 --rep-budget-ms 2 --timeout-ms 1000 \
    > "$FILES/sweep-$precision.log" 2>&1
  note "$precision sweep exit $? (cap $t s)"
  tail -2 "$FILES/sweep-$precision.log"
  "$B/ktune" export --store "/tmp/sweep-$precision.sqlite" --format csv \
    -o "$FILES/sweep-$precision.csv.gz"
}
has bf16 && sweep bf16 "${SWEEP_S:-130}"
has fp16 && sweep fp16 "${SWEEP_S:-130}"
has tf32 && sweep tf32 "${SWEEP_S:-130}"
if has lt; then
  t=$(cap 150)
  timeout "$t" "$B/ktune_gpu_vendor_tc_tests" > "$FILES/gpu-vendor-tc-tests.log" 2>&1
  note "vendor-tc tests exit $? (cap $t s): $(grep -E '^\[  (PASSED|FAILED) ' \
    "$FILES/gpu-vendor-tc-tests.log" | tr '\n' ' ')"
fi

# The FP32 deployed library (held out, then in-sample) against the cudnn vendor, same run.
deployed() {
  local bin=$1 workload=$2 name=$3 t
  t=$(cap "$4")
  ((t > 0)) || { note "$name: no time left"; return; }
  timeout "$t" "$B/$bin" --device cuda --device-slug "$(gpu_slug)" --peak-gflops 66900 \
    --bandwidth-gbs 3350 --workload "$workload" --dataset "$CARRY/stateless.csv.gz" \
    --csv "$FILES/$name.csv" --md "$FILES/$name.md" > "$FILES/$name.log" 2>&1
  note "$name exit $? (cap $t s)"
  tail -2 "$FILES/$name.log"
}
# Held out first: 18 layers; the in-sample bench (66 layers) takes what is left (both write their
# files at the end, and the FP32 tables of the same vendor row are committed already).
has heldout && deployed tuned_conv_bench_resnet50 vgg16-conv fp32-heldout 60
has fp32 && deployed tuned_conv_bench dnn fp32-deployed 150
gzip -f "$BUILD/ninja.log" 2>/dev/null && cp "$BUILD/ninja.log.gz" "$FILES/"
note "done"
