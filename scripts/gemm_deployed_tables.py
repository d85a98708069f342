#!/usr/bin/env python3
"""Deployed GEMM library vs the vendor library, per distinct shape, from tuned_gemm_bench CSVs
(the deployed and vendor columns of each row come from the same run), split into sets: each
--run is SET=FILE (e.g. in-sample=deployed-dnn.csv held-out=deployed-heldout-large.csv). With
--data (exported sweeps, .csv or .csv.gz), the best measured config of the swept space per shape
(oracle) is added. Writes one CSV row per (set, shape) and a Markdown summary per set: geometric
mean of deployed/vendor, time-weighted ratio (sum of vendor times / sum of deployed times), the
count below 0.8x, and the worst shapes.
  scripts/gemm_deployed_tables.py --run in-sample=a.csv --run held-out=b.csv \\
      [--data sweep.csv.gz ...] --csv out.csv --markdown out.md"""
import argparse
import csv
import gzip
import math
import sys


def shape_of(problem):
    f = dict(kv.split("=") for kv in problem.split(";"))
    return {k: int(f[k]) for k in ("transa", "transb", "m", "n", "k", "batch")}


def flop(s):
    return 2.0 * s["m"] * s["n"] * s["k"] * s["batch"]


def read_oracle(paths):
    best = {}
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            for r in csv.DictReader(f):
                if r["status"] == "ok" and r["config_id"] != "-1" and r["perf"]:
                    best[r["problem"]] = max(best.get(r["problem"], 0.0), float(r["perf"]))
    return best


def read_run(path):
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["status"] != "ok" or not r["vendor_gflops"]:
                sys.exit(f"{path}: shape {r['problem']} is not ok ({r['status']}: {r['message']})")
            rows.append(r)
    if not rows:
        sys.exit(f"{path}: no measured shape")
    return rows


def summary(name, rows):
    ratio = [float(r["deployed_gflops"]) / float(r["vendor_gflops"]) for r in rows]
    shapes = [shape_of(r["problem"]) for r in rows]
    geo = math.exp(sum(map(math.log, ratio)) / len(ratio))
    vendor_t = sum(flop(s) / float(r["vendor_gflops"]) for s, r in zip(shapes, rows))
    ours_t = sum(flop(s) / float(r["deployed_gflops"]) for s, r in zip(shapes, rows))
    oracle = [float(r["oracle_gflops"]) for r in rows if r.get("oracle_gflops")]
    pct = ""
    if len(oracle) == len(rows):
        pct = 100 * math.exp(sum(math.log(float(r["deployed_gflops"]) / o)
                                 for r, o in zip(rows, oracle)) / len(rows))
        pct = f"{min(pct, 999):.1f} %"
    return (f"| {name} | {len(rows)} | {geo:.3f} | {vendor_t / ours_t:.3f} | "
            f"{sum(x < 0.8 for x in ratio)} | {min(ratio):.3f} | {pct} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", action="append", required=True, help="SET=tuned_gemm_bench CSV")
    ap.add_argument("--data", action="append", default=[], help="exported sweep (oracle)")
    ap.add_argument("--csv", required=True)
    ap.add_argument("--markdown", required=True)
    ap.add_argument("--worst", type=int, default=8)
    args = ap.parse_args()
    oracle = read_oracle(args.data)
    sets = []
    for spec in args.run:
        if "=" not in spec:
            sys.exit(f"--run {spec}: expected SET=FILE")
        name, path = spec.split("=", 1)
        rows = read_run(path)
        for r in rows:
            r["oracle_gflops"] = f"{oracle[r['problem']]:.3f}" if r["problem"] in oracle else ""
        sets.append((name, path, rows))

    cols = ["set", "networks", "transa", "transb", "m", "n", "k", "batch", "config",
            "deployed_gflops", "vendor_gflops", "ratio", "oracle_gflops"]
    with open(args.csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for name, _, rows in sets:
            for r in rows:
                s = shape_of(r["problem"])
                ratio = float(r["deployed_gflops"]) / float(r["vendor_gflops"])
                w.writerow([name, r["networks"]] + [s[k] for k in cols[2:8]] +
                           [r["config"], r["deployed_gflops"], r["vendor_gflops"], f"{ratio:.4f}",
                            r["oracle_gflops"]])

    out = ["| set | shapes | deployed / vendor (geomean) | time-weighted (Σ vendor / Σ deployed) "
           "| below 0.8× | worst | deployed % of oracle |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for name, _, rows in sets:
        out.append(summary(name, rows))
        groups = sorted({r["networks"] for r in rows})
        if len(groups) > 1:
            for g in groups:
                out.append(summary(f"{name}: {g}", [r for r in rows if r["networks"] == g]))
    for name, path, rows in sets:
        out += ["", f"Worst shapes of {name} (`{path.split('/')[-1]}`):", "",
                "| transa | transb | m | n | k | batch | config | deployed / vendor |",
                "|---|---|---:|---:|---:|---:|---|---:|"]
        ranked = sorted(rows, key=lambda r: float(r["deployed_gflops"]) / float(r["vendor_gflops"]))
        for r in ranked[: args.worst]:
            s = shape_of(r["problem"])
            x = float(r["deployed_gflops"]) / float(r["vendor_gflops"])
            out.append(f"| {s['transa']} | {s['transb']} | {s['m']} | {s['n']} | {s['k']} | "
                       f"{s['batch']} | `{r['config']}` | {x:.3f} |")
    with open(args.markdown, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
