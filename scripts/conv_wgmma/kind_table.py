#!/usr/bin/env python3
"""The cuda_igemm_wgmma kind against cuDNN at its best, from one ktune sweep (a `ktune export`
CSV of `ktune bench --workload dnn@bf16 --configs kind:cuda_igemm_wgmma`: every config of the kind
and the family's cudnn vendor row, same run, all verified against float64): per layer of VGG16 and
ResNet-50 at batch 1 and 16, the fastest verified config of the kind (an in-sample oracle: no
selector) and the vendor row; ratio = cuDNN ms / kind ms (above 1: the kind is faster).

Per network and batch and over all layers: geometric mean of the ratios, time-weighted ratio
(sum of count x cuDNN ms over sum of count x kind ms, count = the layer's repeats in its network),
layers below 1; the worst layers with cuDNN's engine and layout (the vendor row's message).
Layers the kind refuses (c % 64 != 0: the c = 3 stems) are listed, never timed.

  scripts/conv_wgmma/kind_table.py SWEEP.csv.gz --csv per-layer.csv --markdown summary.md
      [--worst 8] [--workloads workloads/conv2d]
"""
import argparse
import csv
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conv_precision"))
from tables import ROOT, key_of, layers, read_sweep  # noqa: E402

KIND = "kind=cuda_igemm_wgmma;"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


def per_layer(sweep, precision, workloads):
    rows = []
    for net, name, count, f in layers(workloads):
        got = sweep.get(key_of(f, precision), {})
        ok = sorted((ms, c) for c, (st, ms, _) in got.items() if st == "ok" and c.startswith(KIND))
        refused = [m for c, (st, _, m) in got.items() if st == "refused" and c.startswith(KIND)]
        vendor = got.get("vendor=cudnn", ("missing", math.nan, ""))
        r = {"network": net, "layer": name, "n": f["n"], "count": count, **f}
        r["kind_config"] = ok[0][1][len(KIND):] if ok else ""
        r["kind_ms"] = ok[0][0] if ok else None
        r["kind_status"] = ("ok" if ok else ("refused: " + refused[0].split(": ", 1)[-1])
                            if refused else "missing")
        r["cudnn_ms"] = vendor[1] if vendor[0] == "ok" else None
        r["cudnn_algo"] = vendor[2]
        r["ratio"] = r["cudnn_ms"] / r["kind_ms"] if ok and r["cudnn_ms"] else None
        rows.append(r)
    return rows


def summary_lines(rows, worst):
    timed = [r for r in rows if r["ratio"] is not None]
    out = ["| set | layers | geomean cuDNN/kind | time-weighted | below 1 | kind ms | cuDNN ms |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    groups = [(f"{net} b{n}", [r for r in timed if r["network"] == net and r["n"] == n])
              for net in ("vgg16", "resnet50") for n in (1, 16)] + [("all", timed)]
    for label, rs in groups:
        if not rs:
            continue
        kind = sum(r["count"] * r["kind_ms"] for r in rs)
        cudnn = sum(r["count"] * r["cudnn_ms"] for r in rs)
        below = sum(r["ratio"] < 1 for r in rs)
        out.append(f"| {label} | {len(rs)} | {geomean([r['ratio'] for r in rs]):.3f} | "
                   f"{cudnn / kind:.3f} | {below} | {kind:.3f} | {cudnn:.3f} |")
    engines = {}
    for r in timed:
        words = dict(w.split("=", 1) for w in r["cudnn_algo"].split() if "=" in w)
        label = f"engine {words.get('engine', '?')} {words.get('layout', '?')}"
        engines[label] = engines.get(label, 0) + 1
    out += ["", "cuDNN's fastest (engine, layout) per layer: " + ", ".join(
        f"{k} x{v}" for k, v in sorted(engines.items(), key=lambda kv: -kv[1]))]
    out += ["", f"Worst {worst} layers:", "",
            "| ratio | layer | kind config | kind ms | cuDNN ms | cuDNN engine, layout |",
            "|---:|---|---|---:|---:|---|"]
    for r in sorted(timed, key=lambda r: r["ratio"])[:worst]:
        out.append(f"| {r['ratio']:.3f} | {r['network']} {r['layer']} n={r['n']} | "
                   f"{r['kind_config']} | {r['kind_ms']:.4f} | {r['cudnn_ms']:.4f} | "
                   f"{r['cudnn_algo']} |")
    untimed = [r for r in rows if r["ratio"] is None]
    if untimed:
        out += ["", "Not compared: " + ", ".join(
            f"{r['network']} {r['layer']} n={r['n']} ({r['kind_status']}"
            f"{'' if r['cudnn_ms'] else ', cudnn missing'})" for r in untimed)]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sweep")
    ap.add_argument("--precision", default="bf16", choices=("bf16", "fp16"))
    ap.add_argument("--csv", required=True)
    ap.add_argument("--markdown", required=True)
    ap.add_argument("--worst", type=int, default=8)
    ap.add_argument("--workloads", default=os.path.join(ROOT, "workloads", "conv2d"),
                    help="directory of conv2d-vgg16.csv and conv2d-resnet50.csv")
    args = ap.parse_args()
    if not os.path.exists(args.sweep):
        sys.exit(f"kind_table: no sweep file {args.sweep}")
    rows = per_layer(read_sweep(args.sweep), args.precision, args.workloads)
    if not any(r["ratio"] is not None for r in rows):
        sys.exit(f"kind_table: no layer of {args.sweep} has both a verified kind row and cudnn")
    with open(args.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lines = summary_lines(rows, args.worst)
    with open(args.markdown, "w") as f:
        f.write(f"# cuda_igemm_wgmma vs cuDNN at its best, {args.precision}\n\n"
                "Per layer the fastest verified config of the kind (in-sample oracle) against the "
                "family's cudnn vendor row (legacy Find + backend engines, NHWC and NCHW, fastest "
                "kept), same run. Ratio = cuDNN ms / kind ms.\n\n" + "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
