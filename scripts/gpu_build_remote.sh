#!/usr/bin/env bash
# Builds ktune (CUDA on, KTUNE_NATIVE=OFF) on the lent GPU machine, with the Debian dev packages
# the build needs carried as a sysroot tarball (scripts/make_device_sysroot.sh writes it; the
# device image has the CUDA toolkit, CMake and ninja but not these). The binaries stay on the
# device (they link that machine's glibc and the sysroot's libraries: source the printed env file
# before running them).
#   SYSROOT=.carry/gpu/sysroot.tar.gz [SRC=src.tar.gz] [EXAMPLES=ON] [NATIVE=ON] \
#     scripts/gpu_build_remote.sh BUILD_DIR TARGET...
# SRC: a source tarball (git archive); default: this checkout. CMAKE_ARGS: more -D options (split
# on spaces), e.g. another selector header for a tuned library. EXAMPLES=ON also configures the
# shipped tuned libraries (libraries/: KTUNE_LIBRARIES follows KTUNE_EXAMPLES) and the examples'
# benchmarks (an empty PkgConfig::OPENBLAS stands in: only the CPU GEMM benchmark needs
# OpenBLAS, and it is not built there). NATIVE=ON builds for the device's own CPU (-march=native),
# as CPU timings compared with kernels compiled there at run time need. Prints "env: FILE" and
# the bin path on success. ENV_ONLY=1 writes the env file only (binaries built by an earlier
# call of the same image and paths).
set -euo pipefail
BUILD=${1:?usage: gpu_build_remote.sh BUILD_DIR TARGET...}
shift
targets=("$@")
((${#targets[@]})) || targets=(ktune ktune_gpu_tests)
ROOT=/tmp/kt-sysroot
mkdir -p "$ROOT"
# Unpacked once per tarball: a second build started beside a running one must not rewrite the
# headers and libraries the first is reading.
stamp=$ROOT/.unpacked-$(stat -c %s-%Y "${SYSROOT:?}")
[ -e "$stamp" ] || { tar xzf "$SYSROOT" -C "$ROOT" && touch "$stamp"; }
src=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${SRC:-}" ]; then
  src=/tmp/kt-src
  mkdir -p $src
  tar xzf "$SRC" -C $src
fi
env_file=$BUILD.env
mkdir -p "$BUILD"
cat > "$env_file" <<ENV
export PATH="$ROOT/usr/bin:\$PATH"
export LD_LIBRARY_PATH="$ROOT/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export PKG_CONFIG_LIBDIR="$ROOT/usr/lib/x86_64-linux-gnu/pkgconfig:$ROOT/usr/share/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$ROOT"  # the .pc files say /usr: muparser's flags point into ROOT
ENV
# cuDNN's libraries at run time: the device's own (PyTorch's nvidia wheels), if any.
for d in $(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, q, "lib") for p in nvidia.__path__ for q in os.listdir(p)))' 2>/dev/null); do
  [ -d "$d" ] && echo "export LD_LIBRARY_PATH=\"\$LD_LIBRARY_PATH:$d\"" >> "$env_file"
done
# shellcheck disable=SC1090
. "$env_file"
# ENV_ONLY=1: the env file alone, for binaries built by an earlier call (same paths).
[ -z "${ENV_ONLY:-}" ] || { echo "env: $env_file"; exit 0; }
cuda=$ROOT/usr/local/cuda-13.0
# shellcheck disable=SC2086  # CMAKE_ARGS: several options, split on spaces
cmake -S "$src" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_NATIVE="${NATIVE:-OFF}" \
  -DKTUNE_EXAMPLES="${EXAMPLES:-OFF}" -DKTUNE_LIBRARIES="${EXAMPLES:-OFF}" -DKTUNE_BENCH=OFF -DCMAKE_PREFIX_PATH="$ROOT/usr" \
  -DCMAKE_PROJECT_INCLUDE="$src/scripts/networks/fake_openblas.cmake" \
  -DKTUNE_CUDNN_LIBRARY="$cuda/lib/libcudnn.so.9" \
  "-DCMAKE_CXX_FLAGS=-isystem $ROOT/usr/include -isystem $cuda/include" ${CMAKE_ARGS:-} > "$BUILD/cmake.log" 2>&1 ||
  { tail -30 "$BUILD/cmake.log"; exit 1; }
ninja -C "$BUILD" -j "$(nproc)" "${targets[@]}" > "$BUILD/ninja.log" 2>&1 ||
  { grep -E "error|FAILED" "$BUILD/ninja.log" | head -30; exit 1; }
echo "env: $env_file"
echo "$BUILD/bin"
