#!/usr/bin/env bash
# Binary size of tuned GEMM libraries shipping K = 4, 8, 15 and every config (the cost the seed
# paper is about), built as shared libraries by ktune_add_tuned_library from the selector
# headers in libraries/gemm/selectors. Writes results/binary-size.{csv,md}.
#   scripts/binary_size.sh [build-dir]
#   EXCLUDE=REGEX leaves out matching targets (e.g. 'cuda_kall', hundreds of nvcc kernels).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-size}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_TESTS=OFF -DKTUNE_BENCH=OFF \
  -DKTUNE_BINARY_SIZE=ON -DKTUNE_NATIVE=OFF > /dev/null
targets=$(ninja -C "$build" -t targets all | awk -F: '/^ktune_size_[a-z]+_k[0-9a-z]+:/ { print $1 }' |
  sort -u | grep -Ev "${EXCLUDE:-^$}")
cmake --build "$build" -j"$(nproc)" --target $targets

csv=results/binary-size.csv
echo "backend,selector,configs,instantiations,file_bytes,text_bytes,fatbin_bytes" > "$csv"
for target in $targets; do
  lib="$build/libraries/gemm/lib$target.so"
  name=$(basename "$lib" .so)            # libktune_size_cpu_k8
  backend=$(echo "$name" | sed -E 's/libktune_size_([a-z]+)_k.*/\1/')
  k=$(echo "$name" | sed -E 's/.*_k//')
  slug=$([ "$backend" = cpu ] && echo amd-epyc-2c || echo h100-80gb-hbm3)
  header=libraries/gemm/selectors/$slug-k$k.hpp
  configs=$(grep -c '^    "' "$header")
  # Distinct kernel templates (before the × 4 transposes): the work-group, the cache blocks
  # (kc, mc, nc) and the split count are run-time arguments, and split-K reuses the tiled kernel.
  inst=$(grep '^    "' "$header" | sed -E 's/;wg=[0-9x]+//; s/;(kc|mc|nc|splits)=[0-9]+//g;
    s/kind=splitk/kind=tiled/' | sort -u | wc -l)
  text=$(size -A "$lib" | awk '$1 == ".text" { print $2 }')
  fatbin=$(size -A "$lib" | awk '$1 == ".nv_fatbin" { print $2 }')
  echo "$backend,$header,$configs,$inst,$(stat -c %s "$lib"),${text:-0},${fatbin:-0}" >> "$csv"
done
{
  echo "# Binary size of tuned GEMM libraries"
  echo
  echo "Shared libraries built by \`ktune_add_tuned_library\` (Release, CPU: -O3 -march=x86-64-v3 with"
  echo "g++ $(g++ -dumpfullversion); CUDA: nvcc $(nvcc --version | sed -nE 's/.*release ([0-9.]+).*/\1/p'), sm_90 SASS + compute_90 PTX),"
  echo "from the selector headers in libraries/gemm/selectors. Command: \`EXCLUDE='${EXCLUDE:-}' scripts/binary_size.sh\`, $(date -u +%Y-%m-%d)."
  echo "\"instantiations\" counts distinct kernel templates before the × 4 transposes (work-groups are launch parameters)."
  echo
  echo "| backend | shipped configs | distinct kernels | file bytes | .text bytes | .nv_fatbin bytes |"
  echo "|---|---:|---:|---:|---:|---:|"
  tail -n +2 "$csv" | sort -t, -k1,1 -k3,3n | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $3, $4, $5, $6, $7 }'
} > results/binary-size.md
cat results/binary-size.md
