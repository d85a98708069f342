#!/usr/bin/env bash
# Configures and builds ktune. Usage: scripts/build.sh [build-dir] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S . -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" -DKTUNE_CUDA=AUTO "$@"
cmake --build "$dir" -j "${JOBS:-$(nproc)}"
