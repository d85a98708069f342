#!/usr/bin/env python3
"""Per-layer table of the wgmma conv kernel persistent (PERSIST 1: one block an SM walking the
work items, the epilogue overlapping the next loads) against one block a work item, each the
fastest of the configs benched (wgmma_conv_check bench LAYERS.csv CONFIG...; persistent rows end
in ";persist=1"), from one run's bench.csv: per network and batch the count-weighted sums, the
ratio (one-block ms / persistent ms: above 1, persistent faster), geomean, and the worst layers;
rows other than `ok` are not scored. Usage: persist_summary.py BENCH_CSV > summary.md"""
import csv
import math
import os
import sys
from collections import defaultdict


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: persist_summary.py BENCH_CSV")
    path = sys.argv[1]
    if not os.path.isfile(path):
        sys.exit(f"persist_summary.py: cannot read {path}")
    best = defaultdict(dict)  # (net, n, layer) -> persist -> (ms, config)
    count = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["status"] != "ok":
                continue
            key = (r["network"], int(r["n"]), r["layer"])
            persist = r["config"].endswith(";persist=1")
            ms = float(r["median_ms"])
            count[key] = int(r["count"])
            if persist not in best[key] or ms < best[key][persist][0]:
                best[key][persist] = (ms, r["config"])
    groups = defaultdict(list)
    for key, b in best.items():
        if False in b and True in b:
            groups[key[:2]].append((b[False][0] / b[True][0], key[2], b[False], b[True],
                                    count[key]))
    if not groups:
        sys.exit(f"persist_summary.py: {path}: no layer with both kinds of ok rows")
    print("| network | batch | layers | Σ one block a tile ms | Σ persistent ms | ratio | geomean "
          "| worst layers |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for (net, n), rows in sorted(groups.items()):
        one = sum(r[2][0] * r[4] for r in rows)
        per = sum(r[3][0] * r[4] for r in rows)
        geo = math.exp(sum(math.log(r[0]) for r in rows) / len(rows))
        worst = ", ".join(f"{r[1]} {r[0]:.3f}" for r in sorted(rows)[:3])
        print(f"| {net} | {n} | {len(rows)} | {one:.3f} | {per:.3f} | {one / per:.3f} | "
              f"{geo:.3f} | {worst} |")
    print("\n| network | batch | layer | count | one block a tile (ms, config) | persistent (ms, "
          "config) | ratio |")
    print("| --- | ---: | --- | ---: | --- | --- | ---: |")
    for (net, n), rows in sorted(groups.items()):
        for ratio, layer, one, per, cnt in rows:
            print(f"| {net} | {n} | {layer} | {cnt} | {one[0]:.4f} `{one[1]}` | {per[0]:.4f} "
                  f"`{per[1]}` | {ratio:.3f} |")


if __name__ == "__main__":
    main()
