#!/usr/bin/env python3
"""Per-layer table of the cuda_igemm_mma sweep against cuDNN in the same precision
(scripts/gpu_conv_igemm.sh's files): for each layer the fastest verified config of the sweep (the
in-sample oracle: every config was timed on that layer) and cuDNN's fastest legacy algorithm;
ratio = cuDNN time / ktune time (above 1: ktune faster). Summary per network and batch, and over
all layers: geometric mean of the ratio, time-weighted ratio (sum of cuDNN times / sum of ktune
times), layers below 0.8x and the worst layers. --frontend adds a second baseline from another
run: cuDNN's fastest engine per layer through PyTorch's cudnn.benchmark in either layout
(kernels/conv2d/cudnn_precisions.py's CSV, the same precision), which reaches the sm90 kernels the
legacy Find does not; its columns are prefixed frontend_ and summarized in a table of their own.

  scripts/conv_igemm/tables.py --layers layers.csv --sweep conv2d-igemm-mma.csv.gz \
      --cudnn cudnn16.csv --precision bf16 [--frontend cudnn-precisions.csv] \
      --csv per-layer.csv --markdown summary.md
"""
import argparse
import csv
import gzip
import math
import sys

FEATURES = ["n", "h", "w", "c", "k", "r", "s", "stride", "pad"]
PRECISION_CODES = {"bf16": "2", "fp16": "3"}


def fail(message):
    print(f"conv_igemm tables: {message}", file=sys.stderr)
    sys.exit(1)


def key_of(row, precision):
    return ";".join(f"{f}={int(row[f])}" for f in FEATURES) + f";precision={precision}"


def main():
    parser = argparse.ArgumentParser()
    for name in ("--layers", "--sweep", "--cudnn", "--csv", "--markdown"):
        parser.add_argument(name, required=True)
    parser.add_argument("--precision", default="bf16", choices=sorted(PRECISION_CODES))
    parser.add_argument("--frontend", help="cudnn_precisions.py CSV (another run)")
    parser.add_argument("--worst", type=int, default=5)
    args = parser.parse_args()
    code = PRECISION_CODES[args.precision]

    best = {}  # problem key -> (median_ms, config)
    with gzip.open(args.sweep, "rt") as f:
        for r in csv.DictReader(f):
            if r["status"] != "ok" or "kind=cuda_igemm_mma" not in r["config"]:
                continue
            ms = float(r["median_ms"])
            if r["problem"] not in best or ms < best[r["problem"]][0]:
                best[r["problem"]] = (ms, r["config"])
    cudnn = {key_of(r, code): r for r in csv.DictReader(open(args.cudnn))
             if r["precision"] == args.precision}

    frontend = {}  # key -> fastest row over layouts
    if args.frontend:
        for r in csv.DictReader(open(args.frontend)):
            if r["precision"] != args.precision:
                continue
            key = key_of(r, code)
            if key not in frontend or float(r["median_ms"]) < float(frontend[key]["median_ms"]):
                frontend[key] = r

    rows = []
    for layer in csv.DictReader(open(args.layers)):
        key = key_of(layer, code)
        if key not in best or key not in cudnn:
            fail(f"{layer['network']} {layer['layer']} n={layer['n']}: "
                 f"{'no verified sweep result' if key not in best else 'no cuDNN row'}")
        ms, config = best[key]
        vendor = cudnn[key]
        flop = 2.0 * int(layer["n"]) * int(layer["k"]) * int(layer["c"]) * int(layer["r"]) * \
            int(layer["s"]) * ((int(layer["h"]) + 2 * int(layer["pad"]) - int(layer["r"])) //
                               int(layer["stride"]) + 1) * \
            ((int(layer["w"]) + 2 * int(layer["pad"]) - int(layer["s"])) //
             int(layer["stride"]) + 1)
        vendor_ms = float(vendor["median_ms"])
        rows.append({
            "network": layer["network"], "layer": layer["layer"],
            **{f: layer[f] for f in FEATURES}, "precision": args.precision,
            "ktune_config": config, "ktune_ms": f"{ms:.6g}",
            "ktune_tflops": f"{flop / ms / 1e9:.4g}", "cudnn_algo": vendor["algo"],
            "cudnn_ms": f"{vendor_ms:.6g}", "cudnn_tflops": f"{flop / vendor_ms / 1e9:.4g}",
            "ratio": f"{vendor_ms / ms:.4f}"})
        if args.frontend:
            if key not in frontend:
                fail(f"{layer['network']} {layer['layer']} n={layer['n']}: no --frontend row")
            fr = frontend[key]
            rows[-1].update({"frontend_layout": fr["layout"], "frontend_ms": fr["median_ms"],
                             "frontend_ratio": f"{float(fr['median_ms']) / ms:.4f}"})

    with open(args.csv, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    def summary(name, group, vendor, ratio):
        ratios = [float(r[ratio]) for r in group]
        geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        weighted = sum(float(r[vendor]) for r in group) / sum(float(r["ktune_ms"]) for r in group)
        below = sum(x < 0.8 for x in ratios)
        return (f"| {name} | {len(group)} | {geomean:.3f} | {weighted:.3f} | {below} | "
                f"{sum(float(r['ktune_ms']) for r in group):.3f} | "
                f"{sum(float(r[vendor]) for r in group):.3f} |")

    groups = {}
    for r in rows:
        groups.setdefault((r["network"], int(r["n"])), []).append(r)

    def tables(title, vendor, ratio):
        out = [title, "", "| set | layers | geomean | time-weighted | below 0.8x | ktune ms | "
               "cuDNN ms |", "|---|---:|---:|---:|---:|---:|---:|"]
        for (network, n), group in sorted(groups.items()):
            out.append(summary(f"{network} b{n}", group, vendor, ratio))
        out.append(summary("all", rows, vendor, ratio))
        out += ["", f"Worst {args.worst} layers:", "",
                "| network | layer | n | h x w | c -> k | r x s / stride | ktune ms | cuDNN ms | "
                "ratio |", "|---|---|---:|---|---|---|---:|---:|---:|"]
        for r in sorted(rows, key=lambda r: float(r[ratio]))[:args.worst]:
            out.append(f"| {r['network']} | {r['layer']} | {r['n']} | {r['h']}x{r['w']} | "
                       f"{r['c']} -> {r['k']} | {r['r']}x{r['s']} / {r['stride']} | "
                       f"{r['ktune_ms']} | {r[vendor]} | {r[ratio]} |")
        return out + [""]

    lines = tables(f"cuda_igemm_mma (in-sample oracle of the sweep) vs cuDNN's fastest legacy "
                   f"algorithm (same run), {args.precision}; ratio = cuDNN time / ktune time "
                   f"(above 1: ktune faster)", "cudnn_ms", "ratio")
    if args.frontend:
        lines += tables(f"The same ktune times vs cuDNN's fastest engine through PyTorch "
                        f"(cudnn.benchmark, NCHW or NHWC, {args.precision}; another run: "
                        f"--frontend {args.frontend})", "frontend_ms", "frontend_ratio")
    with open(args.markdown, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
