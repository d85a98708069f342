#!/usr/bin/env bash
# Packs binaries built here for the lent GPU machine, with the shared libraries they load that
# its image lacks (everything ldd finds outside glibc, libstdc++ and libgcc_s, which the device's
# newer system has; CUDA's own libraries come from its toolkit). Build with -DKTUNE_NATIVE=OFF
# (x86-64-v3) so that no instruction of this CPU reaches another's.
#   scripts/networks/pack_device_bin.sh OUT.tar.gz BINARY...
set -euo pipefail
out=${1:?usage: pack_device_bin.sh OUT.tar.gz BINARY...}
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/bin" "$dir/lib"
for b in "$@"; do
  strip -o "$dir/bin/$(basename "$b")" "$b"
  ldd "$b" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
    case $name in
      libc.so* | libm.so* | libpthread.so* | librt.so* | libdl.so* | libstdc++* | libgcc_s*) ;;
      libcuda.so* | libcudart* | libcublas* | libnvrtc* | libcudnn*) ;;  # the device's own
      *) cp -L "$path" "$dir/lib/$name" ;;
    esac
  done
done
tar czf "$out" -C "$dir" bin lib
echo "$out: $(ls "$dir/bin" | tr '\n' ' ')+ $(ls "$dir/lib" | wc -l) libraries, $(du -h "$out" | cut -f1)"
