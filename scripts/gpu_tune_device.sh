#!/usr/bin/env bash
# A GPU as a new device (issue #27, docs/deploy.md "Adding a device"), on a lent GPU machine:
#   ktune tune-device (model search from the other GPU's data, then the kept configs on
#   every problem), the device's own package and the multi-device package (the new GPU + the
#   prior's GPU); an exhaustive sweep of dnn-sample (while the benchmarks build);
#   then tuned_gemm_bench over a workload with each package's selector (own, multi), each
#   beside cuBLAS and cuBLASLt's heuristic #0 in the same run.
#   SYSROOT=... PRIOR=h100.csv.gz W=/tmp/td [DEADLINE=epoch-s] \
#     scripts/gpu_tune_device.sh       (run from the extracted source: it builds its own checkout)
# PRIOR: the other GPU's exported dataset of the space searched (prior and shipped beside).
# Writes under W (stores, packages, logs) and copies what comes back into $OUT as one tarball.
# Resumable on a warm machine (a second call with the same W and B goes on where the first was
# cut): the build and tune-device are skipped once done; the stores and the benches' CSVs keep
# every measurement made (tune-device's search counts what is stored against its budget, its
# completion skips what is stored).
set -uo pipefail
W=${W:-/tmp/td}
B=${B:-/tmp/b}
WORKLOAD=${WORKLOAD:-dnn}
SPACE=${SPACE:-kind:tiled,kind:splitk,kind:warp,kind:warpsplit}
RECIPE=${RECIPE:---budget 8 --complete --k 12 --pruner cover --selector tree-b --vendors --min-vote-share 0.6}
TIMING="--warmups 0 --min-reps 3 --max-reps 10 --rep-budget-ms 1 --timeout-ms 1000"
BENCH_TIMING=${BENCH_TIMING:---min-reps 3 --max-reps 10 --rep-budget-ms 2}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$W"
export KTUNE_CACHE_DIR=$W/cache  # NVRTC cache: shared by the search, the completion and the sweep
stamp() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$W/phases.log"; }
deadline=${DEADLINE:-$(( $(date +%s) + 540 ))}
save() {  # what is done so far into $OUT (atomically: a call cut at its limit keeps the last)
  [ -n "${OUT:-}" ] || return 0
  (cd "$W" && tar czf "$OUT/.partial.tar.gz" --exclude=cache --exclude='*.sqlite' \
    --exclude='bench-own' --exclude='bench-multi' --exclude=ktune . &&
    mv "$OUT/.partial.tar.gz" "$OUT/tune-device.tar.gz")
}

build_benches() {  # one tuned_gemm_bench per package's selector header
  for v in own multi; do
    header=$(find "$W/$v/selectors" -name gemm.hpp 2>/dev/null | head -1)
    [ -n "$header" ] || { echo "no $v header"; continue; }
  [ -x "$W/bench-$v" ] && continue
    CMAKE_ARGS="-DKTUNE_CUDA_SELECTOR=$header" EXAMPLES=ON \
      "$here/scripts/gpu_build_remote.sh" "$B" tuned_gemm_bench > "$W/build-$v.log" 2>&1 &&
      cp "$B/bin/tuned_gemm_bench" "$W/bench-$v"
  done
}

stamp build ktune
[ -x "$B/bin/ktune" ] || EXAMPLES=ON "$here/scripts/gpu_build_remote.sh" "$B" ktune || exit 1
# shellcheck disable=SC1090
. "$B.env"
cp "$B/bin/ktune" "$W/ktune"  # the benches' builds below may relink the one in B
K=$W/ktune
nvidia-smi > "$W/nvidia-smi.txt" 2>&1
stamp tune-device
# Its log goes to $OUT as it is written: a call cut at its limit still says how far it got (the
# first H200 call, 2026-11-27, spent over 5 minutes here compiling the searched configs for all
# four transposes; a session now compiles its round's configs for its own transposes only).
log=${OUT:-$W}/tune-device.log
model=$W/multi/new-device-model.json
# shellcheck disable=SC2086  # option lists
[ -f "$model" ] ||
  $K tune-device --family gemm --device cuda:0 --workload "$WORKLOAD" \
  --store "$W/new.sqlite" --configs "$SPACE" $TIMING $RECIPE --prior "${PRIOR:?}" \
  --with "$PRIOR" --backends cuda --name gemm_gpus -o "$W/multi" 2>&1 | tee "$log" | grep -v '^bench ' | tail -4
[ "$log" = "$W/tune-device.log" ] || cp "$log" "$W/tune-device.log"
# What NVRTC compiled (the cache keys name each instantiation): tiled and warp kernels per
# transpose pair, only the pairs the workload's problems use.
grep -a -h '^expr ktune_gemm_\(tiled\|warp\)<' "$KTUNE_CACHE_DIR"/nvrtc/*.cubin 2>/dev/null |
  sed 's/.*,\([01]\),\([01]\)>$/transa=\1 transb=\2/' | sort | uniq -c > "$W/nvrtc-instantiations.txt"
if [ ! -f "$W/multi/selectors/gemm.hpp" ] && [ -f "$model" ]; then
  stamp "multi-device deploy refused; again without the unsure rule"
  $K train --data "$W/new.sqlite" --family gemm --selector tree-b --norm cutoff \
    --configs "$model.configs.txt" --seed 0 --vendors -o "$W/norule.json" >> "$W/tune-device.log" 2>&1
  model=$W/norule.json
  $K deploy --model "$model" --data "$PRIOR" --k 12 --pruner cover --selector tree-b --vendors \
    --backends cuda --name gemm_gpus -o "$W/multi" >> "$W/tune-device.log" 2>&1
fi
$K deploy --model "$model" --backends cuda --name gemm_new -o "$W/own" > "$W/deploy-own.log" 2>&1
$K export --store "$W/new.sqlite" --format csv -o "$W/new.csv.gz"
save
stamp "build the benches (background)"
build_benches &
builder=$!
# The sweep gets what is left of DEADLINE (epoch seconds) less BENCH_RESERVE seconds.
left_ms=$(( (deadline - $(date +%s) - ${BENCH_RESERVE:-80}) * 1000 ))
sample_ms=$(( left_ms < ${SAMPLE_MS:-200000} ? left_ms : ${SAMPLE_MS:-200000} ))
(( sample_ms < 20000 )) && sample_ms=20000
stamp "exhaustive sample sweep (at most $sample_ms ms)"
# shellcheck disable=SC2086
$K bench --family gemm --device cuda:0 --workload dnn-sample --configs "$SPACE" $TIMING \
  --store "$W/sample.sqlite" --budget-ms "$sample_ms" > "$W/sample.log" 2>&1
tail -2 "$W/sample.log"
$K export --store "$W/sample.sqlite" --format csv -o "$W/sample.csv.gz"
save
stamp "wait for the benches' builds"
wait $builder
n=2
for v in own multi; do
  [ -x "$W/bench-$v" ] || { tail -5 "$W/build-$v.log"; n=$((n - 1)); continue; }
  # Each bench gets its share of what is left (its CSV keeps every shape done: resumable).
  t=$(( (deadline - $(date +%s) - 8) / n ))
  n=$((n - 1))
  (( t < 5 )) && t=5
  stamp "bench $v (at most $t s)"
  # shellcheck disable=SC2086
  timeout "$t" "$W/bench-$v" --device cuda --workload "$WORKLOAD" --out "$W/deployed-$v.csv" \
    $BENCH_TIMING > "$W/bench-$v.log" 2>&1
  head -3 "$W/bench-$v.log"
  save
done
stamp "done"
save
