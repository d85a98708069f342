#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole suite through ctest; then the same suite
# under AddressSanitizer + UndefinedBehaviorSanitizer (CPU build). GPU tests skip without a GPU.
# Then each libFuzzer harness of tests/fuzz for KTUNE_FUZZ_SECONDS (default 5) on its corpus.
# Each stage's wall time is printed as it ends and again in a table at the end (also on failure).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}

stage_table="" current=""
# stage NAME COMMAND...: runs the command and records its wall time.
stage() {
  local name=$1 start=$SECONDS
  shift
  current=$name
  echo "test.sh: stage '$name'"
  "$@"
  local s=$((SECONDS - start))
  stage_table+=$(printf '\n  %-12s %3d min %02d s' "$name" $((s / 60)) $((s % 60)))
  echo "test.sh: stage '$name' took $s s"
  current=""
}
trap 'echo "test.sh: stage wall times (${SECONDS} s in all${current:+; stopped in $current}):${stage_table}"' EXIT

release_tests() { (cd build && ctest --output-on-failure -j "$jobs"); }
# Under the sanitizers, only the tests that run ktune's C++: the Python scripts' tests and the
# boundary check run none, and the outside project builds its own unsanitized Release program
# from the installed package (a packaging check: the Release stage runs all three).
asan_tests() {
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j "$jobs" -E '^(Scripts|Architecture|OutsideProject)\.')
}
# Through build.sh, so the fuzz build is cached (ccache) like the others.
fuzz_build() {
  CC=clang CXX=clang++ BUILD_TYPE=RelWithDebInfo TARGETS=ktune_fuzzers ./scripts/build.sh \
    build-fuzz -DKTUNE_FUZZ=ON -DKTUNE_SANITIZE=ON -DKTUNE_CUDA=OFF -DKTUNE_BENCH=OFF \
    -DKTUNE_EXAMPLES=OFF -DKTUNE_TESTS=OFF -DKTUNE_FUZZ_SECONDS="${KTUNE_FUZZ_SECONDS:-5}"
}
fuzz_run() {
  (cd build-fuzz && FUZZ_ARTIFACTS="$PWD/fuzz-artifacts" ctest -L fuzz --output-on-failure \
    -j "$jobs")
}

stage install ./scripts/install_deps.sh
# The sklearn parity tests must run here, not skip.
export KTUNE_REQUIRE_SKLEARN=1
stage build ./scripts/build.sh build
stage ctest release_tests
if [ "${KTUNE_SKIP_SANITIZE:-0}" != 1 ]; then
  stage asan-build env BUILD_TYPE=Debug ./scripts/build.sh build-asan -DKTUNE_SANITIZE=ON \
    -DKTUNE_CUDA=OFF -DKTUNE_BENCH=OFF
  stage asan-ctest asan_tests
fi
if [ "${KTUNE_SKIP_FUZZ:-0}" != 1 ]; then
  stage fuzz-build fuzz_build
  stage fuzz fuzz_run
fi
