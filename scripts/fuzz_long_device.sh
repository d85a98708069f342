#!/usr/bin/env bash
# Long libFuzzer runs (issues 11 and 31) on the lent machine's 16 cores. The harnesses
# were built on the development machine (clang 14, Debian 12, glibc 2.36); the shared libraries
# they need besides glibc travel in lib/. First a probe: each harness over its seeds (-runs=0,
# leak check at exit); then N[h] workers per harness sharing one corpus directory for T seconds.
set -uo pipefail
C=.carry/fuzz
W=/tmp/fzrun
T=${T:-450}
mkdir -p $W/log $W/art "$OUT"
tar xJf $C/fuzz.tar.xz -C $W || { echo "untar failed"; exit 1; }
export LD_LIBRARY_PATH=$W/lib OMP_NUM_THREADS=1 UBSAN_OPTIONS=print_stacktrace=1
# H (harnesses), WORKERS (per harness) and N_<harness> (one harness) may be set; the defaults
# fill 16 cores.
H=${H:-"csv t4 kernel_tuner workload model safetensors family_file"}
{ date -u; uname -a; nproc; ldd --version | head -1; grep -m1 "model name" /proc/cpuinfo; free -g | head -2; } > $W/log/env.txt 2>&1
cat $W/log/env.txt
leaks=1
for h in $H; do
  [ -x $W/bin/fuzz_$h ] || { echo "no fuzz_$h"; continue; }
  ASAN_OPTIONS=detect_leaks=1 timeout 60 $W/bin/fuzz_$h -runs=0 $W/corpus/$h > $W/log/probe_$h.log 2>&1
  rc=$?; echo "probe $h rc=$rc: $(grep -E 'INITED|DONE|ERROR' $W/log/probe_$h.log | head -3 | tr '\n' ' ')"
  grep -q "LeakSanitizer has encountered a fatal error" $W/log/probe_$h.log && leaks=0
done
echo "leak detection: $leaks"
declare -A N=([csv]=2 [t4]=2 [kernel_tuner]=3 [workload]=1 [model]=1 [safetensors]=4 [family_file]=3)
for h in $H; do
  [ -x $W/bin/fuzz_$h ] || continue
  mkdir -p $W/work/$h
  ml=$(find $W/corpus/$h -type f -printf '%s\n' | sort -n | tail -n 1); ml=$(( ml > 4096 ? ml : 4096 ))
  [ -n "${WORKERS:-}" ] && N[$h]=$WORKERS
  v=N_$h; [ -n "${!v:-}" ] && N[$h]=${!v}  # per harness, e.g. N_model=3
  for w in $(seq 1 ${N[$h]}); do
    ASAN_OPTIONS=detect_leaks=$leaks timeout $((T + 45)) $W/bin/fuzz_$h -max_len=$ml -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -max_total_time=$T -seed=$((1000 * w + ${#h})) \
      -artifact_prefix=$W/art/$h-$w- $W/work/$h $W/corpus/$h > $W/log/$h-$w.log 2>&1 &
  done
done
wait
{
  echo "harness workers executions exec_per_s peak_rss_mb workers_with_findings"
  for h in $H; do
    ex=0; rss=0; f=0
    for l in $W/log/$h-*.log; do
      [ -f $l ] || continue
      e=$(awk '/^stat::number_of_executed_units:/{print $2}' $l); ex=$((ex + ${e:-0}))
      r=$(awk '/^stat::peak_rss_mb:/{print $2}' $l); [ "${r:-0}" -gt $rss ] && rss=$r
      echo "  $(basename $l): ${e:-none} executions, peak ${r:-?} MB, $(grep -E '^Done [0-9]+ runs' $l)" >&2
      grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|deadly signal|Test unit written' $l && f=$((f + 1))
    done
    echo "$h ${N[$h]} $ex $((ex / T)) $rss $f"
  done
} 2>&1 | tee $W/log/summary.txt
ls -la $W/art
for h in $H; do echo "$h corpus: $(ls $W/work/$h 2>/dev/null | wc -l) files"; done
tar czf "$OUT/logs.tar.gz" -C $W log art
tar czf "$OUT/corpus.tar.gz" -C $W work
cp $W/log/summary.txt "$OUT/"
