#!/usr/bin/env python3
"""Deployed CPU GEMM selectors against a base selector, from the tuned_gemm_bench CSVs that
scripts/cpu_gemm_heldout_bench.sh writes (DIR/deployed-cpu-NAME-WORKLOAD.csv): per workload and
selector, the geometric mean and the time-weighted ratio (sum of base times / sum of times) of the
deployed library's GFLOP/s over the base's, shape by shape, and the shapes where it is faster.
Comparing deployed GFLOP/s across runs avoids the vendors' run-to-run noise in the in-run
deployed/vendor ratios; the runs took turns, so load drifts hit every selector alike.
  scripts/cpu_gemm_selector_compare.py DIR BASE NAME... [--markdown OUT.md]"""
import argparse
import csv
import glob
import math
import os


def read(path):
    with open(path) as f:
        return {r["problem"]: r for r in csv.DictReader(f) if r["status"] == "ok"}


def flop(problem):
    f = dict(kv.split("=") for kv in problem.split(";"))
    return 2.0 * int(f["m"]) * int(f["n"]) * int(f["k"]) * int(f["batch"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("base")
    ap.add_argument("names", nargs="+")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    prefix = os.path.join(a.dir, f"deployed-cpu-{a.base}-")
    # A name that extends the base's (vendors-floor beside vendors) owns its own files.
    longer = [n for n in a.names if n.startswith(a.base + "-")]
    workloads = sorted(w for w in (p[len(prefix):-4] for p in glob.glob(prefix + "*.csv"))
                       if not any(f"{a.base}-{w}".startswith(n + "-") for n in longer))
    if not workloads:
        raise SystemExit(f"error: no {prefix}*.csv")
    lines = [f"| workload | selector | shapes | GFLOP/s / {a.base} (geomean) | time-weighted | faster on |",
             "|---|---|---:|---:|---:|---:|"]
    for w in workloads:
        base = read(f"{prefix}{w}.csv")
        for name in a.names:
            path = os.path.join(a.dir, f"deployed-cpu-{name}-{w}.csv")
            if not os.path.exists(path):  # a selector run on some workloads only
                continue
            other = read(path)
            shapes = [p for p in base if p in other]
            ratio = [float(other[p]["deployed_gflops"]) / float(base[p]["deployed_gflops"]) for p in shapes]
            geo = math.exp(sum(math.log(r) for r in ratio) / len(ratio))
            tw = sum(flop(p) / float(base[p]["deployed_gflops"]) for p in shapes) / sum(
                flop(p) / float(other[p]["deployed_gflops"]) for p in shapes)
            faster = sum(1 for r in ratio if r > 1)
            lines.append(f"| {w} | {name} | {len(shapes)} | {geo:.3f} | {tw:.3f} | {faster} |")
    text = "\n".join(lines) + "\n"
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
