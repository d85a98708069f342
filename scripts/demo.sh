#!/usr/bin/env bash
# The main job: install what is missing, build Release, run `ktune demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install_deps.sh
./scripts/build.sh build
./build/bin/ktune demo "$@"
