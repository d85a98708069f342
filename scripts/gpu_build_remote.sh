#!/usr/bin/env bash
# Builds ktune (CUDA on, KTUNE_NATIVE=OFF) on the lent GPU machine from a source tarball, with the
# Debian dev packages the build needs carried as a sysroot tarball (the device image has the CUDA
# toolkit, CMake and ninja but not these). Used when the 2 shared CPU cores here cannot build in
# time; the binaries stay on the device (they link that machine's glibc).
#   SRC=.carry/conv-cuda/src.tar.gz SYSROOT=.carry/conv-cuda/sysroot.tar.gz \
#     scripts/gpu_build_remote.sh /tmp/kt-build
# Prints the build directory's bin path on success.
set -euo pipefail
BUILD=${1:-/tmp/kt-build}
ROOT=/tmp/kt-sysroot
mkdir -p "$ROOT" /tmp/kt-src
tar xzf "${SYSROOT:?}" -C "$ROOT"
tar xzf "${SRC:?}" -C /tmp/kt-src
export PATH="$ROOT/usr/bin:$PATH"
export LD_LIBRARY_PATH="$ROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_LIBDIR="$ROOT/usr/lib/x86_64-linux-gnu/pkgconfig:$ROOT/usr/share/pkgconfig"
cmake -S /tmp/kt-src -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_NATIVE=OFF \
  -DKTUNE_EXAMPLES=OFF -DKTUNE_BENCH=OFF -DCMAKE_PREFIX_PATH="$ROOT/usr" \
  -DKTUNE_CUDNN_LIBRARY="$ROOT/usr/local/cuda-13.0/lib/libcudnn.so.9" \
  "-DCMAKE_CXX_FLAGS=-isystem $ROOT/usr/include -isystem $ROOT/usr/local/cuda/include" > /tmp/kt-cmake.log 2>&1 ||
  { tail -30 /tmp/kt-cmake.log; exit 1; }
ninja -C "$BUILD" -j "$(nproc)" ktune ktune_gpu_tests > /tmp/kt-ninja.log 2>&1 ||
  { grep -E "error|FAILED" /tmp/kt-ninja.log | head -30; exit 1; }
echo "$BUILD/bin"
