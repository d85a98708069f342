#!/usr/bin/env bash
# The quiet-machine check of issue #26 on the CPU: the CPU tuned library with vendor candidates
# against the faster of OpenBLAS and oneDNN, on the held-out ViT shapes (workloads/gemm/vit.csv,
# in no training set) and on the training workload sample dnn-sample (in-sample), through
# scripts/cpu_gemm_heldout_bench.sh: every shape in ROUNDS rounds (default 3) that each start with
# the next library, each side's time the median of its rounds. Writes OUT_DIR/deployed-cpu-*.csv
# (per library and workload), rounds-cpu-*.csv (every round), deployed-cpu-heldout.{csv,md} (the
# tables: geomean, time-weighted, below 0.8x / 0.9x, worst shapes, the share served by ktune's
# own kernels), selectors.md (the libraries' deployed GFLOP/s against vendors' on dnn-sample),
# onednn-call-ab.txt and run.json (scripts/cpu_gemm_quiet_runjson.py). With the defaults: 8-9
# minutes expected on the quiet 2-core AMD EPYC (a single pass took 46 s on vit and 73 s on
# dnn-sample per library; 3 rounds add 0.75 s of idle gaps per shape and round), 10.8 measured
# there under a load average of 4-7; each extra library adds 2-4 minutes per workload.
#   [VIT_LIBS="vendors"] [SAMPLE_LIBS="vendors vendors-floor"] [ROUNDS=3] \
#     scripts/cpu_gemm_vendor_quiet.sh OUT_DIR [BUILD] [VENDORS_BUILD] [FLOOR_BUILD]
# Libraries: vendors (libraries/gemm/selectors/amd-epyc-2c-samplez4-vendors-k16.hpp),
# vendors-floor (amd-epyc-2c-samplez4-vendors-floor-k16.hpp: the same recipe with the leaf floor;
# on the ViT shapes it picks what vendors picks, so by default it runs on dnn-sample only),
# shipped (the default CPU selector, ktune's kernels only), vendors-remember (the vendors header
# with tune-and-remember on, a fresh cache). Then onednn_call_ab: the library's oneDNN call
# against the benchmark's on the batched context GEMM (64 x 197 x 197, batch 16), 9 alternating
# rounds, and whether both dispatched the same oneDNN implementation.
# BUILD (default build): tuned_gemm_bench with the default CPU selector, openblas_core and
# onednn_call_ab; VENDORS_BUILD (default build-vsel) and FLOOR_BUILD (default build-vfloor):
# tuned_gemm_bench built with the vendors / vendors-floor selector:
#   TARGETS=tuned_gemm_bench scripts/build.sh build-vsel -DKTUNE_CUDA=OFF \
#     -DKTUNE_CPU_SELECTOR=libraries/gemm/selectors/amd-epyc-2c-samplez4-vendors-k16.hpp
# VIT and SAMPLE override the two workloads (a small CSV to try the script out); run.json calls
# the dnn-sample sets in-sample (the selectors' training sweep holds its shapes), all others held
# out.
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 OUT_DIR [BUILD] [VENDORS_BUILD] [FLOOR_BUILD]" >&2; exit 2; }
cd "$(dirname "$0")/.."
out=$1 build=${2:-build} vsel=${3:-build-vsel} vfloor=${4:-build-vfloor}
vit=${VIT:-workloads/gemm/vit.csv} sample=${SAMPLE:-dnn-sample}
vit_libs=${VIT_LIBS-vendors} sample_libs=${SAMPLE_LIBS-vendors vendors-floor}
for bin in "$build/bin/tuned_gemm_bench" "$build/bin/openblas_core" "$build/bin/onednn_call_ab"; do
  [[ -x $bin ]] || { echo "cpu_gemm_vendor_quiet.sh: no program '$bin'" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# tune-and-remember: a fresh cache, the default budget and candidates
cat > "$work/remember.sh" <<SH
#!/usr/bin/env bash
exec env KTUNE_REMEMBER="$work/remember.sqlite" "$(realpath -m "$vsel/bin/tuned_gemm_bench")" "\$@"
SH
chmod +x "$work/remember.sh"
pairs_of() {  # NAME=BENCH pairs of the named libraries
  for lib in "$@"; do
    case $lib in
      vendors) bench=$vsel/bin/tuned_gemm_bench ;;
      vendors-floor) bench=$vfloor/bin/tuned_gemm_bench ;;
      shipped) bench=$build/bin/tuned_gemm_bench ;;
      vendors-remember) bench=$work/remember.sh ;;
      *) echo "cpu_gemm_vendor_quiet.sh: unknown library '$lib'" >&2; exit 2 ;;
    esac
    [[ -x $bench && ( $lib != vendors-remember || -x $vsel/bin/tuned_gemm_bench ) ]] ||
      { echo "cpu_gemm_vendor_quiet.sh: no program for '$lib' ($bench)" >&2; exit 2; }
    echo "$lib=$bench"
  done
}
mapfile -t vit_pairs < <(pairs_of $vit_libs)
mapfile -t sample_pairs < <(pairs_of $sample_libs)
start=$(date +%s)
for part in vit sample; do
  if [[ $part == vit ]]; then workload=$vit pairs=("${vit_pairs[@]}"); else workload=$sample pairs=("${sample_pairs[@]}"); fi
  [[ ${#pairs[@]} -gt 0 ]] || continue
  OPENBLAS_CORE="$build/bin/openblas_core" WORKLOADS="$workload" ROUNDS="${ROUNDS:-3}" \
    scripts/cpu_gemm_heldout_bench.sh "$out" "${pairs[@]}"
done
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=2 "$build/bin/onednn_call_ab" \
  0 0 64 197 197 16 9 | tee "$out/onednn-call-ab.txt"
echo "# cpu_gemm_vendor_quiet.sh: $(($(date +%s) - start)) s" | tee -a "$out/deployed-cpu-heldout.log"
# The tables over every run (each cpu_gemm_heldout_bench.sh call wrote those of its own).
runs=() sets=()
for part in vit sample; do
  if [[ $part == vit ]]; then workload=$vit libs=$vit_libs; else workload=$sample libs=$sample_libs; fi
  tag=$(basename "$workload" .csv)
  [[ $tag == dnn-sample ]] && kind=in-sample || kind=held-out  # vit.csv: in no training set
  for lib in $libs; do
    runs+=(--run "$lib-$tag=$out/deployed-cpu-$lib-$tag.csv")
    sets+=(--set "$lib-$tag=$kind")
  done
done
python3 scripts/gemm_deployed_tables.py "${runs[@]}" --csv "$out/deployed-cpu-heldout.csv" \
  --markdown "$out/deployed-cpu-heldout.md"
python3 scripts/cpu_gemm_quiet_runjson.py "$out" "${sets[@]}" \
  --command "VIT_LIBS=\"$vit_libs\" SAMPLE_LIBS=\"$sample_libs\" ROUNDS=${ROUNDS:-3} $0 $*"
