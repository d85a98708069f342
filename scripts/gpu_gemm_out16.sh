#!/usr/bin/env bash
# ktune::gemm_ex with C in the input type (issue #24: GemmOutput bf16) on the lent GPU, from an
# already built tree, within DEADLINE_S seconds (default 200):
#   1. the GPU tests of 16-bit C (the deployed library's TunedGemmEx 16-bit tests, the NVRTC
#      mma / wgmma kernels' SixteenBitC tests) and, if built, ktune_gpu_vendor_tc_tests' (cuBLAS /
#      cuBLASLt with 16-bit C through the planted vendors library);
#   2. tuned_gemm_bench on WORKLOADS (default large@bf16 llm@bf16) twice each: --output input (C
#      bf16 for ktune::gemm_ex, cuBLAS and cuBLASLt #0) and --output fp32 (the same shapes with FP32
#      C, same run, for comparison; OUTPUTS=input skips it); BENCH_ARGS (default --rep-budget-ms 10
#      --lt-top 0). A workload with 16-bit C in its variant (large@bf16:c=bf16) is timed with it;
#      with the library's bf16_c16 selector (the default header) that selector serves it;
#   3. scripts/gemm_deployed_tables.py per output type (tables-c16.md, tables-c32.md: geomean,
#      time-weighted, worst shapes, own-kernel share), scripts/gemm_out16_compare.py's
#      c16-vs-c32.md (FP32-C time / bf16-C time per library, same shapes) and run.json.draft.
# BUILD: a tree built by scripts/gpu_build_remote.sh (EXAMPLES=ON) with the targets ktune_gpu_tests
# tuned_gemm_bench [ktune_gpu_vendor_tc_tests], CMAKE_ARGS naming the bf16 selector, e.g.
#   -DKTUNE_CUDA_BF16_SELECTOR=<src>/libraries/gemm/selectors/h200-bf16-vendors-lt8-k16.hpp
# (and -DKTUNE_CUDA_BF16_C16_SELECTOR= , empty, to time 16-bit C on the bf16 selector as before).
# OUT_DIR: where everything lands (logs, CSVs, tables, run.json.draft).
#   BUILD=/tmp/b OUT_DIR=$OUT/out16 scripts/gpu_gemm_out16.sh
# The bf16_c16 selector in sample (large), held out (llm, vit) with 16-bit C only:
#   BUILD=/tmp/b OUT_DIR=$OUT/c16lib OUTPUTS=input DEADLINE_S=230 \
#     WORKLOADS='large@bf16:c=bf16 workloads/gemm/vit.csv@bf16:c=bf16 llm@bf16:c=bf16' \
#     scripts/gpu_gemm_out16.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/device_common.sh
built_tree_setup
left() { echo $((DEADLINE_S - SECONDS - 15)); }

# 1. Tests (at most 70 s + 20 s; the NVRTC kernels compile into KTUNE_CACHE_DIR on first use):
# the deployed library with 16-bit C (and its FP32-C check, the regression guard), the kernels'.
TESTS='TunedGemmEx.*16Bit*:TunedGemmEx.SixteenBit*:TunedGemmEx.BadOutput*:TunedGemmEx.OutputSpans*'
TESTS+=:TunedGemmEx.EveryShippedConfigMatchesTheReference
TESTS+=':MmaGemmTest.SixteenBit*:MmaGemmNvrtc.SixteenBit*:WgmmaGemmTest.SixteenBit*'
TESTS+=:TunedGemmEx.SixteenBitCSelectorsShipKindsThatStoreIt
run_gpu_tests --append 70 "$OUT_DIR/gpu-tests-out16.log" "$B/ktune_gpu_tests" \
  --gtest_filter="$TESTS"
if [ -x "$B/ktune_gpu_vendor_tc_tests" ]; then
  run_gpu_tests --append 20 "$OUT_DIR/gpu-tests-out16.log" "$B/ktune_gpu_vendor_tc_tests" \
    --gtest_filter='TunedGemmVendorTc.EveryShippedConfig*:TunedGemmVendorTc.SixteenBitC*:TunedGemmVendorTc.GemmExLaunches*'
fi

# 2. Benches: per workload bf16 C (what the run is for), then FP32 C on the same shapes, each
# within the time left (a cut run keeps its CSV rows: the comparison takes the shapes of both).
runs=()
for w in ${WORKLOADS:-large@bf16 llm@bf16}; do
  for out in ${OUTPUTS:-input fp32}; do
    t=$(left)
    [ "$t" -gt 10 ] || { echo "no time left for $w --output $out"; continue; }
    base=$(basename "${w%%@*}" .csv) variant=${w#*@}
    # bf16:c=bf16 -> bf16-c-bf16 (file names of plain characters)
    name=$base-${variant//[:=]/-}-c$([ "$out" = input ] && echo 16 || echo 32)
    start=$SECONDS
    # shellcheck disable=SC2086  # BENCH_ARGS: several options
    timeout "$t" "$B/tuned_gemm_bench" --device cuda --workload "$w" --output "$out" \
      --out "$OUT_DIR/deployed-$name.csv" ${BENCH_ARGS:---rep-budget-ms 10 --lt-top 0} \
      >> "$OUT_DIR/bench-$name.log" 2>&1
    rc=$? csv=$OUT_DIR/deployed-$name.csv
    rows=$([ -f "$csv" ] && echo $(($(wc -l < "$csv") - 1)) || echo 0)
    echo "bench $w --output $out exit $rc ($((SECONDS - start)) s), $rows shapes"
    [ "$rows" -gt 0 ] && runs+=("$name")
  done
done

# 3. Tables per output type, the C-type comparison, the run.json draft.
for c in c16 c32; do
  args=()
  for name in "${runs[@]}"; do
    # large: the training shapes of the bf16 selector (timed with FP32 C) and of the shipped
    # bf16_c16 one (16-bit C); the others held out.
    set=held-out
    [[ $name == large-* ]] && set=in-sample
    [[ $name == *-$c ]] && args+=(--run "$set-${name%-"$c"}=$OUT_DIR/deployed-$name.csv")
  done
  [ ${#args[@]} -gt 0 ] && python3 scripts/gemm_deployed_tables.py "${args[@]}" \
    --csv "$OUT_DIR/tables-$c.csv" --markdown "$OUT_DIR/tables-$c.md"
done
python3 scripts/gemm_out16_compare.py "$OUT_DIR" > "$OUT_DIR/c16-vs-c32.md"
python3 scripts/gemm_out16_compare.py --run-json "$OUT_DIR" > "$OUT_DIR/run.json.draft"
echo "total ${SECONDS} s"
