#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole suite through ctest; then the same suite
# under AddressSanitizer + UndefinedBehaviorSanitizer (CPU build). GPU tests skip without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install_deps.sh
# The sklearn parity tests must run here, not skip.
export KTUNE_REQUIRE_SKLEARN=1
./scripts/build.sh build
(cd build && ctest --output-on-failure -j "${JOBS:-$(nproc)}")
if [ "${KTUNE_SKIP_SANITIZE:-0}" != 1 ]; then
  BUILD_TYPE=Debug ./scripts/build.sh build-asan -DKTUNE_SANITIZE=ON -DKTUNE_CUDA=OFF -DKTUNE_BENCH=OFF
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j "${JOBS:-$(nproc)}")
fi
