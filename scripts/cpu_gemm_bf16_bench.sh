#!/usr/bin/env bash
# CPU GEMM in bf16 (issue 30, item 2): the packedz kind's bf16 kernels (AVX512_BF16, vdpbf16ps)
# against oneDNN's bf16 matmul on a dozen dnn-sample shapes (rows 1, 5 and 9 of each FLOP class:
# both transposes, batched and not), all in precision bf16 (bf16 A and B, FP32 accumulation and
# C). Configs: every packedz tile ×
# kc × mc with pa = pb = 1 (the bf16 kernels always pack both operands, so pa / pb would only
# repeat them): 36 configs, plus the vendor rows (OpenBLAS is refused: Debian's build exports no
# cblas_sbgemm). Prints ktune's best config per shape against oneDNN and the fastest vendor
# (scripts/gemm_precision_ratios.py), then the oneDNN implementation each shape ran (one
# separate untimed pass under ONEDNN_VERBOSE, so verbose printing never enters a timed run).
# The sweep stops starting measurements after BUDGET_MS (default 240000: the whole script stays
# under 5 minutes; the log's count line says whether every measurement ran). OpenBLAS runs its native kernel
# (OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE unset for the bench commands, OMP_NUM_THREADS=2, as in
# scripts/cpu_gemm_sample_sweep.sh).
#   scripts/cpu_gemm_bf16_bench.sh [OUT_DIR]   (default /tmp/ktune-bf16-bench: store, export, log)
# Env: KTUNE (default build/bin/ktune, a KTUNE_NATIVE build), TIMING (extra ktune bench options,
# recorded in the log), BUDGET_MS.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/ktune-bf16-bench}
ktune=${KTUNE:-build/bin/ktune}
timing=${TIMING:-}
budget_ms=${BUDGET_MS:-240000}
mkdir -p "$out"
log="$out/gemm-bf16-bench.log"
bench() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=2 "$@"; }
if ! grep -qw avx512_bf16 /proc/cpuinfo; then
  echo "cpu_gemm_bf16_bench.sh: this CPU has no avx512_bf16: the bf16 kernels are refused here" >&2
  exit 1
fi

# The shapes: header, then rows 1, 5 and 9 after each class comment of dnn-sample.
csv="$out/dnn-sample12.csv"
awk '/^transa/ {print; next} /^#/ {n = 0; next} n % 4 == 0 && n < 12 {print} {n++}' \
  workloads/gemm/dnn-sample.csv >"$csv"
configs=""
for tile in 16x12 32x6 32x8 32x12 48x8 64x6; do
  for kc in 128 256 512; do
    for mc in 192 384; do
      configs+="${configs:+,}kind=packedz;mr=${tile%x*};nr=${tile#*x};kc=$kc;mc=$mc;nc=3072;pa=1;pb=1"
    done
  done
done
store="$out/gemm-bf16.sqlite"
rm -f "$store"
{
  echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!results' || echo ' (+ uncommitted changes)')"
  echo "# $(/usr/bin/python3 scripts/cpu_model.py); ktune: $ktune; timing options: ${timing:-defaults}, budget ${budget_ms} ms"
  echo "# $(date -u +%T) start, load $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$log"
start=$(date +%s)
# shellcheck disable=SC2086  # TIMING holds several options
bench "$ktune" bench --family gemm --device cpu --workload "$csv@bf16" --configs "$configs" \
  --store "$store" --budget-ms "$budget_ms" $timing 2>&1 | tail -3 | tee -a "$log"
echo "# $(date -u +%T) done in $(($(date +%s) - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
"$ktune" export --store "$store" --format csv -o "$out/gemm-bf16.csv.gz"
python3 scripts/gemm_precision_ratios.py "$out/gemm-bf16.csv.gz" --worst 12 | tee -a "$log"

# What oneDNN ran per shape (implementation name), from an untimed pass: one config, one run.
echo "# oneDNN bf16 matmul implementations (ONEDNN_VERBOSE, untimed pass):" | tee -a "$log"
bench ONEDNN_VERBOSE=1 "$ktune" bench --family gemm --device cpu --workload "$csv@bf16" \
  --configs "${configs%%,*}" --store "$out/verbose.sqlite" --warmups 0 --min-reps 1 \
  --max-reps 1 2>&1 | awk -F, '/^onednn_verbose,exec,cpu,matmul/ {print $5, $6, $(NF-1)}' |
  sort | uniq -c | tee -a "$log"
rm -f "$out/verbose.sqlite"
