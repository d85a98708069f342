#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole suite through ctest; then the same suite
# under AddressSanitizer + UndefinedBehaviorSanitizer (CPU build). GPU tests skip without a GPU.
# Then each libFuzzer harness of tests/fuzz for KTUNE_FUZZ_SECONDS (default 5) on its corpus.
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
if [ "${KTUNE_SKIP_FUZZ:-0}" != 1 ]; then
  gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  CC=clang CXX=clang++ cmake -S . -B build-fuzz "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DKTUNE_FUZZ=ON -DKTUNE_SANITIZE=ON -DKTUNE_CUDA=OFF -DKTUNE_BENCH=OFF -DKTUNE_EXAMPLES=OFF \
    -DKTUNE_TESTS=OFF -DKTUNE_FUZZ_SECONDS="${KTUNE_FUZZ_SECONDS:-5}"
  cmake --build build-fuzz -j "${JOBS:-$(nproc)}" --target ktune_fuzzers
  (cd build-fuzz && FUZZ_ARTIFACTS="$PWD/fuzz-artifacts" ctest -L fuzz --output-on-failure \
    -j "${JOBS:-$(nproc)}")
fi
