#!/usr/bin/env python3
"""Two tuned_gemm_bench CSVs of one workload (two libraries, two runs) shape by shape: deployed /
faster vendor of each run on the shapes where both picked the same config (what the run and the
call's cost changed), on those where the pick changed (what the selector changed), on the shapes
both served with one config (e.g. vendor=cublaslt), and the vendor's own run-to-run ratio.
  scripts/gemm_deployed_pick_compare.py OLD.csv NEW.csv [CONFIG]   (CONFIG default vendor=cublaslt)
"""
import csv
import math
import sys


def ratios(path):
    try:
        reader = csv.DictReader(open(path))
        rows = list(reader)
    except OSError as e:
        sys.exit(f"gemm_deployed_pick_compare.py: {e}")
    needed = {"problem", "config", "status", "deployed_gflops", "vendor_gflops"}
    if not reader.fieldnames or not needed <= set(reader.fieldnames):
        sys.exit(f"gemm_deployed_pick_compare.py: {path}: not a tuned_gemm_bench CSV")
    out = {}
    for r in rows:
        if r.get("status") != "ok":
            continue
        try:
            out[r["problem"]] = (r["config"], float(r["deployed_gflops"]), float(r["vendor_gflops"]))
        except (KeyError, ValueError):
            sys.exit(f"gemm_deployed_pick_compare.py: {path}: not a tuned_gemm_bench CSV")
    return out


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit("usage: gemm_deployed_pick_compare.py OLD.csv NEW.csv [CONFIG]")
    old, new = ratios(argv[1]), ratios(argv[2])
    config = argv[3] if len(argv) == 4 else "vendor=cublaslt"
    both = sorted(old.keys() & new.keys())
    groups = {"same pick": [p for p in both if old[p][0] == new[p][0]],
              "changed pick": [p for p in both if old[p][0] != new[p][0]],
              f"both {config}": [p for p in both if old[p][0] == new[p][0] == config]}
    print("| shapes | count | old deployed / vendor (geomean) | new deployed / vendor (geomean) |")
    print("|---|---:|---:|---:|")
    for name, ps in groups.items():
        print(f"| {name} | {len(ps)} | {geomean([old[p][1] / old[p][2] for p in ps]):.3f} | "
              f"{geomean([new[p][1] / new[p][2] for p in ps]):.3f} |")
    print(f"\nvendor new / old run (geomean over {len(both)} shapes): "
          f"{geomean([new[p][2] / old[p][2] for p in both]):.3f}")


if __name__ == "__main__":
    main(sys.argv)
