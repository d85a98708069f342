#!/usr/bin/env python3
"""Per-shape roofline data from a gemm-vs-vendor.csv: GFLOP/s of the oracle, the deployed library
and the vendor library against arithmetic intensity (FLOP per byte of the minimal FP32 traffic,
A + B read once and C written once), one row per distinct shape.
  scripts/roofline.py results/h100-80gb-hbm3/gemm-vs-vendor.csv > results/h100-80gb-hbm3/roofline.csv
"""
import csv
import sys


def main(path):
    seen = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = tuple(row[c] for c in ("transa", "transb", "m", "n", "k", "batch"))
            entry = seen.setdefault(key, dict(row, networks=[]))
            # ktune report's CSV has one row per network; gemm_deployed_tables.py's one per shape.
            entry["networks"].append(row["network"] if "network" in row else row["networks"])
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["networks", "transa", "transb", "m", "n", "k", "batch", "gflop", "mbytes",
                  "flop_per_byte", "oracle_gflops", "deployed_gflops", "vendor_gflops"])
    for key, row in seen.items():
        m, n, k, batch = (int(row[c]) for c in ("m", "n", "k", "batch"))
        flops = 2.0 * m * n * k * batch
        traffic = 4.0 * batch * (m * k + k * n + m * n)
        out.writerow(["+".join(row["networks"]), row["transa"], row["transb"], m, n, k, batch,
                      f"{flops / 1e9:.6f}", f"{traffic / 1e6:.6f}", f"{flops / traffic:.3f}",
                      row["oracle_gflops"], row["deployed_gflops"], row["vendor_gflops"]])


if __name__ == "__main__":
    main(sys.argv[1])
