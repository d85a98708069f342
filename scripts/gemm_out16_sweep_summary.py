#!/usr/bin/env python3
"""The rows of scripts/gpu_gemm_out16_sweep.sh's export per kind (or vendor) and status, printed
as a Markdown table, and its run.json.draft written beside them (command, commit, date, device,
measures with the fastest-vendor lines of ratios.md, files, in_sample, vendors).
  gemm_out16_sweep_summary.py OUT_DIR COMMIT CONFIGS WORKLOADS"""
import collections
import csv
import datetime
import gzip
import json
import os
import sys

out_dir, commit, configs, workloads = sys.argv[1:5]
STATUSES = ("ok", "refused", "failed", "wrong", "timeout")

counts = collections.defaultdict(collections.Counter)
refusals = {}  # kind -> one refusal message
export = os.path.join(out_dir, "gemm-out16-sweep.csv.gz")
if os.path.exists(export):
    for r in csv.DictReader(gzip.open(export, "rt")):
        c = r["config"]
        kind = c.split(";")[0].removeprefix("kind=") if c.startswith("kind=") else c.split(";")[0]
        counts[kind][r["status"]] += 1
        if r["status"] == "refused":
            refusals.setdefault(kind, r["message"])

print("| kind or vendor | " + " | ".join(STATUSES) + " |")
print("|---|" + "---:|" * len(STATUSES))
for kind in sorted(counts):
    print(f"| {kind} | " + " | ".join(str(counts[kind][s]) for s in STATUSES) + " |")
print("\nA refusal of each kind that had one:\n")
for kind, message in sorted(refusals.items()):
    print(f"- {kind}: {message}")

ratios_path = os.path.join(out_dir, "ratios.md")
ratios = open(ratios_path).read().splitlines() if os.path.exists(ratios_path) else []
summary, section = [], ""
for line in ratios:
    if line.startswith("### "):
        section = line[4:]
    elif line.startswith("| fastest vendor |"):
        cells = [c.strip() for c in line.strip("|").split("|")]
        summary.append(f"{section}: {cells[1]} shapes, geomean {cells[2]}, time-weighted "
                       f"{cells[3]}, {cells[4]} below 0.8x")
device = "unknown"
smi = os.path.join(out_dir, "nvidia-smi.txt")
if os.path.exists(smi):
    lines = open(smi).read().splitlines()
    if len(lines) > 1:
        f = [x.strip() for x in lines[1].split(",")]
        device = f"{f[0]} (driver {f[1]}, {f[2]})"
wrong = sum(c["wrong"] for c in counts.values())
draft = {
    "command": ("BUILD=/tmp/b OUT_DIR=<dir> COMMIT=<commit> bash scripts/gpu_gemm_out16_sweep.sh "
                "(BUILD by scripts/gpu_build_remote.sh /tmp/b ktune ktune_gpu_tests), i.e. ktune "
                f"bench --family gemm --device cuda:0 --workload W --configs {configs} --warmups 0 "
                "--min-reps 3 --max-reps 10 --rep-budget-ms 1 --timeout-ms 1000 for W in "
                f"{workloads}; ktune export; ktune report --workload W; "
                "scripts/gemm_precision_ratios.py --worst 8 (ratios.md)"),
    "commit": commit,
    "date": datetime.date.today().isoformat(),
    "device": device,
    "measures": ("GEMM in bf16 with C in bf16 (problems c16=1): the best swept config per shape "
                 f"of {configs} against cuBLAS (GemmStridedBatchedEx, C bf16) and each of "
                 "cuBLASLt's first 8 heuristic answers (C and D bf16) and their fastest, same "
                 "precision and C type, same run, every row verified against float64 with the "
                 f"bf16 bound plus the output rounding ({wrong} wrong). Best config vs the "
                 "fastest vendor: " + "; ".join(summary)),
    "files": sorted(f for f in os.listdir(out_dir) if f != "run.json.draft"),
    "in_sample": "oracle: the best measured config per shape (no selector, nothing held out)",
    "vendors": ["cublas (cublasGemmStridedBatchedEx_64, CUBLAS_COMPUTE_32F, bf16 in, bf16 C)",
                "cublaslt (cublasLtMatmul, heuristic answers #0..#7 and their fastest, 32 MiB "
                "workspace, C and D bf16)"],
}
with open(os.path.join(out_dir, "run.json.draft"), "w") as f:
    json.dump(draft, f, indent=1)
    f.write("\n")
