#!/usr/bin/env bash
# Whether ktune's own GEMM kernels start slower after another library's kernel, and whether the
# shared-memory carveout is why (docs/deploy.md: in turns with the vendors on an H200, each mma
# call took 1.3-3 us longer than back to back, cuBLASLt's nothing). From a built tree, for each
# workload and each carveout setting (unset: the driver's choice; a percent: exported as
# KTUNE_CUDA_SMEM_CARVEOUT), one tuned_gemm_bench run with the library, cuBLAS and cuBLASLt #0 in
# turns (--rounds 3) and --turns-probe 3 (each call after itself and after the other); then
# scripts/gemm_turns_probe.py over the logs (turns-probe.md) and scripts/gemm_deployed_tables.py
# per run (deployed-tables.md). A run that would pass DEADLINE_S (default 540) is skipped.
#   BUILD=/tmp/b OUT_DIR=... [WORKLOADS="dnn@bf16"] [CARVEOUTS="unset 100"] \
#     scripts/gpu_turns_probe.sh
# BUILD: scripts/gpu_build_remote.sh's build dir with tuned_gemm_bench (EXAMPLES=ON; the selector
# headers are the build's), whose BUILD.env is sourced. ~200 s per dnn run on an H200.
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
  for carveout in ${CARVEOUTS:-unset 100}; do
    name=${w//[@:=]/-}-carveout-$carveout
    left=$(( ${DEADLINE_S:-540} - ($(date +%s) - t0) ))
    (( left > 30 )) || { echo "skipped $name (deadline)"; continue; }
    s=$(date +%s)
    setting=(-u KTUNE_CUDA_SMEM_CARVEOUT)
    [[ $carveout == unset ]] || setting=("KTUNE_CUDA_SMEM_CARVEOUT=$carveout")
    env "${setting[@]}" timeout "$left" "$BUILD/bin/tuned_gemm_bench" --device cuda \
      --workload "$w" --lt-top 0 --rep-budget-ms 10 --rounds 3 --turns-probe 3 \
      --out "$OUT_DIR/$name.csv" > "$OUT_DIR/$name.log" 2>&1
    rc=$?
    echo "$name rc $rc ($(( $(date +%s) - s )) s)"
    (( rc == 0 )) || failed=$((failed + 1))
    logs+=("$OUT_DIR/$name.log")
    [[ -s $OUT_DIR/$name.csv ]] && runs+=(--run "$name=$OUT_DIR/$name.csv")
  done
done
((${#logs[@]})) || { echo "gpu_turns_probe.sh: nothing ran" >&2; exit 1; }
python3 scripts/gemm_turns_probe.py "${logs[@]}" > "$OUT_DIR/turns-probe.md"
if ((${#runs[@]})); then
  python3 scripts/gemm_deployed_tables.py "${runs[@]}" --csv "$OUT_DIR/deployed-tables.csv" \
    --markdown "$OUT_DIR/deployed-tables.md" --worst 5
fi
cat "$OUT_DIR/turns-probe.md"
(( failed == 0 )) || { echo "gpu_turns_probe.sh: $failed bench runs failed (their logs)" >&2; exit 1; }
