#!/usr/bin/env bash
# The main job: install what is missing, build Release, run `ktune demo` (the whole pipeline
# on the CPU: sweep, prune, train, eval, codegen; output in ktune-demo/ or --out-dir DIR).
# It builds only what the demo runs (cmake/main_job.cmake): the `ktune` CLI with the GEMM family
# alone, on the CPU (no CUDA, no other family, no families from files; no tests, benchmarks,
# examples or Python package: scripts/test.sh builds those, every family, in build/). Its own
# build directory, build-demo/, so that neither build reconfigures the other.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install_deps.sh --demo
TARGETS=ktune ./scripts/build.sh build-demo -C cmake/main_job.cmake
# A benchmark: OpenBLAS runs its native kernel (a forced OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE
# of the caller's environment is dropped for this command, as in the other CPU benchmark scripts).
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE ./build-demo/bin/ktune demo "$@"
