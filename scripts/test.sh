#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole suite through ctest; then the same suite
# under AddressSanitizer + UndefinedBehaviorSanitizer (clang, CPU build), whose build also holds
# the libFuzzer harnesses of tests/fuzz: each then runs for KTUNE_FUZZ_SECONDS (default 5) on its
# corpus. One sanitized build for both, so CI compiles ktune twice, not three times.
# Each stage's wall time is printed as it ends and again in a table at the end (also on failure).
# KTUNE_SKIP_SANITIZE=1 skips the sanitizer build and everything run from it (fuzzers too);
# KTUNE_SKIP_FUZZ=1 only the fuzzers.
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
# Under the sanitizers, only the tests that run ktune's C++: the Python scripts' tests, the
# boundary check and the main job's configure check run none, and the outside project builds its
# own unsanitized Release program from the installed package (a packaging check: the Release
# stage runs all four).
asan_tests() {
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j "$jobs" -LE fuzz -E '^(Scripts|Architecture|OutsideProject|Build)\.')
}
# clang at -O0 with line tables only: sanitizer reports keep file:line, and a source compiles in
# about half the time g++ -O0 -g takes (src/ml/kmeans.cpp: 11 s vs 15 s of CPU with the fuzzer
# instrumentation, 2026-11-26, AMD EPYC); -O1 would take 17 s. (The families' kernels are
# compiled at -O1 under the sanitizers anyway: KTUNE_KERNEL_FLAGS; so is the ML library, whose
# tests ran up to 110x slower at -O0 than in Release: CMakeLists.txt.)
asan_build() {
  CC=clang CXX=clang++ BUILD_TYPE=Debug ./scripts/build.sh build-asan -DKTUNE_SANITIZE=ON \
    -DKTUNE_FUZZ="$([ "${KTUNE_SKIP_FUZZ:-0}" = 1 ] && echo OFF || echo ON)" \
    -DKTUNE_FUZZ_SECONDS="${KTUNE_FUZZ_SECONDS:-5}" -DKTUNE_CUDA=OFF -DKTUNE_BENCH=OFF \
    "-DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only" "-DCMAKE_C_FLAGS_DEBUG=-gline-tables-only"
}
fuzz_run() {
  (cd build-asan && FUZZ_ARTIFACTS="$PWD/fuzz-artifacts" ctest -L fuzz --output-on-failure \
    -j "$jobs")
}

stage install ./scripts/install_deps.sh
# The sklearn parity tests must run here, not skip.
export KTUNE_REQUIRE_SKLEARN=1
stage build ./scripts/build.sh build
stage ctest release_tests
if [ "${KTUNE_SKIP_SANITIZE:-0}" != 1 ]; then
  stage asan-build asan_build
  stage asan-ctest asan_tests
  if [ "${KTUNE_SKIP_FUZZ:-0}" != 1 ]; then
    stage fuzz fuzz_run
  fi
fi
