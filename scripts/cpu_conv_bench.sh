#!/usr/bin/env bash
# Issue #30's CPU check, for a quiet machine (nothing else running): builds ktune_infer and
# conv_plan_bench in BUILD_DIR, then
#   1. examples/networks/bench_cpu.sh: ResNet-50 and VGG16 at batch 1 and 16 on the `ktune`,
#      `onednn`, `onednn_winograd` (oneDNN's Winograd on the layers it has one for, reorders from
#      and to NHWC counted) and `auto` backends taking turns in one process (whole network and per
#      layer, logits compared) -> OUT_DIR/networks.csv, networks-layers.csv (oneDNN's
#      implementation per layer in `choice`), networks-agree.csv, networks.md, cpu.txt, run.json;
#   1b. `ktune` (its plans on OpenMP's team) against `ktune_pool` (on the packed GEMM's helper
#      pool), each beside onednn_winograd in its own process, alternating (twice at batch 1)
#      -> OUT_DIR/networks-workers.csv, networks-workers.txt;
#   2. conv_plan_bench on every distinct conv / fc layer of both networks at both batches: the
#      CPU conv plan as the backend runs it (on OpenMP's team; variant `plan`: Winograd
#      F(4×4, 3×3) on the 3×3 stride-1 layers over >= 16 channels, F(2×2) where F(4×4) has
#      fewer than 12 tiles, all of K in one block elsewhere), without Winograd
#      (`direct`), with F(2×2) (`wino2`) and with the K blocks it ran before (`kc256k`: all of K
#      only where the widest task's patch matrix has <= 256K floats) against oneDNN at its best
#      per layer (convolution_auto, or its Winograd where oneDNN has one and it is faster; the
#      CSV names which ran), + oneDNN's separate residual add where the engine fuses one into
#      ktune's conv, taking turns -> OUT_DIR/conv-plan-layers.csv, conv-plan-totals.txt;
#   3. run.json's file list and `measures` extended with steps 1b and 2.
# Usage: scripts/cpu_conv_bench.sh BUILD_DIR OUT_DIR   (e.g. build /tmp/cpuconv; its run of
# 2026-11-27 is results/amd-epyc-2c/networks-cpuconv, whose step-1 files are in git history: issue
# 30's whole-network figures now come from bench_cpu.sh's ROUNDS mode, results/amd-epyc-2c/networks-cpu)
# (BATCHES="1 16" and NETWORKS="resnet50 vgg16" by default: a quick check may name fewer.)
# Expected run time on the 2-core Zen 5 EPYC, quiet: about 9 minutes (steps 1 and 2 about 7, step
# 1b about 2: its twelve processes took 2.3 min at load average 2; VGG16 at batch 16 is
# the longest part of each step); the build adds its own time when not up to date.
set -euo pipefail
build=${1:?BUILD_DIR}; out=${2:?OUT_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
cmake --build "$build" -j"$(nproc)" --target ktune_infer conv_plan_bench
mkdir -p "$out"
start=$(date +%s)
tmp_workers=$(mktemp)
trap 'rm -f "$tmp_workers"' EXIT
batches=${BATCHES:-1 16}
BACKENDS=ktune,onednn,onednn_winograd,auto "$here/examples/networks/bench_cpu.sh" "$build" "$out" "$batches" 20 5
# 1b. Whose threads run ktune's plans, A/B: `ktune` (OpenMP's team, the one oneDNN uses) and
# `ktune_pool` (the packed GEMM's helper pool, the former threads), each beside onednn_winograd in
# its own process, the two processes alternating twice per network at batch 1, once at batch 16
# -> OUT_DIR/networks-workers.csv (a row per backend and process, `round` 1 or 2) and
# networks-workers.txt (each process's ktune / onednn_winograd).
echo "round,network,batch,backend,device,median_ms" > "$out/networks-workers.csv"
for batch in $batches; do
  r=20 rounds="1 2"; [ "$batch" -gt 1 ] && { r=5; rounds=1; }
  for network in ${NETWORKS:-resnet50 vgg16}; do
    for round in $rounds; do
      for ktune in ktune ktune_pool; do
        env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$build/bin/ktune_infer" --network "$network" \
          --batch "$batch" --backend "$ktune,onednn_winograd" --seed 1 --input-seed 2 --reps "$r" \
          --warmup 3 --csv "$tmp_workers" > /dev/null
        tail -n 2 "$tmp_workers" | sed "s/^/$round,/" >> "$out/networks-workers.csv"
      done
    done
  done
done
/usr/bin/python3 - "$out/networks-workers.csv" <<'PY' | tee "$out/networks-workers.txt"
import csv, statistics, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
ratio = defaultdict(list)  # (network, batch, ktune backend) -> ktune / onednn_winograd per process
for i in range(0, len(rows), 2):
    a, b = rows[i], rows[i + 1]
    k, o = (a, b) if a["backend"].startswith("ktune") else (b, a)
    ratio[(k["network"], k["batch"], k["backend"])].append(float(k["median_ms"]) / float(o["median_ms"]))
for (net, batch, backend), v in sorted(ratio.items()):
    print(f"workers {net} batch {batch} {backend}: / onednn_winograd = "
          + ", ".join(f"{x:.3f}" for x in v) + f" (median {statistics.median(v):.3f})")
PY
rm -f "$out/conv-plan-layers.csv"
: > "$out/conv-plan-totals.txt"
for batch in $batches; do
  reps=10; burst=2
  [ "$batch" -gt 1 ] && { reps=5; burst=1; }
  for network in ${NETWORKS:-resnet50 vgg16}; do
    echo "== conv_plan_bench $network batch $batch (load $(cut -d' ' -f1-3 /proc/loadavg))"
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$build/bin/conv_plan_bench" --network "$network" --batch "$batch" --reps "$reps" \
      --burst "$burst" --variants plan,direct,wino2,kc256k --csv "$out/conv-plan-layers.csv" |
      grep '^total' | tee -a "$out/conv-plan-totals.txt"
  done
done
echo "load after conv_plan_bench: $(cat /proc/loadavg)" >> "$out/cpu.txt"
/usr/bin/python3 "$here/scripts/run_json_amend.py" "$out" --command "$0 $*" --append-measures \
  "per distinct conv/fc layer (conv-plan-layers.csv, conv_plan_bench): the CPU conv plan (plan = \
as the ktune backend runs it, Winograd F(4x4) on 3x3 stride-1 layers; direct = without Winograd; \
wino2 = F(2x2); kc256k = the former K blocking) vs oneDNN at its best per layer (convolution_auto \
or its Winograd, the faster, named in onednn_impl; + its residual add where ktune fuses one), \
taking turns, medians and minima; networks-workers.csv: ktune (plans on OpenMP's team) vs \
ktune_pool (on the helper pool), each beside onednn_winograd in its own process, alternating \
(twice at batch 1)" > /dev/null
echo "cpu_conv_bench: $(( $(date +%s) - start )) s"
