#!/usr/bin/env bash
# Compiles three warp-kernel instantiations (NN, TN, NT of a 128x128x16 block, 64x32 warps, 8x8
# thread tiles) with nvcc for sm_90 and prints ptxas' registers/spills and the instruction mix of
# the hottest loop (the backward branch enclosing the most FFMAs). Needs nvcc and cuobjdump (the
# GPU machine has both): scripts/warp_sass_mix.sh
set -euo pipefail
cd "$(dirname "$0")/.."
t=$(mktemp -d)
{
  echo '#include "kernels/gemm/cuda/gemm_warp.cuh"'
  for tt in "0,0" "1,0" "0,1"; do
    echo "template __global__ void ktune_gemm_warp<128,128,16,64,32,8,8,3,8,$tt>(long long, long long, long long, float, const float*, long long, long long, const float*, long long, long long, float, float*, long long, long long, int, long long, float*);"
  done
} > "$t/inst.cu"
nvcc -arch=sm_90 -O3 -std=c++17 -I. -cubin -Xptxas -v "$t/inst.cu" -o "$t/inst.cubin" 2>&1 |
  grep -E "registers|spill"
cuobjdump -sass "$t/inst.cubin" > "$t/inst.sass"
python3 - "$t/inst.sass" <<'PY'
import collections, re, sys
text = open(sys.argv[1]).read()
for block in text.split("Function : ")[1:]:
    name = block.split("\n", 1)[0].strip()
    ins = [(int(m.group(1), 16), m.group(2)) for m in
           re.finditer(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", block)]
    where = {a: i for i, (a, _) in enumerate(ins)}
    best = None
    for i, (a, text_) in enumerate(ins):
        m = re.search(r"BRA\s+(?:.*?)0x([0-9a-f]+)", text_)
        if m and int(m.group(1), 16) <= a and int(m.group(1), 16) in where:
            body = ins[where[int(m.group(1), 16)]:i + 1]
            n = sum("FFMA" in x for _, x in body)
            if best is None or n > best[0]:
                best = (n, body)
    if best is None:
        print(name, "no loop found"); continue
    ops = collections.Counter((x.split()[1] if x.startswith("@") else x.split()[0]).split(".")[0]
                              for _, x in best[1])
    print(name[-40:], len(best[1]), "instructions,", best[0], "FFMA:",
          ", ".join(f"{k} {v}" for k, v in ops.most_common(12)))
PY
rm -rf "$t"
