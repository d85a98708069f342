#!/usr/bin/env bash
# CPU whole-network benchmark: VGG16 and ResNet-50 on the `ktune`, `onednn`, `onednn_winograd`
# and `auto` (per layer the fastest of the three, or one alone) backends in one process per
# network and batch, taking turns one inference each (ktune_infer --backend
# ktune,onednn,onednn_winograd,auto; BACKENDS=... names others), the same random weights (seed 1)
# and input (seed 2) for all, then the logits of each backend compared with oneDNN's. Writes into OUT_DIR (default results/<device-slug>):
#   networks.csv         network,batch,backend,device,median_ms
#   networks-layers.csv  per-layer medians (ktune_infer --per-layer) of every run
#   networks-agree.csv   max |logit difference| / max |logit| of ktune and auto against onednn
#   networks-runs.txt    ktune_infer's lines per run: each backend's median, min and max over the
#                        reps (the spread), auto's per-layer picks and the variant it kept (note:)
#   networks.md          the tables (examples/networks/networks_md.py)
#   cpu.txt              lscpu and the load average before and after
#   run.json             the manifest of results/README.md (command, commit, date, CPU model)
# Usage: examples/networks/bench_cpu.sh BUILD_DIR OUT_DIR ["BATCHES"] [REPS] [REPS_BATCH16]
# (defaults: batches "1 16", 20 reps, 5 at batch > 1). The per-layer CSV compares the backends
# layer by layer (the `ktune` backend's fused conv + residual add counts in the conv's row).
# ROUNDS=N (ROUNDS_BATCH16=M at batch > 1, default N): each backend in a process of its own
# instead, the processes alternating in N rounds per network and batch (the backends' order
# rotated every round), each doing WARMUP then REPS inferences: one process taking turns between
# backends can fall into a slow state on a KVM guest that costs one backend more than another
# (docs/networks.md, "CPU benchmark"). Then networks-processes.csv holds each process's median,
# min, max, CPU time and CPU / wall (networks_processes.py), networks.csv the median over the
# processes of their medians, networks-layers.csv the median over the processes of each layer's
# medians (every process's in networks-layers-processes.csv.gz), networks-agree.csv the first
# round's logits. APPEND=1 adds to OUT_DIR's files instead of starting them again (a run taken
# in several phases, e.g. one per batch).
set -euo pipefail
build=${1:-build}; out=${2:?OUT_DIR}; batches=${3:-1 16}; reps=${4:-20}; reps_big=${5:-5}
command_line="$0 $*"
backends=${BACKENDS:-ktune,onednn,onednn_winograd,auto}
infer="$build/bin/ktune_infer"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rounds=${ROUNDS:-}
if [ -z "${APPEND:-}" ] || [ ! -f "$out/cpu.txt" ]; then
  rm -f "$out/networks.csv" "$out/networks-layers.csv" "$out/networks-runs.txt" \
    "$out/networks-processes.csv" "$out/networks-layers-processes.csv"{,.gz}
  lscpu > "$out/cpu.txt"
  echo "network,batch,backend,device,max_abs_diff,max_abs_logit,relative" > "$out/networks-agree.csv"
fi
{ echo "OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}"; echo "load before ($(date -u +%H:%M:%S) UTC, batches $batches): $(cat /proc/loadavg)"; } >> "$out/cpu.txt"
# The logits of $1 against onednn's ($2: its logits file), one row of networks-agree.csv.
agree() {
  /usr/bin/python3 - "$1" "$2" "$3" "$4" "$5" "$6" >> "$out/networks-agree.csv" <<'PY'
import sys
import numpy as np
a, b = (np.loadtxt(p, delimiter=",", ndmin=2) for p in sys.argv[1:3])
diff, scale = float(np.abs(a - b).max()), float(np.abs(b).max())
print(f"{sys.argv[3]},{sys.argv[4]},{sys.argv[5]},{sys.argv[6]},{diff:.6g},{scale:.6g},{diff / scale:.3g}")
PY
}
here=$(dirname "$0")
if [ -n "$rounds" ]; then
  [ -f "$out/networks-processes.csv" ] ||
    echo "round,network,batch,backend,device,median_ms,min_ms,max_ms,cpu_ms,cpu_over_wall,reps,warmup,load1" \
      > "$out/networks-processes.csv"
  [ ! -f "$out/networks-layers-processes.csv.gz" ] || gunzip -f "$out/networks-layers-processes.csv.gz"
  read -r -a list <<< "${backends//,/ }"
  for batch in $batches; do
    r=$reps n=$rounds; [ "$batch" -gt 1 ] && { r=$reps_big; n=${ROUNDS_BATCH16:-$rounds}; }
    for network in ${NETWORKS:-resnet50 vgg16}; do
      for round in $(seq 1 "$n"); do
        for j in "${!list[@]}"; do  # the order rotated every round
          backend=${list[$(( (j + round - 1) % ${#list[@]} ))]}
          load=$(cut -d' ' -f1 /proc/loadavg)
          echo "== $network batch $batch round $round: $backend alone ($r reps, load $(cut -d' ' -f1-3 /proc/loadavg))" |
            tee -a "$out/networks-runs.txt"
          env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$infer" --network "$network" --batch "$batch" \
            --backend "$backend" --seed 1 --input-seed 2 --reps "$r" --warmup "${WARMUP:-3}" \
            --csv "$tmp/one.csv" --logits "$tmp/$network-$batch.$backend.csv" \
            --per-layer "$tmp/layers.csv" > "$tmp/stdout.txt"
          grep -E "median|^auto(_bf16)?: [0-9]+ layers|^auto(_bf16)?: inferences|^note:" "$tmp/stdout.txt" |
            tee -a "$out/networks-runs.txt"
          /usr/bin/python3 "$here/networks_processes.py" row "$tmp/stdout.txt" "$tmp/one.csv" "$round" \
            "$r" "${WARMUP:-3}" "$load" >> "$out/networks-processes.csv"
          rm -f "$tmp/one.csv"
          [ -f "$out/networks-layers-processes.csv" ] ||
            echo "round,$(head -1 "$tmp/layers.csv")" > "$out/networks-layers-processes.csv"
          tail -n +2 "$tmp/layers.csv" | sed "s/^/$round,/" >> "$out/networks-layers-processes.csv"
        done
        [ "$round" = 1 ] || continue
        for backend in "${list[@]}"; do
          [ "$backend" = onednn ] || [ ! -f "$tmp/$network-$batch.onednn.csv" ] ||
            agree "$tmp/$network-$batch.$backend.csv" "$tmp/$network-$batch.onednn.csv" "$network" \
              "$batch" "$backend" "$(tail -1 "$out/networks-processes.csv" | cut -d, -f5)"
        done
      done
    done
  done
  /usr/bin/python3 "$here/networks_processes.py" aggregate "$out"
  gzip -f "$out/networks-layers-processes.csv"
fi
for batch in $batches; do
  [ -n "$rounds" ] && break
  r=$reps; [ "$batch" -gt 1 ] && r=$reps_big
  for network in ${NETWORKS:-resnet50 vgg16}; do
    echo "== $network batch $batch, $backends taking turns ($r reps, load $(cut -d' ' -f1-3 /proc/loadavg))" |
      tee -a "$out/networks-runs.txt"
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$infer" --network "$network" --batch "$batch" \
      --backend "$backends" --seed 1 --input-seed 2 --reps "$r" --warmup "${WARMUP:-3}" --csv "$out/networks.csv" \
      --logits "$tmp/$network-$batch.csv" --per-layer "$tmp/layers.csv" |
      grep -E "median|^auto(_bf16)?: [0-9]+ layers|^auto(_bf16)?: inferences|^note:" | tee -a "$out/networks-runs.txt"
    if [ -f "$out/networks-layers.csv" ]; then tail -n +2 "$tmp/layers.csv" >> "$out/networks-layers.csv"
    else cp "$tmp/layers.csv" "$out/networks-layers.csv"; fi
    for backend in ${backends//,/ }; do
      [ "$backend" = onednn ] && continue
      agree "$tmp/$network-$batch.$backend.csv" "$tmp/$network-$batch.onednn.csv" \
        "$network" "$batch" "$backend" "$(tail -1 "$out/networks.csv" | cut -d, -f4)"
    done
  done
done
/usr/bin/python3 "$here/networks_md.py" "$out" "$here/../../workloads/conv2d/conv2d-small.csv" > "$out/networks.md"
echo "load after: $(cat /proc/loadavg)" >> "$out/cpu.txt"
device=$(/usr/bin/python3 "$here/../../scripts/cpu_model.py")
onednn=$(dpkg-query -W -f '${Version}' libdnnl-dev 2>/dev/null || echo "version unknown")
how="taking turns in one process"
[ -n "$rounds" ] && how="each in a process of its own, the processes alternating in $rounds rounds \
(${ROUNDS_BATCH16:-$rounds} at batch > 1; median over the processes of each process's median)"
/usr/bin/python3 - "$out" "$command_line" "$(git -C "$here" rev-parse HEAD)" "$device" \
  "$batches" "$backends" "$onednn" "$how" <<'PY'
import csv, datetime, json, os, sys
out, command, commit, device, batches, backends, onednn, how = sys.argv[1:9]
files = sorted(f for f in os.listdir(out) if f != "run.json")
# The implementations oneDNN ran, per oneDNN backend, from the per-layer `choice` column.
ran = {}
for r in csv.DictReader(open(os.path.join(out, "networks-layers.csv"))):
    if r["backend"].startswith("onednn") and r.get("choice"):
        ran.setdefault(r["backend"], set()).add(r["choice"])
kernels = "; ".join(f"{b}: {', '.join(sorted(c))}" for b, c in sorted(ran.items()))
json.dump({"command": command, "commit": commit,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
           "device": device,
           "measures": f"VGG16 and ResNet-50 inference, the {backends} backends (auto: per layer "
                       f"the fastest of ktune, onednn and onednn_winograd by the layer's recent times "
                       f"in the network, or the fastest of them alone, picked per inference from the "
                       f"recent inferences' times) {how}, whole network and per layer, batch "
                       f"{batches}, FP32",
           "files": files, "in_sample": None,
           "vendors": f"oneDNN {onednn} (convolution_auto, convolution_winograd where it has one, "
                      f"inner product), as the onednn, onednn_winograd and auto backends ran it "
                      f"({kernels or 'implementations not recorded'}; per layer in "
                      f"networks-layers.csv choice); no "
                      f"OpenBLAS call (ktune_infer runs with OPENBLAS_CORETYPE and "
                      f"OPENBLAS_L2_SIZE unset)"}, open(os.path.join(out, "run.json"), "w"), indent=2)
PY
cat "$out/networks.md"
