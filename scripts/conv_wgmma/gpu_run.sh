#!/usr/bin/env bash
# Device run of the wgmma conv kernel (kernels/conv2d/cuda/conv2d_wgmma.cuh): the prebuilt
# standalone check (nvcc -gencode=arch=compute_90a,code=sm_90a, built on the host by
# scripts/conv_wgmma/build.sh), its tests, its bench over the 66 VGG16 + ResNet-50 layers in bf16,
# then cuDNN through torch (every algorithm torch's benchmark mode tries, NCHW and NHWC) on the same
# layers in the same run. Usage: CARRY=.carry/wgconv OUT=... bash gpu_run.sh
set -uo pipefail
CARRY=$(realpath "${CARRY:-.carry/wgconv}")
OUT=$(realpath -m "${OUT:-/tmp/ktune-out}")
F=/tmp/conv-wgmma-files
mkdir -p "$OUT" "$F"
pack() { tar czf "$OUT/conv-wgmma.tar.gz" -C "$F" .; }
SECONDS=0
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv \
  > "$F/nvidia-smi.txt"
cat "$F/nvidia-smi.txt"
B=$CARRY/wgmma_conv_check
(command -v cuobjdump && cuobjdump -sass "$B" > /tmp/sass.txt &&
  echo "HGMMA $(grep -c HGMMA /tmp/sass.txt) LDL/STL $(grep -cE 'LDL|STL' /tmp/sass.txt)" \
  > "$F/sass-summary.txt") > /dev/null 2>&1
timeout 80 "$B" test > "$F/test.log" 2>&1
echo "test exit $? [$SECONDS s]" | tee -a "$F/phases.log"
tail -1 "$F/test.log"; grep -c ^PASS "$F/test.log"; grep ^FAIL "$F/test.log" | head -5
pack
timeout 130 "$B" bench "$CARRY/layers.csv" > "$F/bench.csv" 2> "$F/bench.err"
echo "bench exit $? [$SECONDS s]" | tee -a "$F/phases.log"
tail -3 "$F/bench.err"
pack
timeout 120 python3 kernels/conv2d/cudnn_precisions.py --precisions bf16 --budget-ms 40 \
  --csv "$F/cudnn-torch.csv" --md "$F/cudnn-torch.md" > "$F/cudnn-torch.log" 2>&1
echo "torch exit $? [$SECONDS s]" | tee -a "$F/phases.log"
tail -2 "$F/cudnn-torch.log"
pack
