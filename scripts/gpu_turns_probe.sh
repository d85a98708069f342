#!/usr/bin/env bash
# Whether ktune's GEMM calls start slower after another library's kernel. From a built tree, for
# each workload one tuned_gemm_bench run with the library, cuBLAS and cuBLASLt #0 in turns
# (--rounds 3) and --turns-probe 3 (each call after itself and after the other); then
# scripts/gemm_turns_probe.py over the logs (turns-probe.md) and scripts/gemm_deployed_tables.py
# per run (deployed-tables.md). A run that would pass DEADLINE_S (default 540) is skipped. On an
# H200 (results/h200/gemm-turns-probe) own kernels ran 2 % slower after cuBLASLt than after
# themselves, as cuBLASLt after them: no start cost of own kernels alone (a shared-memory
# carveout request, tried then, changed nothing).
#   BUILD=/tmp/b OUT_DIR=... [WORKLOADS="dnn@bf16"] scripts/gpu_turns_probe.sh
# BUILD: scripts/gpu_build_remote.sh's build dir with tuned_gemm_bench (EXAMPLES=ON; the selector
# headers are the build's), whose BUILD.env is sourced. ~150 s per dnn run on an H200.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
: "${BUILD:?BUILD: the built tree}" "${OUT_DIR:?OUT_DIR: where the results go}"
# shellcheck disable=SC1090
. "$BUILD.env"
mkdir -p "$OUT_DIR"
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT_DIR/nvidia-smi.txt" 2>&1
logs=() runs=() failed=0
for w in ${WORKLOADS:-dnn@bf16}; do
  name=${w//[@:=\/]/-}
  left=$(( ${DEADLINE_S:-540} - ($(date +%s) - t0) ))
  (( left > 30 )) || { echo "skipped $name (deadline)"; continue; }
  s=$(date +%s)
  timeout "$left" "$BUILD/bin/tuned_gemm_bench" --device cuda --workload "$w" --lt-top 0 \
    --rep-budget-ms 10 --rounds 3 --turns-probe 3 --out "$OUT_DIR/$name.csv" > "$OUT_DIR/$name.log" 2>&1
  rc=$?
  echo "$name rc $rc ($(( $(date +%s) - s )) s)"
  (( rc == 0 )) || failed=$((failed + 1))
  logs+=("$OUT_DIR/$name.log")
  [[ -s $OUT_DIR/$name.csv ]] && runs+=(--run "$name=$OUT_DIR/$name.csv")
done
((${#logs[@]})) || { echo "gpu_turns_probe.sh: nothing ran" >&2; exit 1; }
python3 scripts/gemm_turns_probe.py "${logs[@]}" > "$OUT_DIR/turns-probe.md"
if ((${#runs[@]})); then
  python3 scripts/gemm_deployed_tables.py "${runs[@]}" --csv "$OUT_DIR/deployed-tables.csv" \
    --markdown "$OUT_DIR/deployed-tables.md" --worst 5
fi
cat "$OUT_DIR/turns-probe.md"
(( failed == 0 )) || { echo "gpu_turns_probe.sh: $failed bench runs failed (their logs)" >&2; exit 1; }
