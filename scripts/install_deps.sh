#!/usr/bin/env bash
# Installs the Debian packages ktune builds and tests with; skips what is already there.
set -euo pipefail
# Usage: install_deps.sh [--demo | --torch]. --demo: only what configuring the build and running
# `ktune demo` need (scripts/demo.sh), not the test suite's tools. --torch: also PyTorch and
# torchvision (and python3-onnx), which only examples/networks/onnx_torchvision.py and
# tests/fuzz/corpus/make_onnx_seeds.py use; the test suite does not.
packages=(build-essential cmake ninja-build ccache pkg-config git libeigen3-dev libsqlite3-dev sqlite3
  libfmt-dev nlohmann-json3-dev libmuparser-dev libcli11-dev libgtest-dev libgmock-dev
  libbenchmark-dev libopenblas-dev libdnnl-dev zlib1g-dev python3)
if [ "${1:-}" != --demo ]; then
  packages+=(python3-numpy python3-sklearn
    pybind11-dev python3-dev python3-pytest  # the Python package ktune and its tests (docs/python.md)
    libonnx-dev libprotobuf-dev  # ONNX models on the engine (ktune_infer --onnx, docs/networks.md)
    clang libclang-rt-dev chromium  # headless Chromium: the HTML report's test; clang + libFuzzer runtime: tests/fuzz
    slurm-wlm)  # tests/slurm starts a single-node cluster (slurmctld + slurmd) for scripts/slurm/
fi
if [ "${1:-}" = --torch ]; then
  packages+=(python3-torch python3-torchvision python3-onnx)
fi
missing=()
# npm fetches the report's plotting library (below); any node install that has npm will do.
command -v npm >/dev/null || missing+=(npm)
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install_deps: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The HTML report's plotting library (vega, vega-lite, vega-embed at the versions pinned in
# src/report/js/package-lock.json; inlined into each report, docs/report.md).
js="$(dirname "$0")/../src/report/js"
if ! cmp -s "$js/package-lock.json" "$js/node_modules/.ktune-installed-lock"; then
  echo "install_deps: npm ci in $js"
  (cd "$js" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp "$js/package-lock.json" "$js/node_modules/.ktune-installed-lock"
fi
