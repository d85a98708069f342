#!/usr/bin/env python3
"""Summarizes a gemm-vs-vendor CSV (ktune report --csv): geometric mean and time-weighted ratio
(sum of vendor times / sum of ktune times) of a column against the vendor, the count of shapes
below 0.8x and the worst shapes, as a Markdown table (each distinct shape once).
  scripts/vendor_ratios.py FILE.csv [--column oracle_gflops|deployed_gflops]"""
import argparse
import csv
import math

parser = argparse.ArgumentParser()
parser.add_argument("csv")
parser.add_argument("--column", default="oracle_gflops")
parser.add_argument("--worst", type=int, default=5)
args = parser.parse_args()

# `ktune report --csv` lists a shape once per network that uses it: each distinct shape counts once.
rows = list({(r["transa"], r["transb"], r["m"], r["n"], r["k"], r["batch"]): r
             for r in csv.DictReader(open(args.csv)) if r[args.column] and r["vendor_gflops"]}.values())
if not rows:
    raise SystemExit(f"{args.csv}: no row has both {args.column} and vendor_gflops")


def flop(r):
    return 2.0 * int(r["m"]) * int(r["n"]) * int(r["k"]) * int(r["batch"])


ratio = [float(r[args.column]) / float(r["vendor_gflops"]) for r in rows]
geomean = math.exp(sum(map(math.log, ratio)) / len(ratio))
vendor_time = sum(flop(r) / float(r["vendor_gflops"]) for r in rows)
ktune_time = sum(flop(r) / float(r[args.column]) for r in rows)
print(f"| shapes | {args.column} / vendor, geomean | time-weighted (Σ vendor time / Σ ktune time) | below 0.8× |")
print("|---:|---:|---:|---:|")
print(f"| {len(rows)} | {geomean:.3f} | {vendor_time / ktune_time:.3f} | {sum(x < 0.8 for x in ratio)} |")
print()
print("Worst shapes:")
print()
print("| transa | transb | m | n | k | batch | ratio |")
print("|---|---|---:|---:|---:|---:|---:|")
for x, r in sorted(zip(ratio, rows), key=lambda t: t[0])[: args.worst]:
    print(f"| {r['transa']} | {r['transb']} | {r['m']} | {r['n']} | {r['k']} | {r['batch']} | {x:.3f} |")
