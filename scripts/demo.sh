#!/usr/bin/env bash
# The main job: install what is missing, build Release, run `ktune demo` (the whole pipeline
# on the CPU: sweep, prune, train, eval, codegen; output in ktune-demo/ or --out-dir DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install_deps.sh
./scripts/build.sh build
./build/bin/ktune demo "$@"
