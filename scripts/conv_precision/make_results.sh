#!/usr/bin/env bash
# Turns the files of one scripts/gpu_conv_precision_tables.sh call into a results directory: the
# device's files (build logs and ninja.log left out), the tables (tables.py with the bf16
# headers of selectors.txt: in-sample, and ResNet-50-trained scored on VGG16 only) and run.json.
#   scripts/conv_precision/make_results.sh FILES_AT DEST COMMIT 'RUN COMMAND'
# e.g. DEST = results/h100-80gb-hbm3/conv-precision-tables; COMMIT = the source archive's commit.
set -euo pipefail
from=${1:?usage: make_results.sh FILES_AT DEST COMMIT COMMAND} dest=${2:?} commit=${3:?}
command=${4:?}
from=$(realpath "$from") dest=$(realpath -m "$dest")
if [ -f "$from/conv-precision.tar.gz" ]; then  # the device script's one packed file
  unpacked=$(mktemp -d)
  tar xzf "$from/conv-precision.tar.gz" -C "$unpacked"
  from=$unpacked
fi
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dest"
for f in "$from"/*; do
  case $(basename "$f") in build.log | ninja.log.gz) ;; *) cp "$f" "$dest/" ;; esac
done
sel=scripts/conv_precision/selectors  # named from the repository root
cd "$here/../.."
table=(python3 "$here/tables.py" --dir "$dest"
  --selector "in-sample=$sel/h100-80gb-hbm3-igemm-bf16-k8.hpp"
  --selector "held-out=$sel/h100-80gb-hbm3-igemm-bf16-resnet50-k8.hpp@vgg16"
  --csv "$dest/per-layer.csv" --markdown "$dest/summary.md")
"${table[@]}"
tables="scripts/conv_precision/tables.py --dir DIR --selector in-sample=$sel/h100-80gb-hbm3-igemm-bf16-k8.hpp"
tables+=" --selector held-out=$sel/h100-80gb-hbm3-igemm-bf16-resnet50-k8.hpp@vgg16"
tables+=" --csv per-layer.csv --markdown summary.md (scripts/conv_precision/make_results.sh)"
python3 "$here/run_json.py" "$dest" --commit "$commit" --command "$command; then here: $tables"
