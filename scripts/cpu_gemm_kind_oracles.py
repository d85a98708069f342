#!/usr/bin/env python3
"""Per config kind, the best swept config (the kind's oracle) against the faster vendor of the
same sweep, from ktune's long CSV (ktune export --format csv): for each set of kinds, the geometric
mean of oracle/vendor GFLOP/s, the time-weighted ratio (sum of vendor times / sum of oracle
times), the count of shapes below 0.8x and the worst shapes, as Markdown; --csv writes one row per
shape with each set's oracle GFLOP/s, its config and the vendors'.
  scripts/cpu_gemm_kind_oracles.py SWEEP.csv.gz [--sets packed packedz packed+packedz] [--csv OUT]"""
import argparse
import csv
import gzip
import math

parser = argparse.ArgumentParser()
parser.add_argument("sweep")
parser.add_argument("--sets", nargs="+", default=["packed", "packedz", "packed+packedz"])
parser.add_argument("--csv")
parser.add_argument("--worst", type=int, default=5)
args = parser.parse_args()


def kind_of(config):
    for item in config.split(";"):
        if item.startswith("kind="):
            return item[5:]
    return "seed"


best = {}  # (problem, kind) -> (GFLOP/s, config)
vendors = {}  # problem -> {vendor: GFLOP/s}
with gzip.open(args.sweep, "rt") if args.sweep.endswith(".gz") else open(args.sweep) as f:
    for r in csv.DictReader(f):
        if r["status"] != "ok" or not r["perf"]:
            continue
        perf = float(r["perf"])
        if r["config_id"] == "-1":
            vendors.setdefault(r["problem"], {})[r["config"]] = perf
            continue
        key = (r["problem"], kind_of(r["config"]))
        if key not in best or perf > best[key][0]:
            best[key] = (perf, r["config"])


def fields(problem):
    return dict(item.split("=") for item in problem.split(";"))


def flop(problem):
    f = fields(problem)
    return 2.0 * int(f["m"]) * int(f["n"]) * int(f["k"]) * int(f["batch"])


problems = sorted(p for p in vendors if vendors[p])
oracle = {}  # (problem, set) -> (GFLOP/s, config)
for p in problems:
    for s in args.sets:
        cands = [best[(p, k)] for k in s.split("+") if (p, k) in best]
        if cands:
            oracle[(p, s)] = max(cands)

print("| kinds | shapes | oracle / faster vendor, geomean | time-weighted (Σ vendor time / Σ oracle time) | below 0.8× | oracle / OpenBLAS | oracle / oneDNN |")
print("|---|---:|---:|---:|---:|---:|---:|")
for s in args.sets:
    ps = [p for p in problems if (p, s) in oracle]
    ratio = [oracle[(p, s)][0] / max(vendors[p].values()) for p in ps]
    geo = math.exp(sum(map(math.log, ratio)) / len(ratio))
    tw = sum(flop(p) / max(vendors[p].values()) for p in ps) / sum(flop(p) / oracle[(p, s)][0] for p in ps)
    per = {}
    for v in ("openblas", "onednn"):
        rs = [oracle[(p, s)][0] / vendors[p][v] for p in ps if v in vendors[p]]
        per[v] = f"{math.exp(sum(map(math.log, rs)) / len(rs)):.3f}" if rs else "-"
    print(f"| {s} | {len(ps)} | {geo:.3f} | {tw:.3f} | {sum(x < 0.8 for x in ratio)} | {per['openblas']} | {per['onednn']} |")
for s in args.sets:
    ps = [p for p in problems if (p, s) in oracle]
    worst = sorted(ps, key=lambda p: oracle[(p, s)][0] / max(vendors[p].values()))[: args.worst]
    print(f"\nWorst shapes, {s}:\n")
    print("| shape | oracle GFLOP/s | faster vendor GFLOP/s | ratio | config |")
    print("|---|---:|---:|---:|---|")
    for p in worst:
        o, v = oracle[(p, s)], max(vendors[p].values())
        print(f"| {p} | {o[0]:.1f} | {v:.1f} | {o[0] / v:.3f} | {o[1]} |")

if args.csv:
    with open(args.csv, "w", newline="") as f:
        w = csv.writer(f)
        names = sorted({v for p in problems for v in vendors[p]})
        w.writerow(["problem"] + [c for s in args.sets for c in (f"{s}_gflops", f"{s}_config")]
                   + [f"{v}_gflops" for v in names])
        for p in problems:
            row = [p]
            for s in args.sets:
                o = oracle.get((p, s))
                row += [f"{o[0]:.3f}", o[1]] if o else ["", ""]
            row += [f"{vendors[p].get(v, ''):.3f}" if v in vendors[p] else "" for v in names]
            w.writerow(row)
