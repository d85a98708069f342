#!/usr/bin/env bash
# ktune::gemm_ex's host cost per call on its cuBLASLt path (issues #24 / #26) on a lent GPU, from a
# built tree: the stream-query and cuBLASLt GPU tests (StreamQueries.*, TunedGemmVendorTcLt.*),
# then RUNS (default 3) runs of tuned_gemm_bench --host-call-cost (each: tf32 / bf16 / fp16 at
# 128x128x128 NN on a created stream and on the null stream, the library's call beside its steps
# composed with session 15's runtime stream queries and with the library's own, the bare plan and
# cublasLtMatmul; then each step alone) on a one-shape bf16 workload (128x128x128, verified as
# every bench shape is), summarized by scripts/host_call_cost_summary.py, and a run.json draft:
# 8 files in OUT_DIR with RUNS=3 (the device tool's limit on files back). ~20-40 s on an H200.
#   BUILD=/tmp/b OUT_DIR=... [COMMIT=abc1234] scripts/gpu_host_call_cost.sh
# BUILD: scripts/gpu_build_remote.sh's build dir, EXAMPLES=ON, targets tuned_gemm_bench and
# ktune_gpu_vendor_tc_tests (its BUILD.env is sourced).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
: "${BUILD:?BUILD: the built tree}" "${OUT_DIR:?OUT_DIR: where the results go}"
# shellcheck disable=SC1090
. "$BUILD.env"
mkdir -p "$OUT_DIR"
B=$BUILD/bin
nvidia-smi > "$OUT_DIR/nvidia-smi.txt" 2>&1
timeout 120 "$B/ktune_gpu_vendor_tc_tests" --gtest_filter='StreamQueries.*:TunedGemmVendorTcLt.*' \
  > "$OUT_DIR/gpu-tests-hostcost.log" 2>&1
echo "gpu tests rc $? ($(grep -E '^\[  (PASSED|FAILED) ' "$OUT_DIR/gpu-tests-hostcost.log" | tr '\n' ' '))"
work=$(mktemp -d)
printf 'transa,transb,m,n,k,batch\n0,0,128,128,128,1\n' > "$work/one-128.csv"
logs=()
for r in $(seq 1 "${RUNS:-3}"); do
  log=$OUT_DIR/host-call-cost-$r.log
  timeout 60 "$B/tuned_gemm_bench" --device cuda --host-call-cost \
    --workload "$work/one-128.csv@bf16" --out "$work/bench-$r.csv" > "$log" 2>&1
  echo "bench run $r rc $?"
  logs+=("$log")
done
# The first run's deployed-vs-vendor row of its one shape (each run measures it again).
cp "$work/bench-1.csv" "$OUT_DIR/deployed-128-bf16.csv" 2>/dev/null
rm -rf "$work"
python3 scripts/host_call_cost_summary.py "${logs[@]}" > "$OUT_DIR/host-call-cost.md" || exit 1
cat "$OUT_DIR/host-call-cost.md"
device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1 |
  sed 's/, / (driver /; s/$/)/')
OUT_DIR=$OUT_DIR DEVICE=$device COMMIT=${COMMIT:-unknown} python3 - <<'PY'
import json, os
out = os.environ["OUT_DIR"]
files = sorted(f for f in os.listdir(out) if f != "run.json")
json.dump({
    "command": "BUILD=... OUT_DIR=... scripts/gpu_host_call_cost.sh (RUNS=3)",
    "commit": os.environ["COMMIT"],
    "date": __import__("datetime").date.today().isoformat(),
    "device": os.environ["DEVICE"],
    "measures": "host cost per ktune::gemm_ex call on its cuBLASLt path, 128x128x128 NN, us per "
                "call on the host (host-call-cost.md: the library's call, its steps composed "
                "with session 15's runtime stream queries and with the library's own, the bare "
                "plan and cublasLtMatmul; each step alone in ns)",
    "files": files,
    "in_sample": None,
    "vendors": ["cublaslt (heuristic #0, 32 MiB workspace; the library's call passes the same)"],
}, open(os.path.join(out, "run.json"), "w"), indent=2)
PY
