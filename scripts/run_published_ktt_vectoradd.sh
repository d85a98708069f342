#!/bin/bash
# A published tuning-problem file of another project, read unchanged with its kernel: KTT's
# tutorial 03KernelTuning (github:HiPerCoRe/KTT, Tutorials/03KernelTuning/
# KernelTuningCudaScript.json with CudaKernel.cu: vectorAddition over four block sizes, inputs
# from a Generator and a raw file, the expected output from a Generator). Both are copied byte
# for byte from a clone or mirror of KTT (nothing of KTT is in this repository), and no
# extension is added: the file needs none. ArgumentData.bin, the raw input b, is copied from
# there too when the clone has it, else written as 1048576 float32 values i: what the file's
# reference implies (2 i + 3 = a + b + scalar with a[i] = i, scalar 3).
# Usage: scripts/run_published_ktt_vectoradd.sh KTUNE KTT OUT_DIR [bench options...]
#   KTT: a git directory of KTT (its HEAD is read), or a folder holding Tutorials/03KernelTuning/
#   as copied from one; e.g. ... /work/.mirror/HiPerCoRe+KTT/repo /tmp/ktt-vectoradd --device cuda:0
set -euo pipefail
K=$1
GIT=$2
OUT=$3
shift 3
T=Tutorials/03KernelTuning
mkdir -p "$OUT"
# show FILE: one file of the tutorial, byte for byte, from the git directory or the folder.
show() {
  if [ -f "$GIT/$T/$1" ]; then cat "$GIT/$T/$1"; else git --git-dir="$GIT" show "HEAD:$T/$1"; fi
}
for f in KernelTuningCudaScript.json CudaKernel.cu; do
  show $f > "$OUT/$f"
done
if ! show ArgumentData.bin > "$OUT/ArgumentData.bin" 2> /dev/null ||
  [ "$(stat -c %s "$OUT/ArgumentData.bin")" != 4194304 ]; then
  python3 -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<1048576f', *range(1048576)))" \
    > "$OUT/ArgumentData.bin"
  echo "ArgumentData.bin: not in $GIT, written as float32 i"
fi
echo "$T/KernelTuningCudaScript.json: sha256 $(sha256sum < "$OUT/KernelTuningCudaScript.json" | cut -c1-64)," \
  "git blob $(git hash-object "$OUT/KernelTuningCudaScript.json")"
"$K" bench --family-file "$OUT/KernelTuningCudaScript.json" --store "$OUT/vectoradd.sqlite" "$@"
"$K" export --store "$OUT/vectoradd.sqlite" --format csv -o "$OUT/vectoradd.csv"
cat "$OUT/vectoradd.csv"
