#!/usr/bin/env bash
# Runs one libFuzzer harness on its committed seed corpus; new inputs go to a scratch corpus, so
# the committed one stays as it is. A crash leaves its input in $FUZZ_ARTIFACTS (default: .).
# Usage: tests/fuzz/run.sh BINARY SEED_DIR [libFuzzer options, e.g. -max_total_time=15 or
# -runs=1000000]
set -euo pipefail
bin=$1
seeds=$2
shift 2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
artifacts=${FUZZ_ARTIFACTS:-.}
mkdir -p "$artifacts"
# Inputs up to 4 KiB, or the largest seed's size (a model with a hidden layer is larger): a
# seed cut short would only be malformed JSON.
max_len=$(find "$seeds" -type f -printf '%s\n' | sort -n | tail -n 1)
max_len=$(( ${max_len:-0} > 4096 ? max_len : 4096 ))
# ASan's leak check and UBSan reports stop the run (the build uses -fno-sanitize-recover).
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
  "$bin" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$@" "$scratch" "$seeds"
