#!/usr/bin/env bash
# The inputs of a device call's logits check: seeded VGG16 and ResNet-50 weights, two input
# batches of 2 images and PyTorch's reference logits (float64 and each precision) of both.
#   bash torch_reference.sh WORK_DIR "bf16 tf32 fp32"
# Writes WORK_DIR/weights/<net>.safetensors, WORK_DIR/inputs/input-{1,2}.safetensors and
# WORK_DIR/ref/ (torch_run.py logits).
set -euo pipefail
S=$(dirname "$0") W=${1:?usage: torch_reference.sh WORK_DIR PRECISIONS} P=${2:?precisions}
mkdir -p "$W/weights" "$W/inputs" "$W/ref"
for net in vgg16 resnet50; do
  python3 "$S/make_weights.py" --network $net --seed 0 --out "$W/weights/$net.safetensors"
done
python3 "$S/make_weights.py" --inputs 1 2 --batch 2 --out-dir "$W/inputs"
for net in vgg16 resnet50; do
  # shellcheck disable=SC2086  # P: several precisions
  python3 "$S/torch_run.py" logits --network $net --weights "$W/weights/$net.safetensors" \
    --inputs "$W"/inputs/input-{1,2}.safetensors --out-dir "$W/ref" --precision $P
done
