#!/usr/bin/env python3
"""The bf16 training rows of the deployed tensor-core conv2d library (ktune::conv2d_ex): the union
of the committed H100 bf16 sweeps of the two tensor-core kinds (cuda_igemm_mma:
conv-precision-tables, cuda_igemm_wgmma: conv-wgmma-kind) over VGG16 + ResNet-50 at batch 1 and 16,
as one long CSV on stdout. Each sweep timed cuDNN at its best (config `cudnn`) in its own run: the
union keeps one cudnn row per problem, the faster one (the vendor at its best). --tag vgg16 or
--tag resnet50 keeps one network's rows (the held-out selectors train on one, run the other).
  scripts/conv_deploy/bf16_rows.py [--tag vgg16|resnet50] > rows.csv"""
import argparse
import csv
import gzip
import sys

SWEEPS = ("results/h100-80gb-hbm3/conv-precision-tables/sweep-bf16.csv.gz",
          "results/h100-80gb-hbm3/conv-wgmma-kind/sweep-bf16.csv.gz")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tag", choices=("vgg16", "resnet50"), help="one network's rows only")
    args = parser.parse_args()
    header, rows, vendor = None, [], {}
    for path in SWEEPS:
        with gzip.open(path, "rt", newline="") as f:
            reader = csv.reader(f)
            file_header = next(reader)
            if header is None:
                header = file_header
            elif file_header != header:
                sys.exit(f"bf16_rows.py: {path}: columns differ from {SWEEPS[0]}")
            col = {name: i for i, name in enumerate(header)}
            for row in reader:
                if args.tag and row[col["tags"]] != args.tag:
                    continue
                if row[col["config"]] != "cudnn":
                    rows.append(row)
                    continue
                problem = row[col["problem"]]
                ok = row[col["status"]] == "ok"
                kept = vendor.get(problem)
                if kept is None or (ok and (kept[col["status"]] != "ok" or float(
                        row[col["median_ms"]]) < float(kept[col["median_ms"]]))):
                    vendor[problem] = row
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    writer.writerows(vendor.values())


if __name__ == "__main__":
    main()
