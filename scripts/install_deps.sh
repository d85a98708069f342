#!/usr/bin/env bash
# Installs the Debian packages ktune builds and tests with; skips what is already there.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config git libeigen3-dev libsqlite3-dev sqlite3
  libfmt-dev nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev libdnnl-dev zlib1g-dev python3 python3-numpy python3-sklearn
  clang libclang-rt-dev)  # clang + libFuzzer runtime: tests/fuzz
missing=()
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
