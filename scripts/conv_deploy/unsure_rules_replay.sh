#!/usr/bin/env bash
# The unsure rules of `ktune deploy` (issue #26: serve the safe candidate where a selector is
# unsure) on the held-out pairs of the tensor-core conv selectors, without timing anything new:
# per precision (the H200 tf32 and fp16 sweeps) and recipe, a header trained on one network's
# layers (the shipped recipe, plus the rule) is replayed on the other network's layers of the same
# sweep (scripts/conv_deploy/selector_replay.py: its pick's swept median against the sweep's cuDNN
# at its best; a prediction, not a measurement of the library).
#   scripts/conv_deploy/unsure_rules_replay.sh OUT_DIR [KTUNE]
# Writes OUT_DIR/replay.md (one table per precision; a header is named
# <precision>-<recipe>-<network it was trained on>.hpp) and OUT_DIR/replay.csv (every layer).
set -euo pipefail
out=$(realpath -m "${1:?OUT_DIR}")
root=$(cd "$(dirname "$0")/../.." && pwd)
ktune=$(realpath "${2:-$root/build/bin/ktune}")
cd "$root"
base="--pruner tree --norm rawcutoff --k 16 --selector tree-b --vendors --leaf-floor 0.99"
recipes=("shipped|"
         "leaf-box|--leaf-box"
         "range-guard|--range-guard --unsure-vendor"
         "leaf-box-all|--leaf-box --leaf-box-all --unsure-vendor")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out" "$work/headers"
: > "$out/replay.md"
rm -f "$out/replay.csv"
for precision in tf32 fp16; do
  case $precision in
    tf32) sweep=results/h200/conv-tc-sweep-tf32/sweep-tf32.csv.gz ;;
    fp16) sweep=results/h200/conv-tc-sweep-persist/sweep-fp16.csv.gz ;;
  esac
  replays=()
  for recipe in "${recipes[@]}"; do
    name=${recipe%%|*} rule=${recipe#*|}
    for pair in resnet50:vgg16 vgg16:resnet50; do
      trained=${pair%%:*} run=${pair##*:}
      zcat "$sweep" | awk -F, -v net="$trained" 'NR == 1 || $NF == net' | gzip -1 > "$work/d.csv.gz"
      rm -rf "$work/pkg"
      # shellcheck disable=SC2086  # base and rule: several options each
      "$ktune" deploy --data "$work/d.csv.gz" $base $rule --name selector -o "$work/pkg" \
        > "$work/deploy.log" 2>&1 || { cat "$work/deploy.log" >&2; exit 1; }
      header=$work/headers/$precision-$name-$trained.hpp
      cp "$work"/pkg/selectors/*/*.hpp "$header"
      replays+=("$header:$run")
    done
  done
  echo "## $precision ($sweep)" >> "$out/replay.md"
  python3 scripts/conv_deploy/selector_replay.py --sweep "$sweep" --md "$work/$precision.md" \
    --csv "$work/$precision.csv" "${replays[@]}" > /dev/null
  cat "$work/$precision.md" >> "$out/replay.md"
  echo >> "$out/replay.md"
  if [ -f "$out/replay.csv" ]; then tail -n +2 "$work/$precision.csv" >> "$out/replay.csv"
  else cp "$work/$precision.csv" "$out/replay.csv"; fi
done
