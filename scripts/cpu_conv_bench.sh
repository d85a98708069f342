#!/usr/bin/env bash
# Issue #30's CPU check, for a quiet machine (nothing else running): builds ktune_infer and
# conv_plan_bench in BUILD_DIR, then
#   1. examples/networks/bench_cpu.sh: ResNet-50 and VGG16 at batch 1 and 16 on the `ktune`,
#      `onednn` and `auto` backends taking turns in one process (whole network and per layer,
#      logits compared) -> OUT_DIR/networks.csv, networks-layers.csv, networks-agree.csv,
#      networks.md, cpu.txt, run.json;
#   2. conv_plan_bench on every distinct conv / fc layer of both networks at both batches: the
#      CPU conv plan as the backend runs it (variant `plan`) and with the two paths it replaced
#      (`rowcalls`: a tile call per filter row; `kcfixed`: K always in blocks of 256) and with
#      all of K in one block on every layer (`kcall`: faster on VGG16's 3×3 layers over >= 128
#      channels in single-thread runs on the loaded machine, slower on others; not the default
#      until a quiet run says where) against
#      oneDNN (conv + post-ops, + its separate residual add where the engine fuses one into
#      ktune's conv), taking turns -> OUT_DIR/conv-plan-layers.csv, conv-plan-totals.txt;
#   3. run.json's file list and `measures` extended with step 2.
# Usage: scripts/cpu_conv_bench.sh BUILD_DIR OUT_DIR   (e.g. build results/amd-epyc-2c/networks-cpuconv)
# (BATCHES="1 16" and NETWORKS="resnet50 vgg16" by default: a quick check may name fewer.)
# Expected run time on the 2-core Zen 5 EPYC, quiet: about 6 minutes (step 1 about 3, VGG16 at
# batch 16 the longest part of both steps), estimated from the per-call times of
# results/amd-epyc-2c/networks-auto; the build adds its own time when not up to date.
set -euo pipefail
build=${1:?BUILD_DIR}; out=${2:?OUT_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
cmake --build "$build" -j"$(nproc)" --target ktune_infer conv_plan_bench
mkdir -p "$out"
start=$(date +%s)
batches=${BATCHES:-1 16}
"$here/examples/networks/bench_cpu.sh" "$build" "$out" "$batches" 20 5
rm -f "$out/conv-plan-layers.csv"
: > "$out/conv-plan-totals.txt"
for batch in $batches; do
  reps=10; burst=2
  [ "$batch" -gt 1 ] && { reps=5; burst=1; }
  for network in ${NETWORKS:-resnet50 vgg16}; do
    echo "== conv_plan_bench $network batch $batch (load $(cut -d' ' -f1-3 /proc/loadavg))"
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$build/bin/conv_plan_bench" --network "$network" --batch "$batch" --reps "$reps" \
      --burst "$burst" --variants plan,rowcalls,kcfixed,kcall --csv "$out/conv-plan-layers.csv" |
      grep '^total' | tee -a "$out/conv-plan-totals.txt"
  done
done
echo "load after conv_plan_bench: $(cat /proc/loadavg)" >> "$out/cpu.txt"
/usr/bin/python3 - "$out" "$0 $*" <<'PY'
import json, os, sys
out, command = sys.argv[1:3]
path = os.path.join(out, "run.json")
run = json.load(open(path))
run["command"] = command
run["files"] = sorted(f for f in os.listdir(out) if f != "run.json")
run["measures"] += ("; per distinct conv/fc layer (conv-plan-layers.csv, conv_plan_bench): the "
                    "CPU conv plan (plan = as the ktune backend runs it, rowcalls and kcfixed = "
                    "the paths it replaced, kcall = all of K in one block) vs oneDNN (+ its "
                    "residual add where ktune fuses one), "
                    "taking turns, medians and minima")
json.dump(run, open(path, "w"), indent=2)
PY
echo "cpu_conv_bench: $(( $(date +%s) - start )) s"
