#!/usr/bin/env python3
"""run.json of a per-precision conv tables run (results/README.md's manifest) from its directory:
the device from nvidia-smi.txt, the files as the directory holds them, and a measures line with
each precision's figures over all layers (geomean / time-weighted / layers below 0.8x) per ktune
side and sample, from the per-layer CSV scripts/conv_precision/tables.py wrote.
  scripts/conv_precision/run_json.py DIR --commit SHA --command CMD [--date YYYY-MM-DD]"""
import argparse
import csv
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tables import summarize  # noqa: E402


def device_of(directory):
    path = os.path.join(directory, "nvidia-smi.txt")
    try:
        with open(path) as f:
            lines = [line.strip() for line in f if line.strip() and not line.startswith("name")]
    except OSError as e:
        sys.exit(f"run_json: {path}: {e}")
    if not lines:
        sys.exit(f"run_json: {path}: no GPU line")
    name, driver, memory = [part.strip() for part in lines[0].split(",")[:3]]
    return f"{name} (lent, driver {driver}, {memory})"


def measures(directory):
    path = os.path.join(directory, "per-layer.csv")
    groups = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["status"] == "ok":
                for k in ("ratio", "ktune_ms", "vendor_ms"):
                    r[k] = float(r[k])
            r["count"] = int(r["count"])
            groups.setdefault((r["precision"], r["ktune"], r["sample"]), []).append(r)
    parts = []
    for (precision, side, sample), rows in groups.items():
        s = summarize(rows)
        missing = f", {s['missing']} not compared" if s["missing"] else ""
        parts.append(f"{precision} {side} ({sample}): {s['geomean']:.3f} / "
                     f"{s['time_weighted']:.3f} / {s['below']} of {s['layers']}{missing}")
    return ("conv layers of VGG16 + ResNet-50 at batch 1 and 16 against cuDNN at its best in the "
            "same precision and run (legacy Find + backend engines, NHWC and NCHW, verified), "
            "cuDNN ms / ktune ms, geomean / time-weighted / layers below 0.8x: " + "; ".join(parts))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--commit", required=True)
    parser.add_argument("--command", required=True)
    parser.add_argument("--date", default=datetime.datetime.now(datetime.timezone.utc)
                        .strftime("%Y-%m-%d"))
    args = parser.parse_args()
    run = {"command": args.command, "commit": args.commit, "date": args.date,
           "device": device_of(args.dir), "measures": measures(args.dir),
           "files": sorted(f for f in os.listdir(args.dir) if f != "run.json"),
           "in_sample": None,
           "vendors": ["cudnn (the conv2d family's vendor row in each precision: legacy Find + "
                       "backend-API engines, NHWC and NCHW, fastest kept; same run)",
                       "cudnn via PyTorch cudnn.benchmark (bf16 / fp16, both layouts; same call, "
                       "during the build; a check of the vendor row, not verified)"],
           "note": "rows of both samples: the per-layer CSV's `sample` column says which (fp32: "
                   "the deployed library, in-sample and held out; bf16 / fp16: selector headers' "
                   "picks among the measured cuda_igemm_mma configs, no 16-bit conv library "
                   "ships, and the in-sample oracle). In bf16 / fp16 cuDNN writes 16-bit "
                   "output, ktune FP32."}
    with open(os.path.join(args.dir, "run.json"), "w") as f:
        json.dump(run, f, indent=2)
        f.write("\n")
    print(run["measures"])


if __name__ == "__main__":
    main()
