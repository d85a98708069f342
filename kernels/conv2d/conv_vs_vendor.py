#!/usr/bin/env python3
"""Per-layer conv2d comparison of the swept oracle, a deployed tuned library and the vendor
library (cuDNN / oneDNN), from a ktune long-CSV dataset and optionally a deployed-measurement
CSV; writes conv-vs-vendor.csv and a Markdown table of geometric means and time-weighted ratios
per network and batch, with each layer's roofline position.

  kernels/conv2d/conv_vs_vendor.py --data results/h100-80gb-hbm3/conv2d-dnn.csv.gz \
      --vendor cudnn --peak-gflops 66900 --bandwidth-gbs 3000 \
      [--deployed deployed.csv] [--exclude ft=pre] \
      --csv results/h100-80gb-hbm3/conv-vs-vendor.csv --markdown results/h100-80gb-hbm3/conv-vs-vendor.md

Oracle: the best verified config per problem among configs not matching --exclude (a substring
of the config string; the CUDA Winograd configs with ft=pre time the layer without its filter
transform, which a stateless library call cannot skip). Layers and networks come from the
workload CSVs in workloads/conv2d/ (VGG16 and ResNet-50 at batch 1 and 16). The deployed CSV has
columns network,batch,n,h,w,c,k,r,s,stride,pad,deployed_gflops,vendor_gflops[,...]; when given,
its vendor column (measured in the same run as the deployed library) replaces the dataset's.
--engines adds cuDNN's engine search (kernels/conv2d/cudnn_precisions.py's CSV, its fp32 rows
of both layouts, same GPU): each layer's vendor is then the faster of the two, and the CSV and
table say which (vendor_source, vendor_algo).
"""
import argparse
import csv
import gzip
import math
import os
import sys

FEATURES = ["n", "h", "w", "c", "k", "r", "s", "stride", "pad"]
HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = os.path.join(HERE, "..", "..", "workloads", "conv2d")


def fail(message):
    print(f"conv_vs_vendor: {message}", file=sys.stderr)
    sys.exit(1)


def key_of(f):
    return ";".join(f"{name}={int(f[name])}" for name in FEATURES)


def layers():
    """(network, layer name, features) of VGG16 and ResNet-50 at batch 1 and 16, file order."""
    out = []
    for network, file in (("vgg16", "conv2d-vgg16.csv"), ("resnet50", "conv2d-resnet50.csv")):
        path = os.path.join(WORKLOADS, file)
        with open(path, newline="") as handle:
            rows = [r for r in csv.DictReader(line for line in handle if not line.startswith("#"))]
        for batch in (1, 16):
            for r in rows:
                f = {name: int(r[name]) for name in FEATURES if name != "n"}
                f["n"] = batch
                out.append((network, r["layer"], f))
    return out


def read_dataset(path, vendor, exclude):
    opener = gzip.open if path.endswith(".gz") else open
    best, best_config, vendor_perf = {}, {}, {}
    with opener(path, "rt", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["status"] != "ok":
                continue
            perf = float(row["perf"])
            if row["config"] == vendor:
                vendor_perf[row["problem"]] = perf
            elif int(row["config_id"]) >= 0 and not (exclude and exclude in row["config"]):
                if perf > best.get(row["problem"], 0.0):
                    best[row["problem"]] = perf
                    best_config[row["problem"]] = row["config"]
    return best, best_config, vendor_perf


def read_deployed(path):
    """key -> (deployed GFLOP/s, vendor GFLOP/s, the vendor's algorithm or "")."""
    out = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            f = {name: int(row[name]) for name in FEATURES}
            out[key_of(f)] = (float(row["deployed_gflops"]), float(row["vendor_gflops"]),
                              row.get("vendor_algo") or "")
    return out


def read_engines(path):
    """key -> (GFLOP/s, "layout kernels") of the fastest fp32 row of cudnn_precisions.py's CSV."""
    out = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            if row["precision"] != "fp32":
                continue
            key = key_of({name: int(row[name]) for name in FEATURES})
            gflops = float(row["gflops"])
            if gflops > out.get(key, (0.0, ""))[0]:
                out[key] = (gflops, f"{row['layout'].upper()} {row['kernels'].split(';')[0]}")
    return out


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--vendor", required=True, help="vendor config name in the dataset")
    parser.add_argument("--deployed")
    parser.add_argument("--engines", help="cudnn_precisions.py CSV: its fp32 rows compete as the vendor")
    parser.add_argument("--exclude", default="")
    parser.add_argument("--peak-gflops", type=float, required=True)
    parser.add_argument("--bandwidth-gbs", type=float, required=True)
    parser.add_argument("--csv", required=True)
    parser.add_argument("--markdown", required=True)
    args = parser.parse_args()
    for path in [args.data] + [p for p in (args.deployed, args.engines) if p]:
        if not os.path.isfile(path):
            fail(f"no such file: {path}")
    best, best_config, vendor = read_dataset(args.data, args.vendor, args.exclude)
    deployed = read_deployed(args.deployed) if args.deployed else {}
    engines = read_engines(args.engines) if args.engines else {}

    rows = []
    for network, layer, f in layers():
        key = key_of(f)
        if key not in best or key not in vendor:
            fail(f"{network} {layer} (n={f['n']}): no verified oracle or {args.vendor} row in {args.data}")
        p = (f["h"] + 2 * f["pad"] - f["r"]) // f["stride"] + 1
        q = (f["w"] + 2 * f["pad"] - f["s"]) // f["stride"] + 1
        flops = 2.0 * f["n"] * p * q * f["k"] * f["c"] * f["r"] * f["s"]
        bytes_ = 4.0 * (f["n"] * f["h"] * f["w"] * f["c"] + f["k"] * f["r"] * f["s"] * f["c"] +
                        f["n"] * p * q * f["k"])
        dep, ven, algo = deployed.get(key, (float("nan"), vendor[key], ""))
        source = args.vendor
        if args.engines:
            if key not in engines:
                fail(f"{network} {layer} (n={f['n']}): no fp32 row in {args.engines}")
            if engines[key][0] > ven:
                ven, algo = engines[key]
                source = "cudnn-engines"
        rows.append(dict(network=network, layer=layer, f=f, flops=flops, intensity=flops / bytes_,
                         oracle=best[key], config=best_config[key], deployed=dep, vendor=ven,
                         source=source, algo=algo))

    with open(args.csv, "w", newline="") as handle:
        w = csv.writer(handle)
        w.writerow(["network", "batch"] + FEATURES + ["oracle_gflops", "deployed_gflops", "vendor_gflops",
                                                      "vendor_source", "vendor_algo"])
        for r in rows:
            w.writerow([r["network"], r["f"]["n"]] + [r["f"][n] for n in FEATURES] +
                       [f"{r['oracle']:.3f}", "" if math.isnan(r["deployed"]) else f"{r['deployed']:.3f}",
                        f"{r['vendor']:.3f}", r["source"], r["algo"]])

    have_deployed = all(not math.isnan(r["deployed"]) for r in rows)
    md = [f"Conv2d on `{os.path.basename(os.path.dirname(os.path.abspath(args.csv)))}`: oracle = best verified "
          f"config per layer in `{args.data}`" + (f" (configs containing `{args.exclude}` excluded)" if args.exclude else "") +
          (f"; deployed and {args.vendor} measured side by side in one run (`{args.deployed}`)" if have_deployed
           else f"; vendor = the dataset's `{args.vendor}` rows; no deployed measurements") +
          (f"; vendor = the faster of that and cuDNN's engine search (`{args.engines}`, fp32 rows)"
           if args.engines else "") +
          ". Ratios are geometric means over layers of the per-layer GFLOP/s ratios; time-weighted = "
          "total vendor time / total time (each distinct layer once).", ""]
    head = "| network | batch | layers | oracle / vendor | oracle / vendor, time-weighted |"
    sep = "|---|---:|---:|---:|---:|"
    if have_deployed:
        head += " deployed / vendor | deployed / vendor, time-weighted | deployed % of oracle |"
        sep += "---:|---:|---:|"
    md += [head, sep]
    groups = [(net, b) for net in ("vgg16", "resnet50") for b in (1, 16)] + [("all", 1), ("all", 16)]
    for net, b in groups:
        g = [r for r in rows if r["f"]["n"] == b and net in ("all", r["network"])]
        vendor_time = sum(r["flops"] / r["vendor"] for r in g)
        line = (f"| {net} | {b} | {len(g)} | {geomean([r['oracle'] / r['vendor'] for r in g]):.2f} | "
                f"{vendor_time / sum(r['flops'] / r['oracle'] for r in g):.2f} |")
        if have_deployed:
            line += (f" {geomean([r['deployed'] / r['vendor'] for r in g]):.2f} | "
                     f"{vendor_time / sum(r['flops'] / r['deployed'] for r in g):.2f} | "
                     f"{100 * geomean([r['deployed'] / r['oracle'] for r in g]):.1f} % |")
        md.append(line)
    md += ["", f"Roofline: FP32 FMA peak {args.peak_gflops:.0f} GFLOP/s, memory {args.bandwidth_gbs:.0f} GB/s; "
           "intensity = direct-convolution FLOPs / compulsory bytes (input, filter, output once). "
           "Winograd does fewer multiplications than it is credited with, so its effective GFLOP/s can pass the FMA roof.", "",
           "| network | layer | n | h×w | c→k | r×s/stride | intensity | roof GFLOP/s | oracle | oracle % roof | "
           + ("deployed | " if have_deployed else "") + "vendor | vendor % roof | best config | vendor algorithm |",
           "|---|---|---:|---|---|---|---:|---:|---:|---:|" + ("---:|" if have_deployed else "") + "---:|---:|---|---|"]
    for r in rows:
        f = r["f"]
        roof = min(args.peak_gflops, args.bandwidth_gbs * r["intensity"])
        md.append(f"| {r['network']} | {r['layer']} | {f['n']} | {f['h']}×{f['w']} | {f['c']}→{f['k']} | "
                  f"{f['r']}×{f['s']}/{f['stride']} | {r['intensity']:.0f} | {roof:.0f} | {r['oracle']:.0f} | "
                  f"{100 * r['oracle'] / roof:.0f} % | " + (f"{r['deployed']:.0f} | " if have_deployed else "") +
                  f"{r['vendor']:.0f} | {100 * r['vendor'] / roof:.0f} % | `{r['config']}` | "
                  f"{r['source']}: {r['algo'] or 'n/a'} |")
    with open(args.markdown, "w") as handle:
        handle.write("\n".join(md) + "\n")
    print(f"conv_vs_vendor: wrote {args.csv} and {args.markdown} ({len(rows)} layers)")


if __name__ == "__main__":
    main()
