#!/usr/bin/env bash
# The quiet-machine check of issue #26 on the CPU: the CPU tuned library with vendor candidates
# (libraries/gemm/selectors/amd-epyc-2c-samplez4-vendors-k16.hpp) against the faster of OpenBLAS
# and oneDNN, on the held-out ViT shapes (workloads/gemm/vit.csv, in no training set) and on the
# training workload sample dnn-sample, through scripts/cpu_gemm_heldout_bench.sh: every shape in
# ROUNDS rounds (default 3) that each start with the next library, each side's time the median
# of its rounds (tables: OUT_DIR/deployed-cpu-heldout.md, with the share served by ktune's own
# kernels; every round: OUT_DIR/rounds-cpu-*.csv). About 6 minutes with the default LIBS on the
# 2-core AMD EPYC, 2-3 more per extra library.
#   [LIBS="vendors shipped vendors-remember"] [ROUNDS=3] \
#     scripts/cpu_gemm_vendor_quiet.sh OUT_DIR [BUILD] [VENDORS_BUILD]
# LIBS (default "vendors"): vendors (the vendors header), shipped (the default CPU selector,
# ktune's kernels only), vendors-remember (the vendors header with tune-and-remember on, a fresh
# cache). Then onednn_call_ab: the library's oneDNN call against the benchmark's on the batched
# context GEMM (64 x 197 x 197, batch 16), 9 alternating rounds (OUT_DIR/onednn-call-ab.txt),
# and OUT_DIR/run.json (scripts/cpu_gemm_quiet_runjson.py).
# BUILD (default build): tuned_gemm_bench with the default CPU selector, openblas_core and
# onednn_call_ab;
# VENDORS_BUILD (default build-vsel): tuned_gemm_bench built with the vendors selector:
#   TARGETS=tuned_gemm_bench scripts/build.sh build-vsel -DKTUNE_CUDA=OFF \
#     -DKTUNE_CPU_SELECTOR=libraries/gemm/selectors/amd-epyc-2c-samplez4-vendors-k16.hpp
# WORKLOADS overrides the two workloads (a small CSV to try the script out; such sets are
# recorded as held out).
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 OUT_DIR [BUILD] [VENDORS_BUILD]" >&2; exit 2; }
cd "$(dirname "$0")/.."
out=$1 build=${2:-build} vsel=${3:-build-vsel}
for bin in "$build/bin/tuned_gemm_bench" "$vsel/bin/tuned_gemm_bench" "$build/bin/openblas_core" \
  "$build/bin/onednn_call_ab"; do
  [[ -x $bin ]] || { echo "cpu_gemm_vendor_quiet.sh: no program '$bin'" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# tune-and-remember: a fresh cache, the default budget and candidates
cat > "$work/remember.sh" <<SH
#!/usr/bin/env bash
exec env KTUNE_REMEMBER="$work/remember.sqlite" "$(realpath "$vsel/bin/tuned_gemm_bench")" "\$@"
SH
chmod +x "$work/remember.sh"
pairs=()
for lib in ${LIBS:-vendors}; do
  case $lib in
    vendors) pairs+=(vendors="$vsel/bin/tuned_gemm_bench") ;;
    shipped) pairs+=(shipped="$build/bin/tuned_gemm_bench") ;;
    vendors-remember) pairs+=(vendors-remember="$work/remember.sh") ;;
    *) echo "cpu_gemm_vendor_quiet.sh: LIBS: unknown library '$lib'" >&2; exit 2 ;;
  esac
done
workloads=${WORKLOADS:-workloads/gemm/vit.csv dnn-sample}
start=$(date +%s)
OPENBLAS_CORE="$build/bin/openblas_core" WORKLOADS="$workloads" ROUNDS="${ROUNDS:-3}" \
  scripts/cpu_gemm_heldout_bench.sh "$out" "${pairs[@]}"
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=2 "$build/bin/onednn_call_ab" \
  0 0 64 197 197 16 9 | tee "$out/onednn-call-ab.txt"
echo "# cpu_gemm_vendor_quiet.sh: $(($(date +%s) - start)) s" | tee -a "$out/deployed-cpu-heldout.log"
sets=()
for pair in "${pairs[@]}"; do
  for workload in $workloads; do
    tag=$(basename "$workload" .csv)
    [[ $tag == dnn-sample ]] && kind=in-sample || kind=held-out
    sets+=(--set "${pair%%=*}-$tag=$kind")
  done
done
python3 scripts/cpu_gemm_quiet_runjson.py "$out" "${sets[@]}" \
  --command "LIBS=\"${LIBS:-vendors}\" ROUNDS=${ROUNDS:-3} $0 $*"
