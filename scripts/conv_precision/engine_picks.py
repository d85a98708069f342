#!/usr/bin/env python3
"""The network engine's own tf32 / bf16 conv path against its cuDNN candidate, per conv layer, from
the load-time pick notes of a networks run's layers.csv (scripts/networks/precision_gpu_run.sh):
`ktune-cuda-tf32` / `ktune-cuda-bf16` time, for every conv layer, im2col + ktune::gemm_ex (1x1
stride 1: gemm_ex on the input) and cuDNN's conv of the precision (NHWC only, the engine's limited
engine search: not cuDNN at its best in both layouts) and keep the faster; the note holds both
times. The only tf32 conv of ktune (the conv2d family has no tf32 kind). Ratio = cuDNN ms /
gemm_ex ms (above 1: ktune's path faster); per backend, network and batch: layers, geomean,
time-weighted (every layer of the network is a row), layers below 0.8x, the worst, and how many
layers the engine picked gemm_ex for.
  scripts/conv_precision/engine_picks.py LAYERS_CSV [--markdown OUT]"""
import argparse
import csv
import math
import re
import sys

NOTE = re.compile(r"pick=(\w+) \(gemm_ex ([\d.]+) ms, cudnn ([\d.]+) ms")
BACKENDS = ("ktune-tf32", "ktune-bf16")


def read(path):
    groups = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["backend"] not in BACKENDS or r["kind"] != "conv":
                continue
            m = NOTE.search(r["choice"])
            if not m:
                sys.exit(f"engine_picks: {path}: {r['backend']} {r['network']} b{r['batch']} "
                         f"{r['name']}: no 'pick=... (gemm_ex X ms, cudnn Y ms' note")
            pick, gemm_ex, cudnn = m.group(1), float(m.group(2)), float(m.group(3))
            groups.setdefault((r["backend"], r["network"], int(r["batch"])), []).append(
                {"name": r["name"], "pick": pick, "gemm_ex": gemm_ex, "cudnn": cudnn,
                 "ratio": cudnn / gemm_ex})
    return groups


def markdown(groups):
    out = ["| backend | network | batch | conv layers | geomean | time-weighted | below 0.8x "
           "| picked gemm_ex | worst layer |", "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for (backend, network, batch), rows in groups.items():
        geomean = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
        weighted = sum(r["cudnn"] for r in rows) / sum(r["gemm_ex"] for r in rows)
        worst = min(rows, key=lambda r: r["ratio"])
        out.append(f"| {backend} | {network} | {batch} | {len(rows)} | {geomean:.3f} "
                   f"| {weighted:.3f} | {sum(r['ratio'] < 0.8 for r in rows)} "
                   f"| {sum(r['pick'] == 'gemm_ex' for r in rows)} "
                   f"| {worst['name']} {worst['ratio']:.3f} ({worst['gemm_ex']:.4f} vs "
                   f"{worst['cudnn']:.4f} ms) |")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("layers")
    parser.add_argument("--markdown")
    args = parser.parse_args()
    groups = read(args.layers)
    if not groups:
        sys.exit(f"engine_picks: {args.layers}: no {' / '.join(BACKENDS)} conv rows")
    text = markdown(groups)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
