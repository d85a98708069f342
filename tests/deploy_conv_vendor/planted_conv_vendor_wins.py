#!/usr/bin/env python3
"""Writes the planted "vendor wins" CPU conv2d dataset (ktune's long CSV) that the oneDNN
candidate tests learn from: 12 NHWC layers, one cpu_plan config that wins on the 4 small ones, a
second (the decoy) just below it everywhere, oneDNN's convolution_auto ("onednn") winning on the 5
large 1x1 / strided ones and its Winograd ("onednn_winograd", refused but for 3x3 stride 1) on the
3 large 3x3 stride-1 ones. So `ktune deploy --vendors --pruner topn --k 3` ships the first config
and both oneDNN calls, not the decoy: a kernels-only top 3 would ship both configs. Perf values
are planted, not measured.
Usage: planted_conv_vendor_wins.py OUT.csv"""
import sys

HEADER = ("device,family,problem,config,config_id,status,median_ms,min_ms,max_ms,mad_ms,reps,"
          "perf,rel_error,message,created_at,tags")
KERNEL = ("kind=cpu_plan;m=0;cols=192;rows=256", 1070)
DECOY = ("kind=cpu_plan;m=0;cols=384;rows=256", 1073)
# (n, h, w, c, k, r, s, stride, pad), and which candidate wins it.
LAYERS = [((1, 8, 8, 16, 16, 3, 3, 1, 1), "kernel"), ((1, 8, 8, 32, 32, 1, 1, 1, 0), "kernel"),
          ((1, 10, 10, 16, 32, 3, 3, 2, 1), "kernel"), ((2, 8, 8, 16, 16, 3, 3, 1, 1), "kernel"),
          ((1, 28, 28, 64, 64, 1, 1, 1, 0), "onednn"), ((1, 28, 28, 64, 128, 3, 3, 2, 1), "onednn"),
          ((1, 56, 56, 64, 64, 1, 1, 1, 0), "onednn"), ((1, 14, 14, 256, 256, 1, 1, 1, 0), "onednn"),
          ((2, 28, 28, 64, 64, 1, 1, 1, 0), "onednn"),
          ((1, 28, 28, 64, 64, 3, 3, 1, 1), "winograd"), ((1, 56, 56, 64, 64, 3, 3, 1, 1), "winograd"),
          ((1, 14, 14, 128, 128, 3, 3, 1, 1), "winograd")]


def rows():
    for (n, h, w, c, k, r, s, stride, pad), winner in LAYERS:
        problem = f"n={n};h={h};w={w};c={c};k={k};r={r};s={s};stride={stride};pad={pad}"
        p, q = (h + 2 * pad - r) // stride + 1, (w + 2 * pad - s) // stride + 1
        flops = 2.0 * n * p * q * k * c * r * s
        winograd = r == 3 and s == 3 and stride == 1
        perfs = [(KERNEL, 100.0 if winner == "kernel" else 50.0),
                 (DECOY, 95.0 if winner == "kernel" else 48.0),
                 (("onednn", -1), 80.0 if winner == "kernel" else 150.0),
                 (("onednn_winograd", -1), 200.0 if winner == "winograd" else 40.0)]
        for (config, config_id), perf in perfs:
            if config == "onednn_winograd" and not winograd:
                yield (f"planted-cpu,conv2d,{problem},{config},{config_id},refused,0,0,0,0,0,0,-1,"
                       f"onednn: no Winograd convolution for this problem,2026-11-28T00:00:00Z,planted")
                continue
            ms = flops / perf / 1e6
            yield (f'planted-cpu,conv2d,{problem},"{config}",{config_id},ok,{ms},{ms},{ms},0,10,'
                   f"{perf},1e-07,,2026-11-28T00:00:00Z,planted")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        out.write(HEADER + "\n")
        for row in rows():
            out.write(row + "\n")


if __name__ == "__main__":
    main()
