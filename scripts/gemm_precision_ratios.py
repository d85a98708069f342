#!/usr/bin/env python3
"""Best config of the swept space per shape against each vendor row and against the fastest vendor
row, per precision, from an exported store (ktune export --format csv): geometric mean, time-
weighted ratio (sum of vendor times / sum of ktune times), shapes below 0.8x, worst shapes. One
Markdown section per (workload tag, precision, C type: "bf16, C bf16" for 16-bit C). Vendor rows
are the named vendors and every row of config_id -1 (cuBLASLt's "cublaslt;heuristic=<i>").
--kind KIND: the space is that kind's configs only (e.g. wgmma), not every swept config.
--refuse-tf32-copies: drop the wgmmatf32 rows of shapes whose operands that kind copies K-major
  first (A without transa, B with transb, or k not a multiple of 4 with the workloads' tight
  leading dimensions): the space as if the kind refused those shapes instead.
  scripts/gemm_precision_ratios.py STORE.csv.gz [--worst 5] [--kind KIND] [--refuse-tf32-copies]"""
import argparse
import collections
import csv
import gzip
import lzma
import math

PRECISION = {"0": "fp32", "1": "tf32", "2": "bf16", "3": "fp16"}
VENDORS = ("cublas", "cublaslt", "cublaslt-top8", "openblas", "onednn")  # CUDA and CPU rows

parser = argparse.ArgumentParser()
parser.add_argument("csv")
parser.add_argument("--worst", type=int, default=5)
parser.add_argument("--kind", help="only this kind's configs stand for the space")
parser.add_argument("--refuse-tf32-copies", action="store_true")
args = parser.parse_args()


def tf32_copies(problem):
    """Whether the wgmmatf32 kind copies an operand of this workload problem (tight ld)."""
    f = dict(item.split("=") for item in problem.split(";"))
    return f["transa"] == "0" or f["transb"] == "1" or int(f["k"]) % 4 != 0


best = collections.defaultdict(dict)  # problem -> config or vendor -> best median ms
tags = {}
OPEN = {".gz": gzip.open, ".xz": lzma.open}  # compressed exports (the larger sweeps are .xz)
opener = OPEN.get(args.csv[-3:])
for r in csv.DictReader(opener(args.csv, "rt") if opener else open(args.csv)):
    if r["status"] != "ok":
        continue
    # Vendor rows: the named ones, and every row without a config id (cuBLASLt's answers
    # "cublaslt;heuristic=<i>": vendor calls, part of the fastest vendor, never of the space).
    vendor = r["config"] in VENDORS or r.get("config_id") == "-1"
    key = r["config"] if vendor else "config"
    if key == "config" and args.kind and not r["config"].startswith(f"kind={args.kind};"):
        continue
    if (args.refuse_tf32_copies and r["config"].startswith("kind=wgmmatf32;")
            and tf32_copies(r["problem"])):
        continue
    t = float(r["median_ms"])
    best[r["problem"]][key] = min(t, best[r["problem"]].get(key, math.inf))
    tags[r["problem"]] = r["tags"]


def features(problem):
    return dict(item.split("=") for item in problem.split(";"))


def flop(problem):
    f = features(problem)
    return 2.0 * int(f["m"]) * int(f["n"]) * int(f["k"]) * int(f["batch"])


groups = collections.defaultdict(list)
for problem, times in best.items():
    # A shape of several workloads counts for the first that names it: large, llm, vit, else dnn.
    workload = next((w for w in ("large", "llm", "vit") if w in tags[problem].split(";")), "dnn")
    f = features(problem)
    precision = PRECISION[f.get("precision", "0")]
    if f.get("c16") == "1":  # C in the 16-bit input type: its own group
        precision += f", C {precision}"
    groups[(workload, precision)].append(problem)

for (workload, precision), problems in sorted(groups.items()):
    print(f"### {workload}, {precision}\n")
    print("| against | shapes | geomean | time-weighted | below 0.8× |")
    print("|---|---:|---:|---:|---:|")
    for against in VENDORS + ("fastest vendor",):
        pairs = []
        for p in problems:
            t = best[p]
            v = min((x for c, x in t.items() if c != "config"), default=None) if against == "fastest vendor" else t.get(against)
            if v is not None and "config" in t:
                pairs.append((v / t["config"], p, v, t["config"]))
        if not pairs:
            continue
        g = math.exp(sum(math.log(x[0]) for x in pairs) / len(pairs))
        tw = sum(x[2] for x in pairs) / sum(x[3] for x in pairs)
        print(f"| {against} | {len(pairs)} | {g:.3f} | {tw:.3f} | {sum(x[0] < 0.8 for x in pairs)} |")
        if against == "fastest vendor":
            worst = sorted(pairs)[: args.worst]
    print("\nWorst shapes against the fastest vendor (TFLOP/s):\n")
    print("| shape | ktune | vendor | ratio |")
    print("|---|---:|---:|---:|")
    for ratio, p, v, k in worst:
        f = features(p)
        shape = f"{'T' if f['transa'] == '1' else 'N'}{'T' if f['transb'] == '1' else 'N'} {f['m']}×{f['n']}×{f['k']}×{f['batch']}"
        print(f"| {shape} | {flop(p) / k / 1e9:.1f} | {flop(p) / v / 1e9:.1f} | {ratio:.3f} |")
    print()
