#!/usr/bin/env bash
# The main job: install what is missing, build Release, run `ktune demo` (the whole pipeline
# on the CPU: sweep, prune, train, eval, codegen; output in ktune-demo/ or --out-dir DIR).
# Only the `ktune` target is built (not the tests, benchmarks, examples: scripts/test.sh builds
# them), in the same build directory and with the same options as test.sh, so neither
# reconfigures the other and test.sh later reuses what the demo compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install_deps.sh --demo
TARGETS=ktune ./scripts/build.sh build
# A benchmark: OpenBLAS runs its native kernel (a forced OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE
# of the caller's environment is dropped for this command, as in the other CPU benchmark scripts).
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE ./build/bin/ktune demo "$@"
