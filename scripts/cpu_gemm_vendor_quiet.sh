#!/usr/bin/env bash
# The quiet-machine check of issue #26 on the CPU (<= 8 minutes on the 2-core AMD EPYC): the
# shipped CPU library, its vendors variant (libraries/gemm/selectors/amd-epyc-2c-samplez4-vendors-k16.hpp)
# and that variant with tune-and-remember on (a fresh cache), each against the faster of OpenBLAS
# and oneDNN in the same run, on the held-out ViT shapes (workloads/gemm/vit.csv) and on the
# training workload sample dnn-sample, through scripts/cpu_gemm_heldout_bench.sh (the tables:
# OUT_DIR/deployed-cpu-heldout.md, with the share served by ktune's own kernels).
#   scripts/cpu_gemm_vendor_quiet.sh OUT_DIR [BUILD] [VENDORS_BUILD]
# Then onednn_call_ab: the library's oneDNN call against the benchmark's on the batched context
# GEMM (64 x 197 x 197, batch 16) that one earlier run timed at 0.69x (OUT_DIR/onednn-call-ab.txt).
# BUILD (default build): tuned_gemm_bench with the default CPU selector, openblas_core and
# onednn_call_ab;
# VENDORS_BUILD (default build-vsel): tuned_gemm_bench built with the vendors selector:
#   TARGETS=tuned_gemm_bench scripts/build.sh build-vsel -DKTUNE_CUDA=OFF \
#     -DKTUNE_CPU_SELECTOR=libraries/gemm/selectors/amd-epyc-2c-samplez4-vendors-k16.hpp
# WORKLOADS overrides the two workloads (a small CSV to try the script out).
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
start=$(date +%s)
OPENBLAS_CORE="$build/bin/openblas_core" WORKLOADS="${WORKLOADS:-workloads/gemm/vit.csv dnn-sample}" \
  scripts/cpu_gemm_heldout_bench.sh "$out" shipped="$build/bin/tuned_gemm_bench" \
  vendors="$vsel/bin/tuned_gemm_bench" vendors-remember="$work/remember.sh"
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=2 "$build/bin/onednn_call_ab" \
  | tee "$out/onednn-call-ab.txt"
echo "# cpu_gemm_vendor_quiet.sh: $(($(date +%s) - start)) s" | tee -a "$out/deployed-cpu-heldout.log"
