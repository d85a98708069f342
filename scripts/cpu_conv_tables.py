#!/usr/bin/env python3
"""The deployed CPU conv2d library against oneDNN at its best, per layer and in summary, from
tuned_conv_bench's per-layer CSVs (scripts/cpu_conv_sweep.sh writes them):
  scripts/cpu_conv_tables.py DEVICE --in-sample CSV [CSV...] --held-out CSV [CSV...]
                             [--conv-small WORKLOAD_CSV] > tables.md
Summary per network and batch: geomean of the per-layer speed ratios (deployed / vendor: above 1
ktune is faster), time-weighted ratio (sum of vendor ms / sum of deployed ms over the distinct
layers), layers below 0.8x and the three worst layers; with --conv-small (the conv-small workload,
workloads/conv2d/conv2d-small.csv: 12 of the networks' layers at batch 1) also a row over those
of the in-sample layers; then every layer with the shipped config it ran and oneDNN's algorithm.
With --own-share (a library shipping oneDNN's calls as candidates, config "vendor=..."): two more
columns, the share of the layers and of the deployed time served by ktune's own kernels.
A bad or empty file: a one-line error and exit status 1."""
import argparse
import csv
import math
import sys

NEEDED = ("network", "batch", "n", "h", "w", "c", "k", "r", "s", "stride", "pad",
          "deployed_gflops", "vendor_gflops", "layer", "config", "status", "vendor_algo")


def flop(r):
    n, h, w, c, k, fr, fs, st, pad = (int(r[x]) for x in NEEDED[2:11])
    p = (h + 2 * pad - fr) // st + 1
    q = (w + 2 * pad - fs) // st + 1
    return 2.0 * n * p * q * k * c * fr * fs


def read(path):
    try:
        rows = list(csv.DictReader(open(path)))
    except OSError as e:
        sys.exit(f"cpu_conv_tables: {path}: {e.strerror}")
    if not rows:
        sys.exit(f"cpu_conv_tables: {path}: no rows")
    missing = [c for c in NEEDED if c not in rows[0]]
    if missing:
        sys.exit(f"cpu_conv_tables: {path}: missing column(s) {', '.join(missing)}")
    out = []
    for i, r in enumerate(rows, start=2):
        try:
            f = flop(r)
            d = float(r["deployed_gflops"] or 0)
            v = float(r["vendor_gflops"] or 0)
        except (ValueError, TypeError, ZeroDivisionError) as e:
            sys.exit(f"cpu_conv_tables: {path}:{i}: {e}")
        if not f > 0 or not math.isfinite(d) or not math.isfinite(v):
            sys.exit(f"cpu_conv_tables: {path}:{i}: layer {r['layer']} has no positive size or "
                     "a time that is not finite")
        if r["status"] != "ok" or d <= 0 or v <= 0:
            sys.exit(f"cpu_conv_tables: {path}:{i}: layer {r['layer']} has no deployed and vendor "
                     f"time (status {r['status']})")
        r["ratio"] = d / v
        r["deployed_ms"] = f / d * 1e-6
        r["vendor_ms"] = f / v * 1e-6
        out.append(r)
    return out


def summary(rows, own_share=False):
    g = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
    tw = sum(r["vendor_ms"] for r in rows) / sum(r["deployed_ms"] for r in rows)
    below = sum(r["ratio"] < 0.8 for r in rows)
    worst = sorted(rows, key=lambda r: r["ratio"])[:3]
    worst = ", ".join(f"{r['layer']} {r['ratio']:.2f}" for r in worst)
    if own_share:  # ktune's own kernels: not a vendor candidate's config
        own = [r for r in rows if not r["config"].startswith("vendor=")]
        share = sum(r["deployed_ms"] for r in own) / sum(r["deployed_ms"] for r in rows)
        worst = f"{len(own)}/{len(rows)} | {share:.0%} | {worst}"
    return g, tw, below, worst


def conv_small_layers(path):
    """(network, layer) of the conv-small workload's rows (all at batch 1)."""
    try:
        lines = [x for x in open(path) if x.strip() and not x.startswith("#")]
    except OSError as e:
        sys.exit(f"cpu_conv_tables: {path}: {e.strerror}")
    rows = list(csv.DictReader(lines))
    if not rows or "network" not in rows[0] or "layer" not in rows[0]:
        sys.exit(f"cpu_conv_tables: {path}: no network,layer rows")
    return {(r["network"], r["layer"]) for r in rows}


def tables(label, rows, subsets=(), own_share=False):
    own = "own kernels: layers | own kernels: time | " if own_share else ""
    out = [f"| {label} | network | batch | layers | geomean | time-weighted | below 0.8× | "
           f"{own}worst layers (deployed / vendor) |",
           "|---|---|---:|---:|---:|---:|---:|" + ("---:|---:|" if own_share else "") + "---|"]
    groups = {}
    for r in rows:
        groups.setdefault((r["network"], r["batch"]), []).append(r)
    for (net, batch), rs in sorted(groups.items()):
        g, tw, below, worst = summary(rs, own_share)
        out.append(f"| | {net} | {batch} | {len(rs)} | **{g:.3f}** | {tw:.3f} | {below} | {worst} |")
    for name, batch, rs in subsets:
        if rs:
            g, tw, below, worst = summary(rs, own_share)
            out.append(f"| | {name} | {batch} | {len(rs)} | **{g:.3f}** | {tw:.3f} | {below} | "
                       f"{worst} |")
    g, tw, below, worst = summary(rows, own_share)
    out.append(f"| | all | | {len(rows)} | **{g:.3f}** | {tw:.3f} | {below} | {worst} |")
    return out


def per_layer(rows):
    out = ["| network | layer | batch | deployed ms | oneDNN ms | deployed / vendor | config | "
           "oneDNN algorithm |", "|---|---|---:|---:|---:|---:|---|---|"]
    for r in rows:
        out.append(f"| {r['network']} | {r['layer']} | {r['batch']} | {r['deployed_ms']:.3f} | "
                   f"{r['vendor_ms']:.3f} | {r['ratio']:.3f} | `{r['config']}` | "
                   f"{r['vendor_algo']} |")
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("device")
    parser.add_argument("--in-sample", nargs="+", required=True)
    parser.add_argument("--held-out", nargs="+", required=True)
    parser.add_argument("--conv-small")
    parser.add_argument("--own-share", action="store_true",
                        help="columns: the share of layers and of time on ktune's own kernels")
    args = parser.parse_args(argv)
    inside = [r for path in args.in_sample for r in read(path)]
    subsets = []
    if args.conv_small:
        small = conv_small_layers(args.conv_small)
        subsets.append(("conv-small", 1, [r for r in inside if r["batch"] == "1" and
                                          (r["network"], r["layer"]) in small]))
    held = [r for path in args.held_out for r in read(path)]
    device = args.device
    lines = [f"Device: {device}. The deployed CPU conv2d library (ktune::CpuConv2dPlan: the "
             "selector's config per layer, its filter prepared once) against oneDNN at its best "
             "per layer (the faster of convolution_auto and, where oneDNN has one, its Winograd "
             "with the NHWC reorders counted; weights reordered once), timed alternately in one "
             "process, medians. Ratios are deployed / vendor speed (> 1: ktune faster); "
             "time-weighted = Σ vendor ms / Σ deployed ms over the distinct layers.", "",
             "In-sample: the selector was trained on these layers' sweep rows. Held out: a "
             "selector trained on the ResNet-50 layers only, run on the VGG16 layers.", ""]
    own = args.own_share
    lines += tables("in-sample", inside, subsets, own) + [""] + tables("**held out**", held, (), own)
    lines += ["", "In-sample, per layer:", ""] + per_layer(inside)
    lines += ["", "Held out (VGG16 layers, ResNet-50-trained selector), per layer:", ""]
    lines += per_layer(held)
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
