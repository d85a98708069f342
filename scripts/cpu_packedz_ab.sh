#!/usr/bin/env bash
# Before/after sweep of the packedz kind (issue #26, CPU side): two ktune binaries (the kernels
# before and after a change) sweep the same workload CSVs with the vendor rows, in alternating
# shards (shard i: before then after for even i, after then before for odd i), so that both
# sides and their own OpenBLAS / oneDNN rows share each stretch of the machine's time. Each
# binary's store is exported to OUT_DIR/<workload>-<side>.csv.gz; scripts/cpu_gemm_kind_oracles.py
# then gives each side's packedz oracle against the faster vendor of its own run.
#   scripts/cpu_packedz_ab.sh OUT_DIR BEFORE_KTUNE AFTER_KTUNE WORKLOAD.csv...
# Env: SHARDS (default 3), CONFIGS (default kind:packedz; "pa1" = the kind's 72 configs with
# pa = 1, the whole space for shapes with transa = 1, whose A the kernel always packs), TIMING
# (default "--warmups 0 --min-reps 2 --rep-budget-ms 10", the sweeps' of results/amd-epyc-2c),
# STORE_DIR (default /tmp/ktune-packedz-ab). OpenBLAS runs its native kernel (OPENBLAS_CORETYPE
# and OPENBLAS_L2_SIZE unset for the bench commands), OMP_NUM_THREADS=THREADS (default 2). The
# log records the load average around each part.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 4 ]] || { echo "usage: $0 OUT_DIR BEFORE_KTUNE AFTER_KTUNE WORKLOAD.csv..." >&2; exit 2; }
out=$1 before=$2 after=$3
shift 3
# Inputs checked before anything is written (a bad one: one line naming it, exit 2).
for pair in "BEFORE_KTUNE:$before" "AFTER_KTUNE:$after"; do
  [[ -x ${pair#*:} && ! -d ${pair#*:} ]] ||
    { echo "error: ${pair%%:*} '${pair#*:}' is not an executable file" >&2; exit 2; }
done
for w in "$@"; do
  [[ -f $w && -r $w ]] || { echo "error: workload '$w' is not a readable file" >&2; exit 2; }
done
shards=${SHARDS:-3}
timing=${TIMING:---warmups 0 --min-reps 2 --rep-budget-ms 10}
stores=${STORE_DIR:-/tmp/ktune-packedz-ab}
configs=${CONFIGS:-kind:packedz}
threads=${THREADS:-2}
if [[ $configs == pa1 ]]; then
  list=()
  for tile in 16x12 32x6 32x8 32x12 48x8 64x6; do
    for kc in 128 256 512; do
      for mc in 192 384; do
        for pb in 0 1; do
          list+=("kind=packedz;mr=${tile%x*};nr=${tile#*x};kc=$kc;mc=$mc;nc=3072;pa=1;pb=$pb")
        done
      done
    done
  done
  configs=$(IFS=,; echo "${list[*]}")
fi
mkdir -p "$out" "$stores"
log=$out/sweep.log
bench() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS="$threads" "$@"; }
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD); before $before, after $after; shards $shards; threads $threads; timing $timing; configs ${CONFIGS:-kind:packedz}" | tee -a "$log"
# awk reads all the output (grep -m1 would end the pipe early: SIGPIPE under pipefail).
core=$(bench OPENBLAS_VERBOSE=2 "$after" bench --help 2>&1 | awk '/^Core:/ && !n++')
echo "# OpenBLAS ${core:-core: not reported}; CPU: $(python3 scripts/cpu_model.py)" | tee -a "$log"
for w in "$@"; do
  name=$(basename "$w" .csv)
  for ((i = 0; i < shards; i++)); do
    sides=(before after)
    ((i % 2 == 1)) && sides=(after before)
    for side in "${sides[@]}"; do
      bin=$before
      [[ $side == after ]] && bin=$after
      echo "# $(date -u +%T) $name shard $i/$shards $side, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
      # shellcheck disable=SC2086  # TIMING holds several options
      bench "$bin" bench --family gemm --device cpu --workload "$w" --configs "$configs" \
        --shard "$i/$shards" --store "$stores/$name-$side.sqlite" $timing 2>&1 | tail -1 | tee -a "$log"
    done
  done
  for side in before after; do
    "$after" export --store "$stores/$name-$side.sqlite" --format csv -o "$out/$name-$side.csv.gz"
  done
done
echo "# $(date -u +%T) done, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
