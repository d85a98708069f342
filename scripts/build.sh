#!/usr/bin/env bash
# Configures and builds ktune. Usage: scripts/build.sh [build-dir] [extra cmake args...]
# TARGETS="ktune ..." builds only those targets (and what they need) instead of everything.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
# ccache (installed by install_deps.sh) makes rebuilds and the three CI stages' shared sources cheap;
# CCACHE_BASEDIR lets git worktrees of one checkout share its hits.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(dirname "$PWD")}"
  # Builds with debug information (the sanitizer build) would otherwise hash the working
  # directory, so a checkout at another path would miss every object of the cache.
  export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
    -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)  # the CUDA tuned libraries: minutes of nvcc each
fi
cmake -S . -B "$dir" "${gen[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" -DKTUNE_CUDA=AUTO "$@"
targets=()
for t in ${TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$dir" -j "${JOBS:-$(nproc)}" "${targets[@]}"
