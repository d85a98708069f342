#!/usr/bin/env python3
"""Deployed GEMM library vs the vendor libraries, per distinct shape, from tuned_gemm_bench CSVs
(the deployed and vendor columns of each row come from the same run), split into sets: each
--run is SET=FILE (e.g. in-sample=deployed-dnn.csv held-out=deployed-heldout-large.csv).
`vendor` is the fastest vendor of each shape; CPU runs also carry OpenBLAS and oneDNN separately
(their own columns and geomeans). --in-sample-selector HEADER splits every run into the shapes of
the dataset the generated selector header names (in-sample), the others (held-out) and all. With
--data (exported sweeps, .csv or .csv.gz), the best measured config of the swept space per shape
(oracle) is added. Writes one CSV row per (set, shape) (per shape with --in-sample-selector) and
a Markdown summary per set: geometric mean of deployed/vendor, time-weighted ratio (sum of vendor
times / sum of deployed times), the counts below 0.8x and 0.9x, the share of shapes and of
deployed time served by ktune's own kernels (not a shipped `vendor=` call), and the worst shapes.
  scripts/gemm_deployed_tables.py --run in-sample=a.csv --run held-out=b.csv \\
      [--data sweep.csv.gz ...] --csv out.csv --markdown out.md
  scripts/gemm_deployed_tables.py --run dnn=deployed-cpu-dnn.csv \\
      --in-sample-selector libraries/gemm/selectors/amd-epyc-2c-k8.hpp --csv ... --markdown ..."""
import argparse
import csv
import gzip
import lzma
import math
import os
import re
import sys

VENDORS = ("openblas", "onednn")  # the CPU vendors with their own columns
NAMES = {"openblas": "OpenBLAS", "onednn": "oneDNN"}


def shape_of(problem):
    f = dict(kv.split("=") for kv in problem.split(";"))
    return {k: int(f[k]) for k in ("transa", "transb", "m", "n", "k", "batch")}


def flop(s):
    return 2.0 * s["m"] * s["n"] * s["k"] * s["batch"]


def open_text(path):
    if path.endswith(".xz"):  # the larger sweeps are committed as .xz
        return lzma.open(path, "rt")
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path, newline="")


def read_oracle(paths):
    best = {}
    for path in paths:
        with open_text(path) as f:
            for r in csv.DictReader(f):
                if r["status"] == "ok" and r["config_id"] != "-1" and r["perf"]:
                    best[r["problem"]] = max(best.get(r["problem"], 0.0), float(r["perf"]))
    return best


def selector_dataset(header):
    """The dataset a generated selector header was trained on (its `--dataset` / `dataset`)."""
    with open(header) as f:
        text = f.read(4096)
    m = re.search(r"--dataset (\S+)", text) or re.search(r"dataset (\S+?)\.?$", text, re.M)
    if not m:
        sys.exit(f"{header}: names no dataset (not a selector header written by ktune codegen)")
    path = m.group(1)
    if not os.path.isabs(path) and not os.path.exists(path):
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(header))))
        path = os.path.join(root, path)  # recorded relative to the repository root
    if not os.path.exists(path):
        sys.exit(f"{header}: its dataset {m.group(1)} does not exist")
    return path


def dataset_problems(path):
    with open_text(path) as f:
        problems = {r["problem"] for r in csv.DictReader(f) if r.get("family", "gemm") == "gemm"}
    if not problems:
        sys.exit(f"{path}: no GEMM problem")
    return problems


def number(path, r, col):
    try:
        v = float(r[col])
    except (KeyError, ValueError):
        sys.exit(f"{path}: shape {r['problem']}: {col} '{r.get(col)}' is not a number")
    if not (v > 0 and math.isfinite(v)):
        sys.exit(f"{path}: shape {r['problem']}: {col} '{r[col]}' is not a positive number")
    return v


def read_run(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["status"] != "ok" or not r["vendor_gflops"]:
                sys.exit(f"{path}: shape {r['problem']} is not ok ({r['status']}: {r['message']})")
            r["vendor_name"] = r["vendor"]
            r["deployed"] = number(path, r, "deployed_gflops")
            r["vendor"] = number(path, r, "vendor_gflops")
            for v in VENDORS:  # older CSVs have no per-vendor columns; CUDA rows leave them empty
                r[v] = number(path, r, f"{v}_gflops") if r.get(f"{v}_gflops") else None
            present = [r[v] for v in VENDORS if r[v] is not None]
            if present and abs(max(present) - r["vendor"]) > 1e-3 * r["vendor"]:
                sys.exit(f"{path}: shape {r['problem']}: vendor_gflops is not the fastest vendor")
            r["shape"] = shape_of(r["problem"])
            r["ratio"] = r["deployed"] / r["vendor"]
            rows.append(r)
    if not rows:
        sys.exit(f"{path}: no measured shape")
    return rows


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def summary(name, rows, vendors):
    ratio = [r["ratio"] for r in rows]
    vendor_t = sum(flop(r["shape"]) / r["vendor"] for r in rows)
    ours_t = sum(flop(r["shape"]) / r["deployed"] for r in rows)
    pct = ""
    if all(r.get("oracle_gflops") for r in rows):
        pct = 100 * geomean([r["deployed"] / float(r["oracle_gflops"]) for r in rows])
        pct = f"{min(pct, 999):.1f} %"
    per_vendor = [f"{geomean([r['deployed'] / r[v] for r in rows]):.3f}" for v in vendors]
    # Served by ktune's own kernels, not a shipped vendor call (`vendor=...` configs), so that a
    # ratio cannot hide behind the vendor: share of the shapes and of the deployed time.
    own = [r for r in rows if not r["config"].startswith("vendor=")]
    own_t = sum(flop(r["shape"]) / r["deployed"] for r in own)
    return "| " + " | ".join([name, str(len(rows)), f"{geomean(ratio):.3f}",
                              f"{vendor_t / ours_t:.3f}", str(sum(x < 0.8 for x in ratio)),
                              f"{min(ratio):.3f}"] + per_vendor + [
                                  pct, str(sum(x < 0.9 for x in ratio)),
                                  f"{100 * len(own) / len(rows):.0f} %",
                                  f"{100 * own_t / ours_t:.0f} %"]) + " |"


def shape_cells(r):
    s = r["shape"]
    return [str(s[k]) for k in ("transa", "transb", "m", "n", "k", "batch")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", action="append", required=True, help="SET=tuned_gemm_bench CSV")
    ap.add_argument("--in-sample-selector", help="selector header: split runs by its dataset")
    ap.add_argument("--data", action="append", default=[],
                    help="exported sweep (oracle); default: the --in-sample-selector's dataset")
    ap.add_argument("--csv", required=True)
    ap.add_argument("--markdown", required=True)
    ap.add_argument("--worst", type=int, default=10)
    ap.add_argument("--per-shape", action="store_true", help="every shape in the Markdown too")
    args = ap.parse_args()
    in_sample = None
    if args.in_sample_selector:
        dataset = selector_dataset(args.in_sample_selector)
        in_sample = dataset_problems(dataset)
        # Without --data, the oracle comes from the sweep the selector was trained on.
        if not args.data:
            args.data = [dataset]
    oracle = read_oracle(args.data)
    runs = []
    for spec in args.run:
        if "=" not in spec:
            sys.exit(f"--run {spec}: expected SET=FILE")
        name, path = spec.split("=", 1)
        rows = read_run(path)
        for r in rows:
            r["oracle_gflops"] = f"{oracle[r['problem']]:.3f}" if r["problem"] in oracle else ""
            r["sample"] = "" if in_sample is None else (
                "in-sample" if r["problem"] in in_sample else "held-out")
        runs.append((name, path, rows))
    # The per-vendor columns every run has (CPU runs: OpenBLAS and oneDNN).
    vendors = [v for v in VENDORS if all(r[v] is not None for _, _, rows in runs for r in rows)]

    # Sets: each run, or with a selector its in-sample, held-out and all shapes.
    sets = []
    for name, path, rows in runs:
        if in_sample is None:
            sets.append((name, path, rows))
            continue
        for part in ("in-sample", "held-out"):
            subset = [r for r in rows if r["sample"] == part]
            if subset:
                sets.append((f"{name} {part}", path, subset))
        sets.append((f"{name} all", path, rows))

    cols = ["set", "sample", "networks", "transa", "transb", "m", "n", "k", "batch", "config",
            "deployed_gflops", "vendor", "vendor_gflops", "ratio"]
    for v in vendors:
        cols += [f"{v}_gflops", f"{v}_kernel", f"ratio_{v}"]
    cols.append("oracle_gflops")
    with open(args.csv, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for name, _, rows in runs:
            for r in rows:
                row = [name, r["sample"], r["networks"]] + shape_cells(r) + [
                    r["config"], f"{r['deployed']:.3f}", r["vendor_name"],
                    f"{r['vendor']:.3f}", f"{r['ratio']:.4f}"]
                for v in vendors:
                    row += [f"{r[v]:.3f}", r.get(f"{v}_kernel", ""), f"{r['deployed'] / r[v]:.4f}"]
                w.writerow(row + [r["oracle_gflops"]])

    vendor_head = "".join(f" | deployed / {NAMES[v]} (geomean)" for v in vendors)
    out = []
    if in_sample is not None:
        out += [f"In-sample: the {len(in_sample)} shapes of `{os.path.relpath(dataset)}`, the "
                f"dataset the selector `{os.path.basename(args.in_sample_selector)}` was trained on; "
                "held-out: "
                "the others. `vendor` is the faster vendor library of each shape.", ""]
    for v in vendors:
        kernels = sorted({r.get(f"{v}_kernel", "") for _, _, rows in runs for r in rows} - {""})
        if kernels:
            out.append(f"- {NAMES[v]} kernels dispatched: {', '.join(f'`{k}`' for k in kernels)}")
    if out and out[-1].startswith("- "):
        out.append("")
    out += [f"| set | shapes | deployed / vendor (geomean) | time-weighted (Σ vendor / Σ deployed) "
            f"| below 0.8× | worst{vendor_head} | deployed % of oracle | below 0.9× "
            "| own kernels: shapes | own kernels: time |",
            "|---|---:|---:|---:|---:|---:|" + "---:|" * len(vendors) + "---:|---:|---:|---:|"]
    for name, _, rows in sets:
        out.append(summary(name, rows, vendors))
        groups = sorted({r["networks"] for r in rows})
        if len(groups) > 1 and in_sample is None:
            for g in groups:
                out.append(summary(f"{name}: {g}", [r for r in rows if r["networks"] == g],
                                   vendors))
    vendor_cols = "".join(f" {NAMES[v]} |" for v in vendors)

    def table(rows, sample=False):
        head = ("| transa | transb | m | n | k | batch |" + (" sample |" if sample else "") +
                f" config | deployed GFLOP/s |{vendor_cols} vendor GFLOP/s | deployed / vendor |")
        rule = ("|---|---|---:|---:|---:|---:|" + ("---|" if sample else "") + "---|---:|" +
                "---:|" * len(vendors) + "---:|---:|")
        lines = [head, rule]
        for r in rows:
            cells = shape_cells(r) + ([r["sample"]] if sample else [])
            cells += [f"`{r['config']}`", f"{r['deployed']:.1f}"] + [f"{r[v]:.1f}" for v in vendors]
            lines.append("| " + " | ".join(cells + [f"{r['vendor']:.1f}", f"{r['ratio']:.3f}"]) +
                         " |")
        return lines

    for name, path, rows in sets:
        out += ["", f"Worst shapes of {name} (`{path.split('/')[-1]}`):", ""]
        out += table(sorted(rows, key=lambda r: r["ratio"])[: args.worst])
    if args.per_shape:
        for name, path, rows in runs:
            out += ["", f"Every shape of {name} (`{path.split('/')[-1]}`), in its order:", ""]
            out += table(rows, sample=in_sample is not None)
    with open(args.markdown, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
