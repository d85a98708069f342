#!/usr/bin/env python3
"""Writes workloads/gemm/dnn-sample.csv, a stratified sample of 48 of the 431 `dnn` GEMM shapes,
workloads/gemm/dnn-heldout.csv, 40 further shapes held out from it, workloads/gemm/dnn-extra.csv,
100 more training shapes, and workloads/gemm/dnn-rest.csv, the 225 dnn shapes in none of them.

The rule (deterministic, no random numbers), over the distinct shapes of vgg.csv, resnet.csv and
mobilenet.csv in that order (the order of the builtin `dnn` workload):
  1. Drop the 18 `dnn-small` shapes (per network its 6 cheapest by FLOPs, an earlier network's
     shape skipped), so that `dnn-small` stays a held-out set for a selector trained on the sample.
  2. Size classes: the remaining 413 shapes ranked by FLOPs (2·m·n·k·batch; workload order breaks
     ties) and cut into quartiles by rank: tiny, small, medium, large.
  3. Per class 12 shapes. Strata inside a class: transpose pair × batched (batch > 1). Every
     non-empty stratum gets one shape, the rest go by largest remainder of the stratum's share of
     the class (ties: the stratum listed first in (transa, transb, batched) order).
  4. Inside a stratum (sorted by log(m/n), then FLOPs, then workload order) the picks are evenly
     spaced: positions floor((j + 0.5) · size / count), so both thin-m and thin-n shapes are taken.
  5. workloads/gemm/dnn-heldout.csv: steps 3-4 again with 10 per class (same class boundaries) on
     the 365 shapes in neither dnn-small nor the sample: 40 held-out shapes for deployed checks.
  6. workloads/gemm/dnn-extra.csv: steps 3-4 again with 25 per class (same class boundaries) on
     the 325 shapes in none of the three sets above: 100 more training shapes (dnn-small,
     dnn-sample, dnn-heldout and dnn-extra then leave 225 dnn shapes that no selector trained on
     them has seen).
  7. workloads/gemm/dnn-rest.csv: those 225 shapes, all of them, by size class (the rule of step 3
     with every shape of the class): with the four sets above, the whole `dnn` workload, for a
     selector trained on every dnn shape (its unseen-shape check is then another workload: vit).
Usage: scripts/make_dnn_sample.py [--check]   (--check: compare with the committed files)
"""
import math
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
NETWORKS = ["vgg", "resnet", "mobilenet"]
CLASSES = ["tiny", "small", "medium", "large"]
PER_CLASS = 12
HELDOUT_PER_CLASS = 10
EXTRA_PER_CLASS = 25
OUT = os.path.join(ROOT, "workloads", "gemm", "dnn-sample.csv")
HELDOUT = os.path.join(ROOT, "workloads", "gemm", "dnn-heldout.csv")
EXTRA = os.path.join(ROOT, "workloads", "gemm", "dnn-extra.csv")
REST = os.path.join(ROOT, "workloads", "gemm", "dnn-rest.csv")


def read_dnn():
    shapes, nets = [], {}
    for net in NETWORKS:
        with open(os.path.join(ROOT, "workloads", "gemm", net + ".csv")) as f:
            lines = [l for l in f.read().splitlines() if l.strip() and not l.startswith("#")]
        for line in lines[1:]:
            v = [x.strip() for x in line.split(",")]
            key = (int(v[0] == "true"), int(v[1] == "true"), int(v[2]), int(v[3]), int(v[4]), int(v[8]))
            if key not in nets:
                shapes.append(key)
                nets[key] = []
            if net not in nets[key]:
                nets[key].append(net)
    return shapes, nets


def flops(s):
    return 2 * s[2] * s[3] * s[4] * s[5]


def dnn_small(shapes, nets):
    taken = []
    for net in NETWORKS:
        cand = [s for s in shapes if net in nets[s] and s not in taken]
        cand.sort(key=flops)  # stable: workload order breaks ties
        taken += cand[:6]
    return taken


def allocate(sizes, total):
    """One per non-empty stratum, the rest by largest remainder of the proportional share."""
    keys = [k for k in sorted(sizes) if sizes[k] > 0]
    alloc = {k: 1 for k in keys}
    left = total - len(keys)
    n = sum(sizes[k] for k in keys)
    share = {k: left * sizes[k] / n for k in keys}
    for k in keys:
        alloc[k] += int(share[k])
    rest = total - sum(alloc.values())
    for k in sorted(keys, key=lambda k: -(share[k] - int(share[k])))[:rest]:
        alloc[k] += 1
    return alloc


def stratified(members, size_class, order, per_class):
    """Steps 3-4 of the rule on `members`, per_class shapes from each size class."""
    picked = []
    for c in range(len(CLASSES)):
        strata = {}
        for s in members:
            if size_class[s] == c:
                strata.setdefault((s[0], s[1], s[5] > 1), []).append(s)
        alloc = allocate({k: len(v) for k, v in strata.items()}, per_class)
        for key in sorted(strata):
            group = sorted(strata[key], key=lambda s: (math.log(s[2] / s[3]), flops(s), order[s]))
            count = min(alloc[key], len(group))
            for j in range(count):
                picked.append((CLASSES[c], group[int((j + 0.5) * len(group) / count)]))
    return picked


def sample():
    """(the sample, the held-out set, the extra set, the rest): the rule on the dnn shapes outside
    dnn-small, then again with HELDOUT_PER_CLASS per class on the shapes outside dnn-small and the
    sample, then with EXTRA_PER_CLASS on the shapes in none of them; the rest: every shape left,
    by size class."""
    shapes, nets = read_dnn()
    small = set(dnn_small(shapes, nets))
    rest = [s for s in shapes if s not in small]
    order = {s: i for i, s in enumerate(shapes)}
    ranked = sorted(rest, key=flops)  # stable: workload order breaks ties
    size_class = {s: i * len(CLASSES) // len(ranked) for i, s in enumerate(ranked)}
    picked = stratified(ranked, size_class, order, PER_CLASS)
    taken = {s for _, s in picked}
    heldout = stratified([s for s in ranked if s not in taken], size_class, order, HELDOUT_PER_CLASS)
    taken |= {s for _, s in heldout}
    extra = stratified([s for s in ranked if s not in taken], size_class, order, EXTRA_PER_CLASS)
    taken |= {s for _, s in extra}
    left = [s for s in ranked if s not in taken]
    rest = [(CLASSES[c], s) for c in range(len(CLASSES)) for s in left if size_class[s] == c]
    return picked, heldout, extra, rest


def render(picked, header):
    lines = header + ["transa,transb,m,n,k,batch"]
    last = None
    for cls, s in picked:
        if cls != last:
            lines.append(f"# {cls}")
            last = cls
        lines.append(",".join(str(x) for x in s))
    return "\n".join(lines) + "\n"


SAMPLE_HEADER = [
    "# dnn-sample: 48 of the 431 dnn GEMM shapes, stratified (scripts/make_dnn_sample.py writes this",
    "# file; its docstring states the rule). 12 per FLOP quartile (tiny, small, medium, large) of the",
    "# dnn shapes outside dnn-small, spread over transpose pairs, batched or not, and m/n aspect.",
    "# Disjoint from dnn-small. A comment line opens each size class.",
]
HELDOUT_HEADER = [
    "# dnn-heldout (a file, not built in): 40 more dnn GEMM shapes, in neither dnn-sample nor",
    "# dnn-small, picked by the rule of scripts/make_dnn_sample.py (which writes this file) with 10",
    "# per size class: the held-out shapes of the deployed check of a selector trained on dnn-sample.",
]
EXTRA_HEADER = [
    "# dnn-extra (a file, not built in): 100 more dnn GEMM shapes, in none of dnn-small, dnn-sample",
    "# and dnn-heldout, picked by the rule of scripts/make_dnn_sample.py (which writes this file) with",
    "# 25 per size class: more training shapes for a CPU selector.",
]
REST_HEADER = [
    "# dnn-rest (a file, not built in): the 225 dnn GEMM shapes in none of dnn-small, dnn-sample,",
    "# dnn-heldout and dnn-extra (scripts/make_dnn_sample.py writes this file), by size class in",
    "# workload order: with those four, every dnn shape, for a selector trained on all of them.",
]


def main():
    picked, heldout, extra, rest = sample()
    files = [(OUT, render(picked, SAMPLE_HEADER), picked), (HELDOUT, render(heldout, HELDOUT_HEADER), heldout),
             (EXTRA, render(extra, EXTRA_HEADER), extra), (REST, render(rest, REST_HEADER), rest)]
    for path, text, shapes in files:
        if "--check" in sys.argv[1:]:
            with open(path) as f:
                if f.read() != text:
                    sys.exit(f"{path}: differs from scripts/make_dnn_sample.py's output")
            print(f"{path}: up to date ({len(shapes)} shapes)")
            continue
        with open(path, "w") as f:
            f.write(text)
        gflop = sum(flops(s) for _, s in shapes) / 1e9
        print(f"{path}: {len(shapes)} shapes, {gflop:.1f} GFLOP")


if __name__ == "__main__":
    main()
