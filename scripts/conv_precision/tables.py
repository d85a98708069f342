#!/usr/bin/env python3
"""Issue #25's conv-layer tables per precision, from one run of scripts/gpu_conv_precision_tables.sh
(its $OUT directory): ktune against cuDNN at its best in the same precision and run, per layer of
VGG16 and ResNet-50 at batch 1 and 16.

  fp32       the deployed library (ktune::conv2d) from tuned_conv_bench's CSVs: fp32-deployed.csv
             (in-sample selector) and fp32-heldout.csv (trained on ResNet-50, run on VGG16)
  tf32/bf16/fp16  sweep-<p>.csv.gz (every tensor-core config swept and the cudnn vendor row, verified):
             each --selector header's pick (then its fallback order where the pick refused),
             timed in the sweep: no 16-bit conv library ships, so this stands in for one; and
             the oracle (fastest verified config per layer, in-sample by construction)

Ratio = vendor ms / ktune ms (above 1: ktune faster); per set: geometric mean, time-weighted
ratio (sum over layers of count x vendor ms over the same sum of ktune ms, count = the layer's
repeats in its network, workloads/conv2d), layers below 0.8x, worst layer; the worst layers of
each precision in a table of their own. A layer whose ktune or vendor row is not verified (status
other than ok) is listed as missing, never timed. --torch adds cuDNN's fastest layout through
PyTorch (kernels/conv2d/cudnn_precisions.py CSV of the same run) as a check of the vendor row:
layers where it was more than 10 % faster are counted.

  scripts/conv_precision/tables.py --dir RUN_DIR \
      --selector in-sample=HEADER --selector held-out=HEADER@vgg16 \
      --csv per-layer.csv --markdown summary.md [--worst 8]
"""
import argparse
import csv
import gzip
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from header_picks import header_picks  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FEATURES = ("n", "h", "w", "c", "k", "r", "s", "stride", "pad")
PRECISION_CODES = {"tf32": 1, "bf16": 2, "fp16": 3}
NETWORKS = (("vgg16", "conv2d-vgg16.csv"), ("resnet50", "conv2d-resnet50.csv"))


def fail(message):
    print(f"conv_precision tables: {message}", file=sys.stderr)
    sys.exit(1)


def layers(workloads):
    """(network, layer, count, features) of VGG16 and ResNet-50 at batch 1 and 16."""
    out = []
    for network, name in NETWORKS:
        with open(os.path.join(workloads, name), newline="") as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
        for batch in (1, 16):
            for r in rows:
                feats = {k: int(r[k]) for k in FEATURES if k != "n"}
                feats["n"] = batch
                out.append((network, r["layer"], int(r.get("count") or 1), feats))
    return out


def key_of(feats, precision=None):
    key = ";".join(f"{k}={feats[k]}" for k in FEATURES)
    if precision in PRECISION_CODES:
        key += f";precision={PRECISION_CODES[precision]}"
    return key


def flop(f):
    p = (f["h"] + 2 * f["pad"] - f["r"]) // f["stride"] + 1
    q = (f["w"] + 2 * f["pad"] - f["s"]) // f["stride"] + 1
    return 2.0 * f["n"] * p * q * f["k"] * f["c"] * f["r"] * f["s"]


def read_sweep(path):
    """{problem: {config: (status, median_ms, message)}} of a ktune export."""
    out = {}
    with gzip.open(path, "rt", newline="") as f:
        for r in csv.DictReader(f):
            ms = float(r["median_ms"]) if r["median_ms"] else math.nan
            # `ktune export` names a vendor row by the vendor alone ("cudnn", config_id -1);
            # older exports wrote "vendor=cudnn": one key for both.
            config = r["config"]
            if r.get("config_id") == "-1" and not config.startswith("vendor="):
                config = "vendor=" + config
            out.setdefault(r["problem"], {})[config] = (r["status"], ms, r.get("message", ""))
    return out


def read_torch(path):
    """{(network, layer, n, precision): fastest ms over layouts, layout}."""
    best = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["network"], r["layer"], int(r["n"]), r["precision"])
            ms = float(r["median_ms"])
            if key not in best or ms < best[key][0]:
                best[key] = (ms, r["layout"])
    return best


def row(precision, side, sample, network, layer, count, feats, ktune, vendor, torch=None):
    """One per-layer row; ktune / vendor: (ms or None, config or algorithm, status)."""
    r = {"precision": precision, "ktune": side, "sample": sample, "network": network,
         "layer": layer, "count": count, **feats, "ktune_config": ktune[1],
         "ktune_ms": ktune[0], "vendor_algo": vendor[1], "vendor_ms": vendor[0],
         "status": "ok" if ktune[2] == "ok" and vendor[2] == "ok" else
         f"ktune {ktune[2]}, vendor {vendor[2]}"}
    r["ratio"] = r["vendor_ms"] / r["ktune_ms"] if r["status"] == "ok" else None
    if torch is not None:
        r["torch_ms"], r["torch_layout"] = torch
    return r


def sixteen_bit_rows(sweep, precision, selectors, all_layers, torch):
    """Per layer: each selector's served config (pick, else the first of its fallback order that
    did not refuse) and the oracle, against the cudnn vendor row."""
    keys = {key_of(f, precision): (net, name, count, f) for net, name, count, f in all_layers}
    missing = [k for k in keys if k not in sweep]
    if len(missing) == len(keys):
        return []
    rows = []
    for label, (header, networks) in selectors.items():
        served = header_picks(header, keys)
        for key, (net, name, count, f) in keys.items():
            if networks and net not in networks:
                continue
            got = sweep.get(key, {})
            vendor = got.get("vendor=cudnn", ("missing", math.nan, ""))
            ktune = ("missing", math.nan, "")
            config = served[key][0]
            for candidate in served[key]:
                config, ktune = candidate, got.get(candidate, ("missing", math.nan, ""))
                if ktune[0] != "refused":
                    break
            t = torch.get((net, name, f["n"], precision))
            rows.append(row(precision, "selector", label, net, name, count, f,
                            (ktune[1], config, ktune[0]), (vendor[1], vendor[2], vendor[0]), t))
    for key, (net, name, count, f) in keys.items():
        got = sweep.get(key, {})
        ok = [(ms, c) for c, (st, ms, _) in got.items() if st == "ok" and c.startswith("kind=")]
        vendor = got.get("vendor=cudnn", ("missing", math.nan, ""))
        best = min(ok) if ok else (math.nan, "")
        rows.append(row(precision, "oracle", "in-sample", net, name, count, f,
                        (best[0], best[1], "ok" if ok else "missing"),
                        (vendor[1], vendor[2], vendor[0]),
                        torch.get((net, name, f["n"], precision))))
    return rows


def fp32_rows(path, sample, all_layers):
    """tuned_conv_bench's CSV (GFLOP/s) as per-layer times of the deployed library and cudnn."""
    counts = {(net, name, f["n"]): (count, f) for net, name, count, f in all_layers}
    rows = []
    with open(path, newline="") as handle:
        for r in csv.DictReader(handle):
            count, f = counts[(r["network"], r["layer"], int(r["n"]))]
            mflop = flop(f) / 1e6  # MFLOP / (GFLOP/s) = ms
            ms = {side: mflop / float(r[side + "_gflops"]) if float(r[side + "_gflops"]) > 0
                  else math.nan for side in ("deployed", "vendor")}
            st = r["status"] or "ok"
            vendor_status = "ok" if ms["vendor"] > 0 else "missing"
            rows.append(row("fp32", "deployed library", sample, r["network"], r["layer"], count, f,
                            (ms["deployed"], r["config"], st),
                            (ms["vendor"], r["vendor_algo"], vendor_status)))
    return rows


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


def summarize(rows):
    ok = [r for r in rows if r["status"] == "ok"]
    worst = min(ok, key=lambda r: r["ratio"]) if ok else None
    return {"layers": len(rows), "missing": len(rows) - len(ok),
            "geomean": geomean([r["ratio"] for r in ok]),
            "time_weighted": sum(r["count"] * r["vendor_ms"] for r in ok) /
            sum(r["count"] * r["ktune_ms"] for r in ok) if ok else math.nan,
            "below": sum(r["ratio"] < 0.8 for r in ok),
            "ktune_ms": sum(r["count"] * r["ktune_ms"] for r in ok),
            "vendor_ms": sum(r["count"] * r["vendor_ms"] for r in ok),
            "worst": f"{worst['network']} {worst['layer']} b{worst['n']} {worst['ratio']:.3f}"
            if worst else "—"}


def header_source(header):
    """The header's "// From: ..." line: what it was trained on."""
    with open(header) as f:
        for line in f:
            if line.startswith("// From: "):
                return line[len("// From: "):].strip()
    return "(no From: line)"


def markdown(rows, worst_count, selectors):
    groups = {}
    for r in rows:
        groups.setdefault((r["precision"], r["ktune"], r["sample"]), []).append(r)
    out = ["Conv layers of VGG16 and ResNet-50 (batch 1, 16): ktune vs cuDNN at its best in the "
           "same precision and run (every algorithm of the legacy Find and the backend engines, "
           "NHWC and NCHW, fastest kept). Ratio = cuDNN ms / ktune ms (above 1: ktune faster); "
           "time-weighted = Σ count·cuDNN ms / Σ count·ktune ms (count: repeats in the "
           "network). "
           "fp32: the deployed library; tf32/bf16/fp16: the oracle (fastest measured "
           "tensor-core config per layer) and, where a selector header is given, its pick "
           "among the measured configs. In tf32 both write FP32; in bf16/fp16 cuDNN writes "
           "16-bit output, ktune FP32.", "",
           "| precision | ktune | sample | set | layers | geomean | time-weighted | below 0.8x "
           "| ktune ms | cuDNN ms | worst layer |",
           "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    intro = [f"- selector `{label}`: `{os.path.basename(header)}`"
             + (f" (scored on {', '.join(sorted(nets))} only)" if nets else "")
             + f", {header_source(header)}" for label, (header, nets) in selectors.items()]
    if intro:
        out[1:1] = [""] + intro
    for (precision, side, sample), group in groups.items():
        sets = {}
        for r in group:
            sets.setdefault(f"{r['network']} b{r['n']}", []).append(r)
        sets["all"] = group
        for name, members in sets.items():
            s = summarize(members)
            layers = f"{s['layers']}" + (f" ({s['missing']} missing)" if s["missing"] else "")
            ratios = [f"{s[x]:.3f}" if s[x] == s[x] else "—"  # nan: no verified layer
                      for x in ("geomean", "time_weighted")]
            out.append(f"| {precision} | {side} | {sample} | {name} | {layers} | {ratios[0]} "
                       f"| {ratios[1]} | {s['below']} | {s['ktune_ms']:.3f} "
                       f"| {s['vendor_ms']:.3f} | {s['worst']} |")
    for (precision, side, sample), group in groups.items():
        ok = sorted((r for r in group if r["status"] == "ok"), key=lambda r: r["ratio"])
        out += ["", f"Worst {min(worst_count, len(ok))} layers, {precision}, {side} ({sample}):",
                "", "| network | layer | n | h x w | c -> k | r x s / stride | ktune ms | cuDNN ms "
                "| ratio | ktune config | cuDNN algorithm |",
                "|---|---|---:|---|---|---|---:|---:|---:|---|---|"]
        for r in ok[:worst_count]:
            out.append(f"| {r['network']} | {r['layer']} | {r['n']} | {r['h']}x{r['w']} "
                       f"| {r['c']} -> {r['k']} | {r['r']}x{r['s']} / {r['stride']} "
                       f"| {r['ktune_ms']:.4f} | {r['vendor_ms']:.4f} | {r['ratio']:.3f} "
                       f"| `{r['ktune_config']}` | {r['vendor_algo']} |")
        bad = [r for r in group if r["status"] != "ok"]
        if bad:
            out += ["", "Not compared (unverified or missing rows): " + ", ".join(
                f"{r['network']} {r['layer']} b{r['n']} ({r['status']})" for r in bad)]
        torch = [r for r in ok if r.get("torch_ms")]
        if torch:
            faster = [r for r in torch if r["torch_ms"] < 0.9 * r["vendor_ms"]]
            faster.sort(key=lambda r: r["torch_ms"] / r["vendor_ms"])
            out += ["", f"cuDNN through PyTorch (same call): more than 10 % faster than the vendor "
                    f"row on {len(faster)} of {len(torch)} layers" + (", most: " + ", ".join(
                        f"{r['network']} {r['layer']} b{r['n']} {r['torch_ms']:.4f} "
                        f"({r['torch_layout']}) vs {r['vendor_ms']:.4f} ms" for r in faster[:5])
                        if faster else "")]
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True, help="the device run's output directory")
    parser.add_argument("--selector", action="append", default=[],
                        help="LABEL=HEADER[@network,...] (the networks it is scored on)")
    parser.add_argument("--csv", required=True)
    parser.add_argument("--markdown", required=True)
    parser.add_argument("--worst", type=int, default=8)
    parser.add_argument("--workloads", default=os.path.join(ROOT, "workloads", "conv2d"))
    args = parser.parse_args()
    selectors = {}
    for spec in args.selector:
        label, sep, rest = spec.partition("=")
        if not sep or not rest:
            fail(f"--selector '{spec}': expected LABEL=HEADER[@network,...]")
        header, _, nets = rest.partition("@")
        if not os.path.isfile(header):
            fail(f"--selector '{spec}': no header {header}")
        selectors[label] = (header, set(nets.split(",")) if nets else set())
    all_layers = layers(args.workloads)
    path = lambda name: os.path.join(args.dir, name)  # noqa: E731
    torch = read_torch(path("cudnn-torch.csv")) if os.path.exists(path("cudnn-torch.csv")) else {}
    rows = []
    for name, sample in (("fp32-deployed.csv", "in-sample"), ("fp32-heldout.csv", "held-out")):
        if os.path.exists(path(name)):
            rows += fp32_rows(path(name), sample, all_layers)
    for precision in PRECISION_CODES:
        if os.path.exists(path(f"sweep-{precision}.csv.gz")):
            rows += sixteen_bit_rows(read_sweep(path(f"sweep-{precision}.csv.gz")), precision,
                                     selectors, all_layers, torch)
    if not rows:
        fail(f"{args.dir}: no fp32-deployed.csv, fp32-heldout.csv or sweep-*.csv.gz")
    columns = list(rows[0].keys()) + ["torch_ms", "torch_layout"]
    with open(args.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(dict.fromkeys(columns)), extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    with open(args.markdown, "w") as f:
        f.write(markdown(rows, args.worst, selectors))


if __name__ == "__main__":
    main()
