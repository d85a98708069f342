#!/usr/bin/env bash
# Packs the libFuzzer harnesses of a sanitizer build (default build-asan), the shared libraries
# they load besides glibc, and the seed corpora into .carry/fuzz/fuzz.tar.xz, for
# scripts/fuzz_long_device.sh on the lent machine (whose base system differs from Debian's).
# Usage: scripts/fuzz_pack.sh [build-dir] [harness...]   (default: every bin/fuzz_* there)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-asan}
shift || true
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for b in "$build"/bin/fuzz_*; do names+=("${b##*/fuzz_}"); done
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/corpus" .carry/fuzz
for n in "${names[@]}"; do
  [ -x "$build/bin/fuzz_$n" ] || { echo "fuzz_pack.sh: $build/bin/fuzz_$n: not built" >&2; exit 1; }
  # Line tables stripped (function names kept for reports): 7 harnesses otherwise exceed the
  # 64 MiB the device tool carries.
  objcopy --strip-debug "$build/bin/fuzz_$n" "$stage/bin/fuzz_$n"
  cp -r "tests/fuzz/corpus/$n" "$stage/corpus/"
  # Every resolved library but the C runtime's own (libc, libm, ld-linux, ...), which the
  # machine there has in a newer version.
  ldd "$build/bin/fuzz_$n" | awk '$3 ~ /^\// {print $3}' |
    grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -nL "$lib" "$stage/lib/"; done
done
XZ_OPT=-9e tar cJf .carry/fuzz/fuzz.tar.xz -C "$stage" bin lib corpus
cp scripts/fuzz_long_device.sh .carry/fuzz/
echo "fuzz_pack.sh: .carry/fuzz/fuzz.tar.xz ($(du -h .carry/fuzz/fuzz.tar.xz | cut -f1)): ${names[*]}"
