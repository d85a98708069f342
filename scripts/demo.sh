#!/usr/bin/env bash
# The main job: install what is missing, build Release, run `ktune demo` (the whole pipeline
# on the CPU: sweep, prune, train, eval, codegen; output in ktune-demo/ or --out-dir DIR).
# It builds only what the demo runs (cmake/main_job.cmake): the `ktune` CLI with the GEMM family
# alone, on the CPU (no CUDA, no other family, no families from files; no tests, benchmarks,
# examples or Python package: scripts/test.sh builds those, every family, in build/). Its own
# build directory, build-demo/, so that neither build reconfigures the other.
# Each step's wall time and CPU time (user + system of its processes) is printed as it ends and
# again at the end (scripts/main_job_time.sh reads those lines).
set -euo pipefail
cd "$(dirname "$0")/.."

summary=""
# CPU seconds of this shell's finished children so far (/proc: cutime + cstime, in clock ticks).
children_cpu() {
  local stat
  stat=$(</proc/$$/stat)
  read -ra fields <<<"${stat##*) }"
  echo $((fields[13] + fields[14]))
}
# step NAME COMMAND...: runs the command and records its wall and CPU time.
step() {
  local name=$1 start=$SECONDS cpu
  shift
  cpu=$(children_cpu)
  "$@"
  local s=$((SECONDS - start)) ticks=$(($(children_cpu) - cpu)) hz
  hz=$(getconf CLK_TCK)
  local line
  line=$(printf '%s %d s wall, %d.%02d CPU-s' "$name" "$s" $((ticks / hz)) $((ticks % hz * 100 / hz)))
  echo "demo.sh: step $line"
  summary+="; $line"
}
trap 'echo "demo.sh: ${SECONDS} s in all${summary}"' EXIT

step install ./scripts/install_deps.sh --demo
step build env TARGETS=ktune ./scripts/build.sh build-demo -C cmake/main_job.cmake
# A benchmark: OpenBLAS runs its native kernel (a forced OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE
# of the caller's environment is dropped for this command, as in the other CPU benchmark scripts).
step demo env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE ./build-demo/bin/ktune demo "$@"
