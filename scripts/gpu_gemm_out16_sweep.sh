#!/usr/bin/env bash
# The GEMM sweep with C in the 16-bit input type (issue #24 item 1: `c16` problems, workloads
# `large@bf16:c=bf16`) on the lent GPU, from an already built tree, within DEADLINE_S seconds
# (default 200):
#   1. the GPU test of the sweep's 16-bit C path (MmaGemmBackend.SixteenBitC*: every own kind
#      and vendor row of a small bf16 shape with bf16 C verified, the staged kinds refused) and
#      GemmOut16Verify.* (the 16-bit verification kernel, a planted error), 40 s;
#   2. `ktune bench` of WORKLOADS (default large@bf16:c=bf16 llm@bf16:c=bf16) over CONFIGS
#      (default the kinds that store 16-bit C, mma, mmasplit, wgmma, wgmmapp, wgmmamc, and
#      wgmmats, whose rows must come back refused) with cuBLAS and cuBLASLt's 8 answers in bf16
#      with bf16 C, same run, into one store; each workload within the time left (a cut one
#      keeps its rows);
#   3. the store exported (gemm-out16-sweep.csv.gz), `ktune report` per workload (the oracle vs
#      vendor table, *-vs-vendor.md), scripts/gemm_precision_ratios.py (best config of the space
#      per shape vs each vendor row and the fastest: geomean, time-weighted, below 0.8x, worst
#      shapes: ratios.md), the rows per kind and status (status.txt) and run.json.draft.
# BUILD: a tree built by scripts/gpu_build_remote.sh with the targets ktune ktune_gpu_tests (no
# EXAMPLES, no CMAKE_ARGS needed). OUT_DIR: where everything lands. COMMIT: the source's commit,
# for run.json.draft. DEVICE: the device spec (default cuda:0; `cpu` tries the flow without a GPU).
#   BUILD=/tmp/b OUT_DIR=$OUT/out16sweep COMMIT=abc1234 scripts/gpu_gemm_out16_sweep.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/device_common.sh
built_tree_setup
STORE=/tmp/gemm-out16-sweep.sqlite
rm -f "$STORE"*
left() { echo $((DEADLINE_S - SECONDS - 20)); } # 20 s for the export and tables

run_gpu_tests 40 "$OUT_DIR/gpu-tests-out16-sweep.log" "$B/ktune_gpu_tests" \
  --gtest_filter='MmaGemmBackend.SixteenBitC*:GemmOut16Verify.*'

CONFIGS=${CONFIGS:-kind:mma,kind:mmasplit,kind:wgmma,kind:wgmmapp,kind:wgmmamc,kind:wgmmats}
S="--warmups 0 --min-reps 3 --max-reps 10 --rep-budget-ms 1 --timeout-ms 1000"
slug=$(gpu_slug)
workloads=()
for w in ${WORKLOADS:-large@bf16:c=bf16 llm@bf16:c=bf16}; do
  t=$(left)
  [ "$t" -gt 10 ] || { echo "no time left for $w"; continue; }
  name=${w//[@:=]/-}
  start=$SECONDS
  # shellcheck disable=SC2086  # S: several options
  timeout "$t" "$B/ktune" bench --family gemm --device "${DEVICE:-cuda:0}" --workload "$w" \
    --configs "$CONFIGS" --store "$STORE" $S > "$OUT_DIR/bench-$name.log" 2>&1
  echo "bench $w exit $? ($((SECONDS - start)) s, limit $t s)"
  tail -2 "$OUT_DIR/bench-$name.log"
  workloads+=("$w")
done

"$B/ktune" export --store "$STORE" --format csv -o "$OUT_DIR/gemm-out16-sweep.csv.gz"
for w in "${workloads[@]}"; do
  name=${w//[@:=]/-}
  "$B/ktune" report --store "$STORE" --device "${slug:-h200}" --workload "$w" \
    --csv "$OUT_DIR/$name-vs-vendor.csv" --markdown "$OUT_DIR/$name-vs-vendor.md" \
    > /dev/null 2>&1 || echo "report $w failed"
done
python3 scripts/gemm_precision_ratios.py "$OUT_DIR/gemm-out16-sweep.csv.gz" --worst 8 \
  > "$OUT_DIR/ratios.md"
python3 scripts/gemm_out16_sweep_summary.py "$OUT_DIR" "${COMMIT:-unknown}" "$CONFIGS" \
  "${workloads[*]}" > "$OUT_DIR/status.txt"
cat "$OUT_DIR/ratios.md" "$OUT_DIR/status.txt"
echo "total ${SECONDS} s"
