#!/usr/bin/env python3
"""16-bit C against FP32 C of one scripts/gpu_gemm_out16.sh run (issue #24): per workload, how
much faster each library is with C in the input type than with FP32 C on the same shapes, same run
(speedup = FP32-C time / 16-bit-C time; geomean over shapes and time-weighted, sum over sum):
ktune::gemm_ex (deployed_ms of the CSVs), the fastest vendor (`vendor` column), and cuBLAS and
cuBLASLt #0 apart (their GFLOP/s in the bench logs' per-shape lines). Also the per-output deployed
/ vendor ratios, so both views come from one table. --run-json DIR prints a run.json draft of the
directory instead (command, files, measures; commit and date to be filled in by the committer).
  scripts/gemm_out16_compare.py OUT_DIR > c16-vs-c32.md
  scripts/gemm_out16_compare.py --run-json OUT_DIR > run.json.draft"""
import csv
import glob
import json
import math
import os
import re
import sys


def read_csv(path):
    if not os.path.exists(path):  # OUTPUTS=input: no FP32-C run to compare with
        return {}
    with open(path, newline="") as f:
        return {r["problem"]: r for r in csv.DictReader(f) if r.get("status") == "ok"}


LINE = re.compile(r"^\[\d+/\d+\] (\S+) \S+ ktune ([\d.]+)(.*)$")


def read_log(path):
    """problem -> {library: GFLOP/s} from tuned_gemm_bench's per-shape lines."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            libs = {"ktune": float(m.group(2))}
            rest = m.group(3).split()
            for name, value in zip(rest[::2], rest[1::2]):
                try:
                    libs[name] = float(value)
                except ValueError:
                    pass  # a vendor that failed: its status, not a figure
            out[m.group(1)] = libs
    return out


def flop(problem):
    f = dict(kv.split("=") for kv in problem.split(";"))
    return 2.0 * int(f["m"]) * int(f["n"]) * int(f["k"]) * int(f["batch"])


def summary(pairs):
    """pairs: (fp32-C ms, 16-bit-C ms) per shape -> (shapes, geomean speedup, time-weighted)."""
    pairs = [(a, b) for a, b in pairs if a > 0 and b > 0]
    if not pairs:
        return 0, float("nan"), float("nan")
    geo = math.exp(sum(math.log(a / b) for a, b in pairs) / len(pairs))
    return len(pairs), geo, sum(a for a, _ in pairs) / sum(b for _, b in pairs)


def is_bench_csv(path):
    with open(path) as f:
        return f.readline().startswith("problem,")


def workloads(out_dir):
    """The workloads with a tuned_gemm_bench CSV of both output types."""
    names = sorted(os.path.basename(p)[len("deployed-"):-len("-c16.csv")]
                   for p in glob.glob(os.path.join(out_dir, "deployed-*-c16.csv")))
    both = [os.path.join(out_dir, f"deployed-{n}-{c}.csv") for n in names for c in ("c16", "c32")]
    return [n for n in names
            if all(os.path.exists(p) and is_bench_csv(p)
                   for p in both if os.path.basename(p).startswith(f"deployed-{n}-"))]


def compare(out_dir):
    rows = ["| workload | library | shapes | FP32-C / 16-bit-C time (geomean) | time-weighted |",
            "|---|---|---:|---:|---:|"]
    ratio_rows = ["| workload | C | shapes | deployed / vendor (geomean) | time-weighted |",
                  "|---|---|---:|---:|---:|"]
    for w in workloads(out_dir):
        c16 = read_csv(os.path.join(out_dir, f"deployed-{w}-c16.csv"))
        c32 = read_csv(os.path.join(out_dir, f"deployed-{w}-c32.csv"))
        both = sorted(set(c16) & set(c32))

        def ms(r, col):
            return float(r[col]) if r.get(col) else 0.0

        for label, col in (("ktune::gemm_ex", "deployed_ms"), ("fastest vendor", "vendor_ms")):
            n, geo, tw = summary([(ms(c32[p], col), ms(c16[p], col)) for p in both])
            rows.append(f"| {w} | {label} | {n} | {geo:.3f} | {tw:.3f} |")
        l16 = read_log(os.path.join(out_dir, f"bench-{w}-c16.log"))
        l32 = read_log(os.path.join(out_dir, f"bench-{w}-c32.log"))
        for lib in ("cublas", "cublaslt"):
            pairs = []
            for p in sorted(set(l16) & set(l32)):
                g16, g32 = l16[p].get(lib, 0), l32[p].get(lib, 0)
                if g16 > 0 and g32 > 0:  # ms = flop / GFLOP/s: the speedup is g16 / g32
                    pairs.append((flop(p) / g32, flop(p) / g16))
            n, geo, tw = summary(pairs)
            rows.append(f"| {w} | {lib} | {n} | {geo:.3f} | {tw:.3f} |")
        for label, data in (("16-bit", c16), ("FP32", c32)):
            pairs = [(ms(r, "vendor_ms"), ms(r, "deployed_ms")) for r in data.values()]
            n, geo, tw = summary(pairs)
            ratio_rows.append(f"| {w} | {label} | {n} | {geo:.3f} | {tw:.3f} |")
    return "\n".join(
        ["# 16-bit C vs FP32 C, same shapes, same run", "",
         "Speedup of writing C in the input type (bf16) over FP32 C, per library:", ""] + rows +
        ["", "ktune::gemm_ex against the faster of cuBLAS and cuBLASLt #0, per output type "
         "(> 1: ktune faster):", ""] + ratio_rows) + "\n"


def run_json(out_dir):
    files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(out_dir, "*"))
                   if not p.endswith(".draft"))
    return json.dumps({
        "command": "BUILD=<tree built by scripts/gpu_build_remote.sh (EXAMPLES=ON) with "
                   "ktune_gpu_tests tuned_gemm_bench ktune_gpu_vendor_tc_tests, CMAKE_ARGS "
                   "-DKTUNE_CUDA_BF16_SELECTOR=<src>/libraries/gemm/selectors/"
                   "h200-bf16-vendors-lt8-k16.hpp> OUT_DIR=<this directory> "
                   "scripts/gpu_gemm_out16.sh: the 16-bit C GPU tests, then tuned_gemm_bench "
                   "--device cuda --workload W --output input|fp32 --rep-budget-ms 10 --lt-top 0 "
                   "for W = large@bf16, llm@bf16; tables by scripts/gemm_deployed_tables.py per "
                   "output type and scripts/gemm_out16_compare.py",
        "commit": "<fill in>",
        "date": "<fill in>",
        "device": "<from nvidia-smi.txt>",
        "measures": "ktune::gemm_ex bf16 with C in bf16 (GemmOutput::bf16) and with FP32 C vs "
                    "cuBLAS (cublasGemmStridedBatchedEx_64, CUBLAS_COMPUTE_32F) and cuBLASLt "
                    "heuristic #0 with C / D of the same type, same run, each verified against "
                    "float64 (bound: the bf16 bound plus the output rounding for bf16 C)",
        "files": files,
        "in_sample": "large: the selector's training shapes (timed with FP32 C); llm: held out. "
                     "No selector was trained on 16-bit C rows.",
        "vendors": ["cublas (cublasGemmStridedBatchedEx_64, CUBLAS_COMPUTE_32F, bf16 in, C of "
                    "the run's output type)",
                    "cublaslt (cublasLtMatmul, heuristic #0, 32 MiB workspace, C and D of the "
                    "run's output type)"],
    }, indent=2) + "\n"


def main(argv):
    if len(argv) == 3 and argv[1] == "--run-json":
        sys.stdout.write(run_json(argv[2]))
        return 0
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: gemm_out16_compare.py [--run-json] OUT_DIR", file=sys.stderr)
        return 2
    sys.stdout.write(compare(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
