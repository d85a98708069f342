#!/usr/bin/env bash
# Packs the Debian dev packages a CUDA build of ktune needs (and the GPU machine's image lacks)
# into a sysroot tarball for the lent GPU machine, where nothing can be installed:
#   scripts/make_device_sysroot.sh .carry/gpu/sysroot.tar.gz
# The device scripts (scripts/gpu_build_remote.sh and the gpu_*.sh callers) unpack it into
# /tmp/kt-sysroot and point CMake at it. No OpenBLAS or oneDNN (their CPU baselines are not built
# there; scripts/networks/fake_openblas.cmake stands in); cuDNN's headers and loader stub come
# from this machine's CUDA toolkit, its libraries from the device's own install at run time.
set -euo pipefail
out=${1:?usage: make_device_sysroot.sh OUT.tar.gz}
packages=(libeigen3-dev libsqlite3-dev libsqlite3-0 libfmt-dev libfmt9 nlohmann-json3-dev
  libcli11-dev libgtest-dev libgmock-dev zlib1g-dev zlib1g
  libmuparser-dev libmuparser2v5  # muparser: the expressions of tuning-problem files
  libonnx-dev libonnx1 libonnxifi libprotobuf-dev libprotobuf32 libprotobuf-lite32)  # --onnx
# (libonnxifi: ONNX's CMake targets check that its files exist.)
list=$(mktemp)
trap 'rm -f "$list"' EXIT
for p in "${packages[@]}"; do
  dpkg -L "$p" | while read -r f; do [ -f "$f" ] || [ -L "$f" ] && echo "${f#/}"; done
done | grep -v -E '^usr/share/(doc|man|lintian)/' > "$list"
cuda=/usr/local/cuda-13.0
for f in "$cuda"/include/cudnn*.h "$cuda"/lib/libcudnn.so "$cuda"/lib/libcudnn.so.9; do
  [ -e "$f" ] && echo "${f#/}" >> "$list"
done
mkdir -p "$(dirname "$out")"
tar czf "$out" -C / -T "$list"
echo "$out: $(wc -l < "$list") files, $(du -h "$out" | cut -f1)"
