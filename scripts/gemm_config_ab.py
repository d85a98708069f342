#!/usr/bin/env python3
"""Two builds' sweeps of the same configs in one run (A: before a kernel change, B: after; each
side one or more rounds taken in turns, ktune export --format csv, .gz or plain): per config,
the shapes every round timed ok, each shape's A time over its B time (the geometric mean of the
side's rounds), their geometric mean, minimum and maximum (above 1: B faster), and, with two A
rounds or more, A's first round over its last as the run's repeat noise. The vendor rows
(config_id -1) ran unchanged on both sides: their ratios are the run's drift. Markdown on stdout;
--csv writes one row per config and shape.
  scripts/gemm_config_ab.py --a A1.csv.gz A2.csv.gz --b B1.csv.gz B2.csv.gz [--csv OUT]"""
import argparse
import csv
import gzip
import math


def read(path):
    """(problem, config) -> median ms of the rows timed ok, and each config's config_id."""
    opener = gzip.open if path.endswith(".gz") else open
    times, ids = {}, {}
    with opener(path, "rt") as f:
        for r in csv.DictReader(f):
            ids[r["config"]] = r["config_id"]
            if r["status"] == "ok":
                times[(r["problem"], r["config"])] = float(r["median_ms"])
    return times, ids


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", nargs="+", required=True, help="side A's rounds (before)")
    parser.add_argument("--b", nargs="+", required=True, help="side B's rounds (after)")
    parser.add_argument("--csv", help="one row per config and shape")
    args = parser.parse_args()
    a = [read(p) for p in args.a]
    b = [read(p) for p in args.b]
    ids = {}
    for _, i in a + b:
        ids.update(i)
    keys = set.intersection(*(set(t) for t, _ in a + b))
    rows, table = [], []
    for config in sorted({c for _, c in keys}, key=lambda c: (ids[c] != "-1", c)):
        shapes = sorted(p for p, c in keys if c == config)
        ratios, repeats = [], []
        for p in shapes:
            ta = geomean([t[(p, config)] for t, _ in a])
            tb = geomean([t[(p, config)] for t, _ in b])
            ratios.append(ta / tb)
            if len(a) > 1:
                repeats.append(a[0][0][(p, config)] / a[-1][0][(p, config)])
            rows.append({"config": config, "problem": p, "a_ms": ta, "b_ms": tb, "a_over_b": ta / tb})
        repeat = f"{geomean(repeats):.3f}" if repeats else ""
        kind = "vendor" if ids[config] == "-1" else "own"
        table.append(f"| `{config}` | {kind} | {len(shapes)} | {geomean(ratios):.3f} | "
                     f"{min(ratios):.3f} | {max(ratios):.3f} | {repeat} |")
    print("| config | row | shapes | A / B time (geomean) | min | max | A first / last round |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(table))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=["config", "problem", "a_ms", "b_ms", "a_over_b"])
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
