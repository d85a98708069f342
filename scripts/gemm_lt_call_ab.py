#!/usr/bin/env python3
"""The library's cuBLASLt call against the benchmark's own cuBLASLt call, timed in turns by
tuned_gemm_bench --lt-call-ab (one line per shape: "lt-call-ab KEY library MS plan MS benchmark
MS same-algorithm yes|no (CONFIG)"). Per log: shapes, the library's speed relative to the
benchmark's call (geomean of benchmark/library times, and time-weighted: sum of benchmark times
/ sum of library times), the same for the library's plan called bare (the algorithm's cost) and
for the library against its bare plan (its wrapper's cost), the median extra microseconds of the
library's call, shapes whose plan is another algorithm, and the worst shapes.
Exit status 1 when a log misses the stated tolerance: geomean or time-weighted below
1 - TOLERANCE (default 0.02), a shape below FLOOR (default 0.9), another algorithm, or a shape
whose calls did not all run ok.
  scripts/gemm_lt_call_ab.py [--tolerance 0.02] [--floor 0.9] LOG... > lt-call-ab.md"""
import argparse
import math
import re
import statistics
import sys

LINE = re.compile(r"lt-call-ab (\S+) library (\S+) plan (\S+) benchmark (\S+) "
                  r"same-algorithm (yes|no)\b(.*)$")


def number(text):
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value > 0 and math.isfinite(value) else None


def read(path):
    """(timed rows, shapes with a call not ok); a row: key, library, plan, benchmark ms, same."""
    rows, bad = [], []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            times = [number(m.group(i)) for i in (2, 3, 4)]
            if None in times:
                bad.append(m.group(1))
                continue
            rows.append((m.group(1), *times, m.group(5) == "yes"))
    return rows, bad


def geomean(ratios):
    return math.exp(sum(map(math.log, ratios)) / len(ratios))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--floor", type=float, default=0.9)
    ap.add_argument("logs", nargs="+")
    args = ap.parse_args()
    if not 0 <= args.tolerance < 1 or not 0 < args.floor <= 1:
        sys.exit("gemm_lt_call_ab.py: --tolerance must be in [0, 1) and --floor in (0, 1]")
    failed = False
    print("| log | shapes | library vs benchmark (geomean) | time-weighted | plan vs benchmark "
          "(geomean) | library vs plan (geomean) | library's extra µs (median) | "
          f"below {args.floor}× | other algorithm | not timed |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    worst = []
    for path in args.logs:
        try:
            rows, bad = read(path)
        except OSError as e:
            sys.exit(f"gemm_lt_call_ab.py: cannot read '{path}': {e.strerror}")
        if not rows:
            print(f"| {path} | 0 | | | | | | | | {len(bad)} |")
            failed = True
            continue
        lib = [b / l for _, l, _, b, _ in rows]
        plan = [b / p for _, _, p, b, _ in rows]
        wrapper = [p / l for _, l, p, _, _ in rows]
        weighted = sum(b for *_, b, _ in rows) / sum(l for _, l, *_ in rows)
        extra_us = statistics.median(1000 * (l - b) for _, l, _, b, _ in rows)
        below = sum(r < args.floor for r in lib)
        other = sum(not same for *_, same in rows)
        g = geomean(lib)
        print(f"| {path} | {len(rows)} | {g:.3f} | {weighted:.3f} | {geomean(plan):.3f} | "
              f"{geomean(wrapper):.3f} | {extra_us:.2f} | {below} | {other} | {len(bad)} |")
        failed |= (g < 1 - args.tolerance or weighted < 1 - args.tolerance or below > 0 or
                   other > 0 or len(bad) > 0)
        worst += [(r, path, row) for r, row in zip(lib, rows)]
    worst.sort(key=lambda x: x[0])
    print("\nWorst shapes (benchmark / library time; 1 = the same cost):\n")
    print("| log | shape | library ms | plan ms | benchmark ms | ratio | same algorithm |")
    print("|---|---|---:|---:|---:|---:|---|")
    for r, path, (key, l, p, b, same) in worst[:8]:
        print(f"| {path} | {key} | {l:.6f} | {p:.6f} | {b:.6f} | {r:.3f} | "
              f"{'yes' if same else 'no'} |")
    print(f"\nTolerance: geomean and time-weighted >= {1 - args.tolerance:.3f}, every shape >= "
          f"{args.floor}, the same algorithm, every call timed: "
          f"{'missed' if failed else 'met'}.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
