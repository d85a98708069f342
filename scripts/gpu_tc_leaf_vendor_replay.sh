#!/usr/bin/env bash
# Replay (CPU only, on the committed H200 tf32 and bf16 sweeps' medians) of --unsure-leaf-vendor
# (issue #26: an unsure problem served by its leaf's fastest vendor call, not one vendor call for
# all), with and without it, on the shipped H200 recipes: scripts/cpu_gemm_vendor_replay.py
# against the faster of cuBLAS and cuBLASLt's #0. First on the training workloads alone (llm
# dropped, each network held out in turn: the figures the option is chosen by), then with llm
# held out (the shipped headers' split). Writes OUT_DIR (default
# results/h200/tc-leaf-vendor-replay): <precision>-<split>.md / .csv / -picks.csv.gz. 3-5 min.
#   scripts/gpu_tc_leaf_vendor_replay.sh [OUT_DIR] [KTUNE]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/h200/tc-leaf-vendor-replay}
ktune=${2:-build/bin/ktune}
. scripts/tc_replay_common.sh
# recipe NAME VOTE FLOOR [more options]: the shipped recipe's options with these changed; each
# once as it is and once with --unsure-leaf-vendor (NAME+leafvendor).
recipe() {
  echo "$1=$base --min-vote-share $2 --leaf-floor $3 ${*:4}"
  echo "$1+leafvendor=$base --min-vote-share $2 --leaf-floor $3 ${*:4} --unsure-leaf-vendor"
}
# tf32: the shipped h200-tf32-vendors-lt8-boxall-k16 recipe (box over every feature, floor 0.99)
# and the earlier h200-tf32-vendors-lt8-k16 one (floor 0.95, path box).
mapfile -t tf32 < <(recipe boxall-floor0.99 0.6 0.99 --leaf-box-all; recipe shipped-lt8 0.6 0.95)
replay tf32 1 "$work/tf32-train.csv" each-network "$nets" "${tf32[@]}"
replay tf32 1 "$work/tf32.csv" llm-held-out "$nets,llm" --held-out llm "${tf32[@]}"
# bf16: the shipped h200-bf16-vendors-lt8-k16 recipe (floor 0.9, residues skipped) and the box
# over every feature with floor 0.99.
mapfile -t bf16 < <(recipe shipped 0.6 0.9 "$res"; recipe boxall-floor0.99 0.6 0.99 --leaf-box-all "$res")
replay bf16 2 "$work/bf16-train.csv" each-network "$nets" "${bf16[@]}"
replay bf16 2 "$work/bf16.csv" llm-held-out "$nets,llm" --held-out llm "${bf16[@]}"
gzip -9nf "$out"/*-picks.csv # every scored pick: which shapes a figure comes from
