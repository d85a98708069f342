#!/usr/bin/env bash
# The H200 tf32 header with every leaf feature boxed (h200-tf32-vendors-lt8-boxall-k16.hpp,
# --leaf-box-all) deployed, on a build made beforehand, within DEADLINE_S (default 190):
#   BUILD=/tmp/b OUT_DIR=<dir> scripts/gpu_tc_tf32_boxall.sh
# BUILD: EXAMPLES=ON scripts/gpu_build_remote.sh /tmp/b ktune_gpu_tests tuned_gemm_bench with
#   CMAKE_ARGS='-DKTUNE_CUDA_TF32_SELECTOR=<src>/libraries/gemm/selectors/h200-tf32-vendors-lt8-boxall-k16.hpp
#   -DKTUNE_CUDA_BF16_SELECTOR=<src>/libraries/gemm/selectors/h200-bf16-vendors-lt8-k16.hpp'
#   (checked here: a build of another tf32 header would measure that one).
# Runs the GPU tests TunedGemmEx* (every shipped config of the tf32 and bf16 headers vs float64),
# then tuned_gemm_bench per WORKLOADS (default: the ViT shapes, in no H200 tf32 sweep, then llm,
# the training's held-out workload, then large, in sample), each in the time left, against cuBLAS
# and cuBLASLt's #0 in the same run (LT_TOP default 0: no top-8 search), and writes the tables
# (scripts/gemm_deployed_tables.py) and a run.json draft beside the CSVs and logs in OUT_DIR.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
start=$(date +%s)
limit=${DEADLINE_S:-190}
if [ -z "${BUILD:-}" ] || [ -z "${OUT_DIR:-}" ]; then
  echo "gpu_tc_tf32_boxall.sh: set BUILD and OUT_DIR" >&2
  exit 2
fi
grep -qs 'KTUNE_CUDA_TF32_SELECTOR.*h200-tf32-vendors-lt8-boxall-k16.hpp' "$BUILD/CMakeCache.txt" ||
  { echo "gpu_tc_tf32_boxall.sh: $BUILD was not built with the boxall tf32 header" >&2; exit 2; }
# gpu_tc_deployed.sh resumes a CSV left in its work dir: an earlier run's picks must not count.
W=/tmp/tc-deployed
[ -e "$W" ] && mv "$W" "$W.before-$$"
mkdir -p "$OUT_DIR"
export BUILD OUT=$OUT_DIR LT_TOP=${LT_TOP:-0} BENCH_ARGS=${BENCH_ARGS:---rep-budget-ms 10}
PHASES=tests TESTS_FILTER='TunedGemmEx*' TESTS_SECONDS=60 scripts/gpu_tc_deployed.sh
runs=()
for w in ${WORKLOADS:-workloads/gemm/vit.csv@tf32 llm@tf32 large@tf32}; do
  left=$((limit - ($(date +%s) - start) - 15))
  [ "$left" -gt 20 ] || { echo "no time left for $w"; break; }
  PHASES=bench WORKLOADS=$w BENCH_SECONDS=$left scripts/gpu_tc_deployed.sh
  base=$(basename "${w%%@*}" .csv)
  case $base in  # the header's training workloads: dnn and large
    dnn | large) set=in-sample-$base ;;
    *) set=held-out-$base ;;
  esac
  [ -f "$W/deployed-$base-${w#*@}.csv" ] && runs+=(--run "$set=$W/deployed-$base-${w#*@}.csv")
done
cp "$W"/* "$OUT_DIR"/
data=results/h200/tc-tf32-lt8/gemm-tc-tf32.csv.xz  # the oracle column, where the sweep is here
[ -f "$data" ] && runs+=(--data "$data")
python3 scripts/gemm_deployed_tables.py "${runs[@]}" --csv "$OUT_DIR/deployed-tables.csv" \
  --markdown "$OUT_DIR/deployed-tables.md"
# A draft run.json: the figures are the tables' rows (the coordinator adds the commit).
python3 - "$OUT_DIR" "$(($(date +%s) - start))" <<'PY'
import json, os, sys
out, seconds = sys.argv[1], sys.argv[2]
rows = []  # the summary table: the file's first, up to its first blank line
for line in open(os.path.join(out, "deployed-tables.md")):
    if not line.strip():
        break
    if line.startswith("| ") and not line.startswith("| set"):
        rows.append(line)
smi = open(os.path.join(out, "nvidia-smi.txt")).read().splitlines()
json.dump({
    "command": "BUILD=/tmp/b OUT_DIR=<dir> scripts/gpu_tc_tf32_boxall.sh (" + seconds + " s; BUILD: "
               "EXAMPLES=ON scripts/gpu_build_remote.sh /tmp/b ktune_gpu_tests tuned_gemm_bench, "
               "the tf32 selector h200-tf32-vendors-lt8-boxall-k16.hpp, bf16 h200-bf16-vendors-lt8-k16.hpp)",
    "commit": "<commit of the source archive>",
    "date": "<date>",
    "device": smi[1] if len(smi) > 1 else "<GPU>",
    "measures": "ktune::gemm_ex tf32 with h200-tf32-vendors-lt8-boxall-k16.hpp vs the faster of cuBLAS "
                "and cuBLASLt #0, same run, verified (set | shapes | geomean | time-weighted | below "
                "0.8x | worst | % of oracle | below 0.9x | own shapes | own time): "
                + " ; ".join(r.strip() for r in rows),
    "files": sorted(f for f in os.listdir(out) if f != "tc-deployed.tar.gz"),
    "in_sample": None,
    "note": "held-out-vit: in no H200 tf32 sweep; held-out-llm: the training's held-out workload "
            "(the rule's form was chosen after seeing its loser); in-sample-large: training rows",
    "vendors": ["cublas (cublasGemmStridedBatchedEx_64, CUBLAS_COMPUTE_32F_FAST_TF32)",
                "cublaslt (heuristic #0, 32 MiB workspace)"],
}, open(os.path.join(out, "run.json"), "w"), indent=1)
PY
echo "total $(($(date +%s) - start)) s"
