#!/usr/bin/env bash
# Replay (CPU only, on the committed H200 tf32 and bf16 sweeps' medians) of ktune::gemm_ex's
# safety recipes, for issue #26: scripts/cpu_gemm_vendor_replay.py against the faster of cuBLAS
# and cuBLASLt's #0. First on the training workloads alone (the llm rows dropped), each network
# held out in turn (mobilenet, resnet, vgg, large: the figures a recipe is chosen by), then with
# llm held out (what the shipped headers were trained without). Writes OUT_DIR (default
# results/h200/tc-tf32-boxall-replay): <precision>-<split>.md / .csv / -picks.csv.gz. ~3 min.
#   scripts/gpu_tc_safety_replay.sh [OUT_DIR] [KTUNE]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/h200/tc-tf32-boxall-replay}
ktune=${2:-build/bin/ktune}
. scripts/tc_replay_common.sh
# recipe NAME VOTE FLOOR [more options]: the shipped recipe's options with these changed.
recipe() { echo "$1=$base --min-vote-share $2 --leaf-floor $3 ${*:4}"; }
# tf32: the shipped h200-tf32-vendors-lt8-k16 recipe (vote 0.6, floor 0.95), the existing
# knobs tightened, and the leaf box over every feature (--leaf-box-all).
tf32=("$(recipe shipped 0.6 0.95)" "$(recipe floor0.99 0.6 0.99)" "$(recipe vote0.8-floor0.99 0.8 0.99)"
  "$(recipe vote0.9-floor0.99 0.9 0.99)" "$(recipe boxall 0.6 0.95 --leaf-box-all)"
  "$(recipe boxall-floor0.99 0.6 0.99 --leaf-box-all)"
  "$(recipe boxall-floor0.99-residues 0.6 0.99 --leaf-box-all "$res")"
  "$(recipe boxall-vote0.8-floor0.99 0.8 0.99 --leaf-box-all)")
replay tf32 1 "$work/tf32-train.csv" each-network "$nets" "${tf32[@]}"
replay tf32 1 "$work/tf32.csv" llm-held-out "$nets,llm" --held-out llm \
  "$(recipe shipped 0.6 0.95)" "$(recipe vote0.8-floor0.99 0.8 0.99)" \
  "$(recipe boxall-floor0.99 0.6 0.99 --leaf-box-all)"
# bf16: the shipped h200-bf16-vendors-lt8-k16 recipe (floor 0.9, residues skipped) and the same
# changes.
bf16=("$(recipe shipped 0.6 0.9 "$res")" "$(recipe floor0.99 0.6 0.99 "$res")"
  "$(recipe vote0.8-floor0.99 0.8 0.99 "$res")" "$(recipe boxall 0.6 0.9 --leaf-box-all "$res")"
  "$(recipe boxall-floor0.99 0.6 0.99 --leaf-box-all "$res")")
replay bf16 2 "$work/bf16-train.csv" each-network "$nets" "${bf16[@]}"
replay bf16 2 "$work/bf16.csv" llm-held-out "$nets,llm" --held-out llm \
  "$(recipe shipped 0.6 0.9 "$res")" "$(recipe boxall-floor0.99 0.6 0.99 --leaf-box-all "$res")"
gzip -9nf "$out"/*-picks.csv  # every scored pick: which shapes a figure comes from
