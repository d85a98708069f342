#!/usr/bin/env bash
# Issue #30's CPU conv-layer target, for a quiet machine (nothing else running):
#   1. the CPU sweep: the cpu_plan kind's 11 configs (the nn engine's prepared conv plan:
#      implicit GEMM task blockings, Winograd F(2×2) / F(4×4) where they apply, the rest refused)
#      and cpu_plan_fused's 6 (the same Winograd in fused per-thread blocks of 12, 24, 48 tiles)
#      and cpu_plan_tpad's 9 (the implicit GEMM with each thread's own padded input copy; refused
#      but on padded non-1×1 layers of at most 4M padded input floats: not VGG16's large ones at
#      batch 16) and cpu_plan_1x1's 18 (the implicit GEMM with tasks split evenly among the
#      threads, cpu_plan's 9 blockings, each with channel panels or pixels outermost; refused but
#      on 1×1 unpadded layers)
#      + oneDNN at its best (vendor rows onednn = convolution_auto and onednn_winograd) on every
#      distinct VGG16 + ResNet-50 conv layer at batch 1 and 16 (WORKLOADS, default
#      "dnn-b1 dnn-b16"), each verified against float64 on NaN-poisoned output (the reference is
#      a blocked float64 GEMM: VGG16's layers at batch 16 take seconds)
#      then re-timed (ktune retime): per layer the configs within 15 % of the best median (at most
#      4) and the two oneDNN rows, in interleaved rounds whose order rotates, every turn verified
#      again, the pooled medians replacing the sweep's single back-to-back timings (a pick among
#      configs within 2 % of each other otherwise rests on one noisy moment; the store keeps the
#      originals) -> OUT/conv2d-cpu-plan.csv.gz;
#   2. training: the selector headers of libraries/conv2d/selectors.txt that read it
#      (amd-epyc-2c-plan-k6.hpp: every row, the shipped ktune_tuned_conv2d_cpu;
#      amd-epyc-2c-plan-resnet50-k6.hpp: the ResNet-50 rows only) regenerated in place;
#   3. the deployed library (ktune::CpuConv2dPlan) against oneDNN at its best per layer, timed
#      by the sweep's own host protocol in rotating rounds (tuned_conv_bench;
#      ktune::time_interleaved_on_host): in-sample on every layer of the sweep -> conv-deployed.*
#      (batch 1), conv-deployed-b16.* (batch 16), and the ResNet-50-trained library on the VGG16
#      layers (held out) -> conv-deployed-heldout.* (batch 1), conv-deployed-heldout-b16.*;
#   4. the tables (scripts/cpu_conv_tables.py, with a row over conv-small's 12 layers of the
#      batch-1 ones) -> conv-deployed-tables.md, and run.json.
# VENDORS=1 (issue #26; implies BENCH_ONLY=1, below): steps 3-4 for the libraries that ship oneDNN's
# calls as candidates (ktune_tuned_conv2d_cpu_vendors and its ResNet-50-trained twin:
# tuned_conv_bench_cpu_vendors*), on the committed dataset and headers, into
# results/amd-epyc-2c/conv-vendor (OUT_DIR overrides it), the tables with the share of layers and
# of time on ktune's own kernels. About 4 minutes quiet: the four benches of BENCH_ONLY=1.
# Usage: scripts/cpu_conv_sweep.sh BUILD_DIR   (OUT is results/amd-epyc-2c/conv-plan: the dataset
# path that selectors.txt names; the build dir must be configured, with the examples). Commit
# OUT, the two regenerated headers, README.md (scripts/readme_figures.py) and results/INDEX.md
# (scripts/results_index.py) afterwards.
# Run time on the 2-core EPYC: without VGG16 at batch 16, 120 s quiet (the committed run of
# 2026-11-27) and 351 s loaded. With it (dnn-b16, and the two VGG16 batch-16 benches), measured
# only loaded (load average 4-8, other helpers building): 1338 s, of which the sweeps 659 s (batch
# 1 about 40 s) and the headers, rebuilds and four benches 680 s; at the ratio of the earlier runs
# (351 / 120) about 7-8 minutes quiet; the committed quiet run of 2026-11-27 (11 configs) took
# 374 s. With cpu_plan_fused's 6 more configs (3×3 stride-1 layers only), WORKLOADS=dnn-b1 took
# 613 s at load average 5 (sweep 129 s, the rest the four benches). A build of ktune that is not
# up to date adds its own time. The re-timing (ktune retime) adds, estimated from loaded runs
# (2026-11-28, load average 1-3): about 25-50 s at batch 1 (50 s loaded for dnn-b1) and about
# a third of the batch-16 sweep's time (5 s against 15 s on three ResNet-50 batch-16 layers), so
# roughly 100 s on top of the 476 s of the last quiet run; run.json's measures give the figure.
# Since session 19 every timed CPU run starts cold (host_rotation, layers of 256 KiB and up: 2x LLC read after each
# verification, and before each run of a layer whose 8 copies do not cover 2x LLC, ~7 MB for a
# 1 MB batch-1 layer): a few ms a measurement and 0.3-1 ms a small layer's run, not measured
# quiet; loaded (load average 6-10, 2026-11-28) WORKLOADS=dnn-b1 took 467 s with it, of which the
# sweep 95 s and the re-timing 100 s, within the spread of the loaded runs above.
# cpu_plan_tpad's 9 configs run only on the padded non-1×1 layers with at most 4M padded input
# floats (18 of the 33 batch-1 layers, 13 at batch 16: ResNet-50's eight padded ones, VGG16's
# conv1_1, conv4_1 and conv5_x; refusals cost nothing): estimated 1-2 minutes more quiet (batch 1
# about 30 s; batch 16 mostly VGG16's conv4_1 and conv5_x on the implicit GEMM, 30-130 ms a run),
# the re-timing's cap of 4 configs per layer unchanged.
set -euo pipefail
build=${1:?BUILD_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
data=$here/results/amd-epyc-2c/conv-plan/conv2d-cpu-plan.csv.gz
out=$here/results/amd-epyc-2c/conv-plan
vendors=${VENDORS:-0}
# The benchmark programs: in sample (every layer) and trained on ResNet-50 only (held out).
bench_in=tuned_conv_bench bench_held=tuned_conv_bench_cpu_resnet50 own_share=() library="K = 6 library"
if [ "$vendors" = 1 ]; then
  BENCH_ONLY=1 out=${OUT_DIR:-$here/results/amd-epyc-2c/conv-vendor} own_share=(--own-share)
  bench_in=tuned_conv_bench_cpu_vendors bench_held=tuned_conv_bench_cpu_vendors_resnet50
  library="library shipping K = 6 configs and oneDNN's two calls (vendor=onednn, vendor=onednn_winograd; \
ktune_tuned_conv2d_cpu_vendors, selector amd-epyc-2c-plan-vendors-k6.hpp)"
fi
workloads=${WORKLOADS:-dnn-b1 dnn-b16}
start=$(date +%s)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
[ "$vendors" = 1 ] || cmake --build "$build" -j"$(nproc)" --target ktune
mkdir -p "$out"
# BENCH_ONLY=1: steps 3-4 alone, on the committed dataset and selector headers (a re-run of the
# deployed-vs-oneDNN timing after a change to the bench's protocol, picks unchanged).
bench_only=${BENCH_ONLY:-0}
if [ "$bench_only" = 1 ]; then rm -f "$out"/conv-deployed*; else rm -f "$out"/conv2d-cpu-plan.csv.gz "$out"/conv-deployed*; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@"; }
# --timeout-ms 10000: the slowest configs of VGG16's layers at batch 16 (the implicit GEMM on
# conv1_2, about 0.3 s a run quiet) passed the default 2 s under load.
for w in $workloads; do
  [ "$bench_only" = 1 ] && break
  run "$build/bin/ktune" bench --family conv2d --workload "$w" --device cpu --store "$work/conv.sqlite" \
    --configs kind:cpu_plan,kind:cpu_plan_fused,kind:cpu_plan_tpad,kind:cpu_plan_1x1 --min-reps 5 --rep-budget-ms 30 --timeout-ms 10000 | tail -n 2
done
# The re-timing: 3 timed runs a turn at batch 1 (runs of 0.1-4 ms), 1 at batch 16 (the verification
# run of each turn already takes as long as the timed one); at least 4 rounds, whole rotations.
# RETIME=0: the sweep's own timings alone (as before the re-timing existed).
retime_s=0
for w in $workloads; do
  [ "$bench_only" = 1 ] || [ "${RETIME:-1}" = 0 ] && break
  retime_start=$(date +%s)
  reps=3
  case $w in *b16) reps=1 ;; esac
  run "$build/bin/ktune" retime --family conv2d --workload "$w" --device cpu --store "$work/conv.sqlite" \
    --within 0.15 --max-configs 4 --rounds 4 --reps "$reps" --timeout-ms 10000 | tail -n 1
  retime_s=$(( retime_s + $(date +%s) - retime_start ))
done
if [ "$bench_only" != 1 ]; then
  "$build/bin/ktune" export --store "$work/conv.sqlite" --format csv -o "$data"
  sweep_s=$(( $(date +%s) - start ))
  "$here/scripts/deploy_selectors.sh" "$here/libraries/conv2d/selectors.txt" "" "$build/bin/ktune" '^amd-epyc-2c-plan'
else
  sweep_s=0
fi
# SWEEP_ONLY=1: steps 1-2 alone (the dataset and the regenerated headers), so that the rebuild of
# the benches can run outside a quiet window; BENCH_ONLY=1 then times them (two runs, each
# holding the quiet lock for less time than the whole script).
if [ "${SWEEP_ONLY:-0}" = 1 ]; then
  echo "cpu_conv_sweep: SWEEP_ONLY=1, sweep and headers in $(( $(date +%s) - start )) s (load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after)"
  exit 0
fi
cmake --build "$build" -j"$(nproc)" --target "$bench_in" "$bench_held"
bench=(--device-slug amd-epyc-2c --dataset "$data" --peak-gflops 192
  --bandwidth-gbs 40)
run "$build/bin/$bench_in" --workload dnn-b1 "${bench[@]}" \
  --csv "$out/conv-deployed.csv" --md "$out/conv-deployed.md" > "$work/bench.log"
run "$build/bin/$bench_in" --workload dnn-b16 "${bench[@]}" \
  --csv "$out/conv-deployed-b16.csv" --md "$out/conv-deployed-b16.md" > "$work/bench-b16.log"
run "$build/bin/$bench_held" --workload vgg16-conv-b1 "${bench[@]}" \
  --csv "$out/conv-deployed-heldout.csv" --md "$out/conv-deployed-heldout.md" > "$work/bench-heldout.log"
run "$build/bin/$bench_held" --workload vgg16-conv-b16 "${bench[@]}" \
  --csv "$out/conv-deployed-heldout-b16.csv" --md "$out/conv-deployed-heldout-b16.md" \
  > "$work/bench-heldout-b16.log"
if [ "$vendors" = 1 ]; then  # the picks scored on the sweep's own timings: a prediction
  selectors=$here/libraries/conv2d/selectors
  { echo "Replay (scripts/conv_selector_replay.py, a prediction from the sweep's timings, not a measurement):"
    echo "in sample, amd-epyc-2c-plan-vendors-k6.hpp on every layer of the sweep:"; echo
    /usr/bin/python3 "$here/scripts/conv_selector_replay.py" "$selectors/amd-epyc-2c-plan-vendors-k6.hpp" "$data"
    echo; echo "held out, amd-epyc-2c-plan-vendors-resnet50-k6.hpp on the VGG16 layers:"; echo
    /usr/bin/python3 "$here/scripts/conv_selector_replay.py" \
      "$selectors/amd-epyc-2c-plan-vendors-resnet50-k6.hpp" "$data" --tags vgg16
  } > "$out/conv-replay.md"
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
device="$(/usr/bin/python3 "$here/scripts/cpu_model.py")"
device="$device, load average $load_before before, $load_after after"
/usr/bin/python3 "$here/scripts/cpu_conv_tables.py" "$device" --in-sample "$out/conv-deployed.csv" \
  "$out/conv-deployed-b16.csv" --held-out "$out/conv-deployed-heldout.csv" \
  "$out/conv-deployed-heldout-b16.csv" --conv-small "$here/workloads/conv2d/conv2d-small.csv" \
  "${own_share[@]}" > "$out/conv-deployed-tables.md"
onednn=$(dpkg-query -W -f '${Version}' libdnnl-dev 2>/dev/null || echo "version unknown")
/usr/bin/python3 - "$out" "$(git -C "$here" rev-parse HEAD)" "$device" "$onednn" "$workloads" <<'PY'
import csv, datetime, glob, json, os, sys
out, commit, device, onednn, workloads = sys.argv[1:6]
# The implementations oneDNN ran, as the deployed benches recorded them per layer.
ran = sorted({row["vendor_algo"] for path in glob.glob(os.path.join(out, "conv-deployed*.csv"))
              for row in csv.DictReader(open(path)) if row.get("vendor_algo")})
json.dump({"command": "", "commit": commit,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
           "device": device, "measures": "", "files": [],
           "in_sample": None,  # both: the measures say which file is which
           "vendors": f"oneDNN {onednn}: convolution_auto and convolution_winograd (where oneDNN has "
                      f"one; NHWC reorders counted), the faster per layer, weights reordered once; the "
                      f"implementation per layer is the vendor_algo column of conv-deployed*.csv "
                      f"({', '.join(ran)}); no OpenBLAS call is made (OPENBLAS_CORETYPE and "
                      f"OPENBLAS_L2_SIZE unset all the same)"},
          open(os.path.join(out, "run.json"), "w"), indent=2)
PY
bench_note=""
[ "$bench_only" = 1 ] && bench_note="BENCH_ONLY=1, the deployed benches alone: the sweep and \
the selector headers are the committed ones (conv2d-cpu-plan.csv.gz of commit \
$(git -C "$here" log -1 --format=%h -- results/amd-epyc-2c/conv-plan/conv2d-cpu-plan.csv.gz)), not re-run; "
# After SWEEP_ONLY=1 the dataset and headers are the working tree's, not yet committed.
[ "$bench_only" = 1 ] && ! git -C "$here" diff --quiet -- "$data" libraries/conv2d/selectors &&
  bench_note="BENCH_ONLY=1, the deployed benches alone, on the working tree's dataset and selector \
headers (uncommitted: a SWEEP_ONLY=1 run before this one wrote them); "
[ "$vendors" = 1 ] && bench_note="${bench_note}own kernels = the layers (and their share of the deployed time) \
whose pick is one of ktune's configs, not a oneDNN call (conv-deployed-tables.md); "
retime_note=", not re-timed (RETIME=0)"
[ "${RETIME:-1}" != 0 ] && retime_note=", then re-timed (ktune retime --within 0.15 --max-configs 4 \
--rounds 4, --reps 3 at batch 1 and 1 at batch 16: the close configs and oneDNN's rows in rotating interleaved \
rounds, each turn verified again, pooled medians; ${retime_s} s)"
[ "$bench_only" = 1 ] && retime_note=""
summary=$(grep -E '^\| (in-sample|\*\*held out\*\*)? ?\| all' "$out/conv-deployed-tables.md" | tr '\n' ' ')
/usr/bin/python3 "$here/scripts/run_json_amend.py" "$out" --command "${VENDORS:+VENDORS=$VENDORS }${bench_only:+BENCH_ONLY=$bench_only }${RETIME:+RETIME=$RETIME }$0 $*" --measures \
  "${bench_note}conv2d CPU sweep (conv2d-cpu-plan.csv.gz): workload(s) $workloads x the cpu_plan kind's 11 \
configs, cpu_plan_fused's 6, cpu_plan_tpad's 9 and cpu_plan_1x1's 18 (prepared: filter packed once per layer outside the timed runs) + oneDNN (onednn, \
onednn_winograd), verified against float64${retime_note}; the deployed $library (ktune::CpuConv2dPlan) vs \
oneDNN at its best per layer, each timed by the sweep's host protocol (cold caches before every run) in 3 rotating rounds, pooled medians (conv-deployed*.csv/md, \
conv-deployed-tables.md); summary rows (geomean, time-weighted, below 0.8x, worst): $summary; \
in-sample: conv-deployed.* (the selector was trained on these layers' rows); held out: \
conv-deployed-heldout*.* (a selector trained on the ResNet-50 rows, run on the VGG16 layers at batch 1 and 16); \
sweep with the re-timing ${sweep_s} s, all $(( $(date +%s) - start )) s" > /dev/null
head -20 "$out/conv-deployed-tables.md"
echo "cpu_conv_sweep: $(( $(date +%s) - start )) s"
