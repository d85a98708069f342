#!/usr/bin/env bash
# Deployed check of CPU GEMM selectors on shapes they were not trained on (issue 13): runs
# tuned_gemm_bench binaries built with different CPU selectors (KTUNE_CPU_SELECTOR) on the 40
# `dnn-heldout` shapes (workloads/gemm/dnn-heldout.csv: neither in dnn-sample nor dnn-small) and
# on `dnn-small`, taking turns per workload so that load drifts hit all of them alike. Each row
# times the library and the vendors in the same run, in ROUNDS rounds (default 3) that each start
# with the next library, each side's time the median of its rounds (tuned_gemm_bench --rounds;
# every round's times in OUT_DIR/rounds-cpu-<NAME>-<workload>.csv). OpenBLAS runs its native kernel
# (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset for these commands only), or where that is a
# generic fallback the core scripts/openblas_core.sh forces after its float64 check (the log says
# which; the CSVs' openblas_kernel column says "(forced)"; OPENBLAS_CORE: its program, default
# build/bin/openblas_core). Then the per-set
# summary of scripts/gemm_deployed_tables.py (in-run deployed / vendor), scripts/gemm_rounds_summary.py
# (each side's median of rounds and fastest round, stalled turns) and the selectors'
# deployed GFLOP/s against BASE's (scripts/cpu_gemm_selector_compare.py; default: the first NAME).
#   [BASE=NAME] [WORKLOADS="w1 w2"] [ROUNDS=3] scripts/cpu_gemm_heldout_bench.sh OUT_DIR NAME=BENCH_BINARY...
# WORKLOADS: builtin names or CSV files (default: workloads/gemm/dnn-heldout.csv dnn-small).
# writes OUT_DIR/deployed-cpu-<NAME>-<workload>.csv, OUT_DIR/deployed-cpu-heldout.{csv,md},
# OUT_DIR/rounds-summary.{csv,md},
# OUT_DIR/selectors.md and appends the load average and times to OUT_DIR/deployed-cpu-heldout.log.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 OUT_DIR NAME=BENCH_BINARY..." >&2; exit 2; }
cd "$(dirname "$0")/.."
out=$1
shift
mkdir -p "$out"
log="$out/deployed-cpu-heldout.log"
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD), ${ROUNDS:-3} rounds" | tee -a "$log"
force=$(scripts/openblas_core.sh "${OPENBLAS_CORE:-build/bin/openblas_core}" 2> >(tee -a "$log" >&2))
runs=() round_runs=() names=()
for pair in "$@"; do names+=("${pair%%=*}"); done
base=${BASE:-${names[0]}}
for workload in ${WORKLOADS:-workloads/gemm/dnn-heldout.csv dnn-small}; do
  tag=$(basename "$workload" .csv)
  for pair in "$@"; do
    name=${pair%%=*} bench=${pair#*=}
    csv="$out/deployed-cpu-$name-$tag.csv"
    rounds_csv="$out/rounds-cpu-$name-$tag.csv"
    rm -f "$csv" "$rounds_csv"  # tuned_gemm_bench appends (resumes): a fresh file per run
    echo "# $(date -u +%T) $name on $tag, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $force OMP_NUM_THREADS=2 "$bench" --device cpu --workload "$workload" \
      --out "$csv" --rounds "${ROUNDS:-3}" --rounds-out "$rounds_csv" 2>&1 | awk '/^vendor /{print; next} {last=$0} END{print last}' | tee -a "$log"
    runs+=(--run "$name-$tag=$csv")
    round_runs+=(--run "$name-$tag=$rounds_csv")
  done
done
echo "# $(date -u +%T) done, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
python3 scripts/gemm_deployed_tables.py "${runs[@]}" --csv "$out/deployed-cpu-heldout.csv" \
  --markdown "$out/deployed-cpu-heldout.md"
# Each side's fastest round beside its median, and the stalled turns (this guest's spread).
python3 scripts/gemm_rounds_summary.py "${round_runs[@]}" --csv "$out/rounds-summary.csv" \
  --markdown "$out/rounds-summary.md"
others=()
for name in "${names[@]}"; do [[ $name == "$base" ]] || others+=("$name"); done
if [[ ${#others[@]} -gt 0 ]]; then  # one selector alone: nothing to compare
  python3 scripts/cpu_gemm_selector_compare.py "$out" "$base" "${others[@]}" --markdown "$out/selectors.md"
fi
