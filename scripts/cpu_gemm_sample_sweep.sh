#!/usr/bin/env bash
# CPU GEMM sweep behind the broader CPU selector (issue 13): the 126 `packed` configs (the 640
# `tile` ones never win on this CPU: the best packed config beats the best tile config on all 18
# dnn-small shapes, 3.5x geomean, in results/amd-epyc-2c/gemm-dnn-small.csv.gz) plus the vendor
# rows, over the `dnn-sample` workload, then `dnn-small` again with the same code (the held-out
# set of a selector trained on the sample). WORKLOADS may name workload CSVs too (their files'
# names without .csv name the stores and outputs). OpenBLAS runs its native kernel: OPENBLAS_CORETYPE and
# OPENBLAS_L2_SIZE are unset for the bench commands only (where that kernel is a generic fallback,
# the core scripts/openblas_core.sh forces, logged) (and OMP_NUM_THREADS=2, as in
# scripts/cpu_gemm_deployed.sh). The log records the OpenBLAS core, the load average before and
# after each part, the commit and the timing options.
#   scripts/cpu_gemm_sample_sweep.sh [OUT_DIR]   (default results/amd-epyc-2c)
# Env: KTUNE (default build/bin/ktune, a KTUNE_NATIVE build), STORE_DIR (scratch stores, default
# /tmp/ktune-sample-sweep; a rerun resumes them), WORKLOADS (default "dnn-sample dnn-small"),
# TIMING (extra ktune bench options, e.g. "--warmups 0 --min-reps 2"; recorded in the log),
# CONFIGS (default kind:packed), SUFFIX (appended to the output names, e.g. -packedz for the
# sweep of both packed kinds: gemm-dnn-sample-packedz.csv.gz, gemm-dnn-small-packedz.csv.gz and
# gemm-dnn-sample-packedz-sweep.log, so the first sweep's files stay as they were).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/amd-epyc-2c}
ktune=${KTUNE:-build/bin/ktune}
stores=${STORE_DIR:-/tmp/ktune-sample-sweep}
workloads=${WORKLOADS:-dnn-sample dnn-small}
timing=${TIMING:-}
configs=${CONFIGS:-kind:packed}  # a smaller set only for trying the script out
mkdir -p "$out" "$stores"
suffix=${SUFFIX:-}
log=${LOG:-"$out/gemm-dnn-sample$suffix-sweep.log"}  # LOG: another name, for other workloads
# OpenBLAS's native core, or the one scripts/openblas_core.sh forces where that is a generic one
# (OPENBLAS_CORE: its program, default beside KTUNE)
force=$(scripts/openblas_core.sh "${OPENBLAS_CORE:-$(dirname "$ktune")/openblas_core}" 2>>"$log")
bench() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $force OMP_NUM_THREADS=2 "$@"; }

{
  echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!results' || echo ' (+ uncommitted changes)')"
  echo "# ktune: $ktune; configs: $configs; timing options: ${timing:-defaults}"
  # awk reads all the output (grep -m1 would end the pipe early: SIGPIPE under pipefail).
  core=$(bench OPENBLAS_VERBOSE=2 "$ktune" bench --help 2>&1 | awk '/^Core:/ && !n++')
  echo "# OpenBLAS ${core:-core: not reported}"
} | tee -a "$log"
name_of() { basename "$1" .csv; }  # a workload CSV's name: workloads/gemm/dnn-heldout.csv -> dnn-heldout
for w in $workloads; do
  store="$stores/gemm-$(name_of "$w").sqlite"
  echo "# $(date -u +%T) $w start, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
  start=$(date +%s)
  # shellcheck disable=SC2086  # TIMING holds several options
  bench "$ktune" bench --family gemm --device cpu --workload "$w" --configs "$configs" \
    --store "$store" $timing 2>&1 | tail -3 | tee -a "$log"
  echo "# $(date -u +%T) $w done in $(($(date +%s) - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
done
# Export after all parts, so an interrupted run leaves the committed files alone.
for w in $workloads; do
  name=gemm-$(name_of "$w")$suffix
  # gemm-dnn-small.csv.gz is the first sweep
  [[ $w == dnn-small && -z $suffix ]] && name=gemm-dnn-small-packed
  "$ktune" export --store "$stores/gemm-$(name_of "$w").sqlite" --format csv -o "$out/$name.csv.gz"
  echo "# exported $out/$name.csv.gz: $(zcat "$out/$name.csv.gz" | tail -n +2 | wc -l) rows" | tee -a "$log"
done
