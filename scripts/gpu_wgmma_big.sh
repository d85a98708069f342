#!/usr/bin/env bash
# The Hopper GEMM kinds (wgmma, wgmmapp, wgmmamc) against cuBLAS / cuBLASLt on 8192^3 and on `large`, on
# the lent GPU machine in one call, writing under $OUT as it goes (a timeout keeps what is done):
#   build  scripts/gpu_build_remote.sh of ktune and ktune_gpu_tests into BUILD
#   sass   nvcc -Xptxas -v report and SASS instruction mix of aot_check_wgmma.cu (sm_90a)
#   tests  the GPU tests of TESTS_FILTER (default Wgmma*)
#   big    8192^3 NN, NT and TN in bf16 and fp16 (BIG_PRECISIONS): every config of CONFIGS
#          (default kind:wgmma,kind:wgmmapp; BIG_CONFIGS for fewer) + cuBLAS, cuBLASLt heuristic and best of its top 8,
#          same precision, same run, 2 warm-ups and 10-20 timed runs each
#   retime ktune retime of the big phase's store: per shape the configs within 15 % of the best
#          (at most 4) and the vendor rows timed again in RETIME_ROUNDS (default 12) rotating
#          interleaved rounds of 3 runs (after 1 warm-up), each turn verified: a gap measured as
#          one config after another, then the vendors, is not an order or clock effect
#          (big8192-<precision>-retimed-vs-vendor.md, the store exported again)
#   large  LARGE_WORKLOADS (default large@bf16) x CONFIGS + the vendors, the sweep's timing flags
#   ncu    Nsight Compute of the fastest config of kind NCU_KIND (default wgmmapp) of 8192^3 NN
#          bf16 and of cuBLAS there (the regex names bf16 kernels: the float64 reference the bench
#          verifies with is an xmma kernel too)
#   ncumem Nsight Compute metrics (NCU_METRICS: duration, DRAM bytes read and written, L2 hit rate,
#          SM and issue throughput, clock) of 8192^3 NN bf16 for each config of NCU_CONFIGS
#          (default: the big phase's fastest NN bf16 config of kind wgmmats and of the other
#          kinds) and of cuBLAS's kernel, one CSV each (ncumem-<kind-params>.csv, ncumem-cublas.csv)
# Every file goes to W; after each phase W is packed into $OUT/wgmma-big.tar.gz (the device tool
# brings back few files, none with '@' in its name).
# Run from a checkout:  SYSROOT=.carry/sys/sysroot.tar.gz SRC=... OUT=... scripts/gpu_wgmma_big.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-/tmp/kt-build}
OUT=${OUT:-/tmp/ktune-out}
W=/tmp/wgmma-big-out
STORE=/tmp/wgmma-big.sqlite
CONFIGS=${CONFIGS:-kind:wgmma,kind:wgmmapp}
mkdir -p "$OUT" "$W"
pack() { tar czf "$OUT/wgmma-big.tar.gz" -C "$W" .; }
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-cache}
PHASES=${PHASES:-build sass tests big large ncu}
# shellcheck source=scripts/device_common.sh
. scripts/device_common.sh
gpu_info "$W/nvidia-smi.txt"
pack
if has build; then
  start=$(date +%s)
  scripts/gpu_build_remote.sh "$BUILD" ktune ktune_gpu_tests || exit 1
  echo "build: $(($(date +%s) - start)) s"
fi
# shellcheck disable=SC1090
. "$BUILD.env"
B=$BUILD/bin
src=${SRC:+/tmp/kt-src}
src=${src:-.}

pack
if has sass; then
  nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a -cubin -I"$src" -Xptxas -v \
    -o /tmp/wgmma.cubin "$src/kernels/gemm/cuda/aot_check_wgmma.cu" > "$W/ptxas.txt" 2>&1
  grep -cE "spill stores" "$W/ptxas.txt"
  cuobjdump -sass /tmp/wgmma.cubin > /tmp/sass.txt
  grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9_.]+' /tmp/sass.txt | awk '{print $2}' | sed 's/\..*//' |
    sort | uniq -c | sort -rn > "$W/sass-mix.txt"
  grep -E "HGMMA|UTMALDG|SYNCS|LDL|STL|USETMAXREG|HMMA" "$W/sass-mix.txt"
fi

pack
if has tests; then
  run_gpu_tests "${TESTS_SECONDS:-200}" "$W/gpu-tests-wgmma.log" "$B/ktune_gpu_tests" \
    --gtest_filter="${TESTS_FILTER:-Wgmma*}"
fi

pack
if has big; then
  printf 'TransposeLHS,TransposeRHS,M,N,K,lda,ldb,ldc,batch\n%s\n%s\n%s\n' \
    false,false,8192,8192,8192,8192,8192,8192,1 false,true,8192,8192,8192,8192,8192,8192,1 \
    true,false,8192,8192,8192,8192,8192,8192,1 > /tmp/big8192.csv
  for p in ${BIG_PRECISIONS:-bf16 fp16}; do
    start=$(date +%s)
    timeout "${BIG_SECONDS:-150}" "$B/ktune" bench --family gemm --device cuda:0 \
      --workload "/tmp/big8192.csv@$p" --configs "${BIG_CONFIGS:-$CONFIGS}" --store $STORE --warmups 2 \
      --min-reps 10 --max-reps 20 --rep-budget-ms 40 --timeout-ms 5000 > "$W/bench-big-$p.log" 2>&1
    echo "bench 8192 $p exit $? ($(($(date +%s) - start)) s)"
    "$B/ktune" report --store $STORE --device "$(gpu_slug)" --workload "/tmp/big8192.csv@$p" \
      --markdown "$W/big8192-$p-vs-vendor.md" > /dev/null 2>&1 || echo "report $p failed"
  done
  "$B/ktune" export --store $STORE --format csv -o "$W/gemm-wgmma-big.csv.gz"
fi

pack
if has retime; then
  start=$(date +%s)
  timeout "${RETIME_SECONDS:-150}" "$B/ktune" retime --family gemm --device cuda:0 --store $STORE \
    --within 0.15 --max-configs 4 --rounds "${RETIME_ROUNDS:-12}" --reps 3 --warmups 1 \
    --timeout-ms 5000 > "$W/retime-big.log" 2>&1
  echo "retime exit $? ($(($(date +%s) - start)) s)"
  for p in ${BIG_PRECISIONS:-bf16 fp16}; do
    "$B/ktune" report --store $STORE --device "$(gpu_slug)" --workload "/tmp/big8192.csv@$p" \
      --markdown "$W/big8192-$p-retimed-vs-vendor.md" > /dev/null 2>&1 || echo "report $p failed"
  done
  "$B/ktune" export --store $STORE --format csv -o "$W/gemm-wgmma-big-retimed.csv.gz"
fi

pack
if has large; then
  for w in ${LARGE_WORKLOADS:-large@bf16}; do
    start=$(date +%s)
    timeout "${LARGE_SECONDS:-150}" "$B/ktune" bench --family gemm --device cuda:0 --workload "$w" \
      --configs "$CONFIGS" --store $STORE --warmups 0 --min-reps 3 --max-reps 10 \
      --rep-budget-ms 1 --timeout-ms 1000 > "$W/bench-$w.log" 2>&1
    echo "bench $w exit $? ($(($(date +%s) - start)) s)"
    "$B/ktune" report --store $STORE --device "$(gpu_slug)" --workload "$w" --csv "$W/$w-vs-vendor.csv" \
      --markdown "$W/$w-vs-vendor.md" > /dev/null 2>&1 || echo "report $w failed"
  done
  "$B/ktune" export --store $STORE --format csv -o "$W/gemm-wgmma-big.csv.gz"
fi

pack
if has ncu && command -v ncu > /dev/null; then
  printf 'TransposeLHS,TransposeRHS,M,N,K,lda,ldb,ldc,batch\n%s\n' \
    false,false,8192,8192,8192,8192,8192,8192,1 > /tmp/nn8192.csv
  kind=${NCU_KIND:-wgmmapp}
  best=$(zcat "$W/gemm-wgmma-big.csv.gz" | NCU_KIND=$kind python3 -c '
import csv, os, sys
rows = [r for r in csv.DictReader(sys.stdin) if r["status"] == "ok" and
        r["problem"].startswith("transa=0;transb=0;m=8192;n=8192;k=8192;batch=1;precision=2") and
        r["config"].startswith("kind=" + os.environ["NCU_KIND"] + ";")]
print(max(rows, key=lambda r: float(r["perf"]))["config"] if rows else "")')
  best=${best:-kind=wgmma;bm=256;bn=128;bk=64;st=4;gr=1}  # no row of the kind: the cooperative kind
  echo "ncu of $best"
  S1="--warmups 0 --min-reps 1 --max-reps 1 --timeout-ms 5000"
  sections="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy"
  # shellcheck disable=SC2086
  timeout "${NCU_SECONDS:-120}" ncu --kernel-name regex:ktune_gemm_wgmma --launch-count 1 $sections \
    --csv --page details "$B/ktune" bench --family gemm --device cuda:0 --workload /tmp/nn8192.csv@bf16 \
    --configs "$best" --no-vendors --store /tmp/ncu1.sqlite $S1 > "$W/ncu-$kind.csv" 2> "$W/ncu-$kind.err"
  echo "ncu ktune exit $?"
  if [ "${NCU_VENDOR:-1}" = 1 ]; then  # NCU_VENDOR=0: no cuBLAS profile
    # shellcheck disable=SC2086
    timeout "${NCU_SECONDS:-120}" ncu --kernel-name regex:'nvjet|bf16bf16|cutlass' --launch-count 1 $sections \
      --csv --page details "$B/ktune" bench --family gemm --device cuda:0 --workload /tmp/nn8192.csv@bf16 \
      --configs "$best" --store /tmp/ncu2.sqlite $S1 > "$W/ncu-cublas.csv" 2> "$W/ncu-cublas.err"
    echo "ncu cublas exit $?"
  fi
fi
pack
if has ncumem && command -v ncu > /dev/null; then
  printf 'TransposeLHS,TransposeRHS,M,N,K,lda,ldb,ldc,batch\n%s\n' \
    false,false,8192,8192,8192,8192,8192,8192,1 > /tmp/nn8192.csv
  metrics=${NCU_METRICS:-gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second}
  S1="--warmups 0 --min-reps 1 --max-reps 1 --timeout-ms 5000"
  # Default: the fastest NN bf16 config of the big phase of kind wgmmats and of the other kinds.
  configs=${NCU_CONFIGS:-$(zcat "$W/gemm-wgmma-big.csv.gz" | python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r["status"] == "ok" and r["config"].startswith("kind=wgmma")
        and r["problem"].startswith("transa=0;transb=0;m=8192;n=8192;k=8192;batch=1;precision=2")]
best = {}
for r in rows:
    ts = r["config"].startswith("kind=wgmmats;")
    if ts not in best or float(r["perf"]) > float(best[ts]["perf"]):
        best[ts] = r
print(" ".join(best[t]["config"] for t in (True, False) if t in best))')}
  configs=${configs:-2994}
  echo "ncumem of $configs"
  for cfg in $configs cublas; do
    name=$(echo "$cfg" | sed 's/kind=//; s/;[a-z]*=/-/g')  # wgmmats-256-128-64-4-1-1
    if [ "$cfg" = cublas ]; then
      regex='nvjet|bf16bf16|cutlass' what="--configs ${configs%% *} --store /tmp/ncum-v.sqlite"
    else
      regex=ktune_gemm_wgmma what="--configs $cfg --no-vendors --store /tmp/ncum-$RANDOM.sqlite"
    fi
    # shellcheck disable=SC2086
    timeout "${NCU_SECONDS:-60}" ncu --kernel-name regex:"$regex" --launch-count 1 --metrics "$metrics" \
      --csv --page raw "$B/ktune" bench --family gemm --device cuda:0 --workload /tmp/nn8192.csv@bf16 \
      $what $S1 > "$W/ncumem-$name.csv" 2> "$W/ncumem-$name.err"
    echo "ncumem $cfg exit $? -> ncumem-$name.csv"
  done
fi
pack
ls -la "$W"
