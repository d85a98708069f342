#!/usr/bin/env bash
# Deployed libraries against the vendors on a lent GPU machine, without tuning: tuned_gemm_bench
# built once per set of selector headers, then each run over a workload beside cuBLAS and
# cuBLASLt #0 in the same call (the benches of scripts/gpu_tune_device.sh, for headers made
# earlier: issue #27's own and multi-device libraries, docs/deploy.md "Adding a device").
#   SYSROOT=... SRC=src.tar.gz [W=/tmp/sb] [DEADLINE=epoch-s] \
#   RUNS='own:dnn multi:dnn vit:workloads/gemm/vit.csv@bf16' \
#     scripts/gpu_selector_benches.sh 'own=-DKTUNE_CUDA_SELECTOR=/path/own.hpp' ...
# Each argument NAME=CMAKE_ARGS builds W/bench-NAME (skipped where that file exists, e.g. a
# binary carried from another machine of the same image: same SRC and sysroot paths). RUNS: NAME:WORKLOAD
# in order, each into $OUT/deployed-NAME-TAG.csv (TAG: the workload's file name and precision),
# resumable (a NAME:WORKLOAD given again with BENCH_ARGS=--limit N takes turns: its log appends);
# each cut at DEADLINE. Small files go back as one tarball, the binaries beside it.
set -uo pipefail
W=${W:-/tmp/sb}
B=$W/build
BENCH_TIMING=${BENCH_TIMING:---min-reps 3 --max-reps 10 --rep-budget-ms 2}
deadline=${DEADLINE:-$(($(date +%s) + 540))}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$W/logs"
stamp() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$W/logs/phases.log"; }
save() {
  [ -n "${OUT:-}" ] || return 0
  (cd "$W/logs" && tar czf "$OUT/.partial.tar.gz" . && mv "$OUT/.partial.tar.gz" "$OUT/logs.tar.gz")
}
nvidia-smi > "$W/logs/nvidia-smi.txt" 2>&1
for spec in "$@"; do
  name=${spec%%=*}
  [ -x "$W/bench-$name" ] && { stamp "bench-$name present: not built"; continue; }
  stamp "build bench-$name"
  # Same build dir each time: a new header rebuilds only the tuned library and relinks.
  CMAKE_ARGS=${spec#*=} EXAMPLES=ON "$here/scripts/gpu_build_remote.sh" "$B" tuned_gemm_bench \
    > "$W/logs/build-$name.log" 2>&1 || { tail -20 "$W/logs/build-$name.log"; continue; }
  cp "$B/bin/tuned_gemm_bench" "$W/bench-$name"
  # Brought back for a later call on another card (KEEP_BINARIES: names).
  [[ -n "${OUT:-}" && " ${KEEP_BINARIES:-} " == *" $name "* ]] &&
    { strip -o "$OUT/bench-$name" "$W/bench-$name" || cp "$W/bench-$name" "$OUT/"; }
done
# The env file of gpu_build_remote.sh (sysroot libraries); with no build, written without one.
[ -f "$B.env" ] || ENV_ONLY=1 "$here/scripts/gpu_build_remote.sh" "$B" > /dev/null
# shellcheck disable=SC1090
. "$B.env"
save
for run in ${RUNS:-}; do
  name=${run%%:*} workload=${run#*:}
  tag=$(basename "$workload")
  tag=${tag/.csv/}
  tag=${tag//@/-}
  [ -x "$W/bench-$name" ] || { echo "no bench-$name"; continue; }
  t=$((deadline - $(date +%s) - 5))
  ((t < 5)) && { stamp "no time left for $name on $workload"; break; }
  stamp "bench $name on $workload (at most $t s)"
  # shellcheck disable=SC2086  # option list
  timeout "$t" "$W/bench-$name" --device cuda --workload "$workload" \
    --out "$W/logs/deployed-$name-$tag.csv" $BENCH_TIMING ${BENCH_ARGS:-} \
    >> "$W/logs/bench-$name-$tag.log" 2>&1
  head -1 "$W/logs/bench-$name-$tag.log"
  tail -1 "$W/logs/bench-$name-$tag.log"
  save
done
stamp "done"
save
ls -la "${OUT:-$W}"
