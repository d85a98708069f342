#!/usr/bin/env python3
"""What a GEMM selector header would score on a workload an earlier deployed run measured.

Compiles the header into a small driver, asks select() for each shape of an earlier
tuned_gemm_bench run, and scores each pick from that run's own timings against the faster of its
vendor columns: a vendor pick by the benchmark's call of that vendor, an own-kernel pick only
where it is the config the run served (its measured time); other own-kernel picks are counted as
unknown, not scored. The run is a GPU bench log (lines `[i/n] PROBLEM CONFIG ktune X cublas Y
cublaslt Z`) or a CPU deployed CSV (tuned_gemm_bench --out: deployed, openblas and onednn
GFLOP/s per row). A prediction from a measurement of another header, not a measurement of this
one.
  scripts/selector_pick_prediction.py HEADER PRECISION BENCH.log|DEPLOYED.csv
PRECISION: fp32 (six-argument selectors; the CPU's), tf32, bf16 or fp16.
"""
import csv
import math
import os
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"\[\d+/\d+\] (\S+) (\S+) ktune ([\d.]+) cublas ([\d.]+) cublaslt ([\d.]+)")
PRECISIONS = {"fp32": 0, "tf32": 1, "bf16": 2, "fp16": 3}
FIELDS = ("transa", "transb", "m", "n", "k", "batch")


def fail(message):
    sys.exit(f"selector_pick_prediction.py: {message}")


def measured(log):
    """problem -> (served config, ktune perf, {vendor: perf}) of a bench log or deployed CSV."""
    out = {}
    if log.endswith(".csv"):
        for row in csv.DictReader(open(log)):
            if row.get("status") == "ok":
                vendors = {v: float(row[f"{v}_gflops"]) for v in ("openblas", "onednn")}
                out[row["problem"]] = (row["config"], float(row["deployed_gflops"]), vendors)
        return out
    for line in open(log):
        m = LINE.match(line)
        if m:
            p, config, *perf = m.groups()
            ktune, cublas, cublaslt = map(float, perf)
            out[p] = (config, ktune, {"cublas": cublas, "cublaslt": cublaslt})
    return out


def picks(header, problems, precision):
    n = 6 if precision == "fp32" else 7
    args = ", ".join(f"s[{i}]" for i in range(n))
    driver = (f'#include <cstdio>\n#include "{os.path.abspath(header)}"\n'
              "int main() {\n  long long s[7];\n"
              '  while (std::scanf("%lld %lld %lld %lld %lld %lld %lld", s, s + 1, s + 2, s + 3, '
              "s + 4, s + 5, s + 6) == 7)\n"
              f'    std::printf("%s\\n", ktune_selector::kConfigs[ktune_selector::select({args})]);'
              "\n}\n")
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "d.cpp"), os.path.join(tmp, "d")
        open(src, "w").write(driver)
        subprocess.run(["c++", "-std=c++17", "-O1", src, "-o", exe], check=True)
        rows = []
        for p in problems:
            kv = dict(x.split("=") for x in p.split(";"))
            rows.append(" ".join([kv[f] for f in FIELDS] + [str(PRECISIONS[precision])]))
        out = subprocess.run([exe], input="\n".join(rows) + "\n", capture_output=True, text=True,
                             check=True).stdout.split()
    return out[:len(problems)]


def flops(problem):
    kv = dict(x.split("=") for x in problem.split(";"))
    return 2.0 * int(kv["m"]) * int(kv["n"]) * int(kv["k"]) * int(kv.get("batch", 1))


def score(runs, chosen, work=None):
    """(ratios of the scored picks, vendor picks, same own picks, unknown own picks, the scored
    picks' time-weighted ratio: sum of the faster vendor's times / sum of the picks' times, a
    time being work / perf; work per run, default 1)."""
    ratios, vendor, same, unknown = [], 0, 0, 0
    vendor_time = picked_time = 0.0
    for i, ((served, ktune, vendors), config) in enumerate(zip(runs, chosen)):
        faster = max(vendors.values())
        if config.startswith("vendor=") and config[len("vendor="):] in vendors:
            perf = vendors[config[len("vendor="):]]
            vendor += 1
        elif config == served:
            perf = ktune
            same += 1
        else:
            unknown += 1
            continue
        ratios.append(perf / faster)
        w = work[i] if work else 1.0
        vendor_time += w / faster
        picked_time += w / perf
    return ratios, vendor, same, unknown, vendor_time / picked_time if picked_time else float("nan")


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__.strip().split("\n")[-2])
    header, precision, log = argv[1:]
    for path in (header, log):
        if not os.path.exists(path):
            fail(f"no such file: {path}")
    if precision not in PRECISIONS:
        fail(f"unknown precision '{precision}' (fp32, tf32, bf16, fp16)")
    runs = measured(log)
    if not runs:
        fail(f"{log}: no bench line")
    problems = sorted(runs)
    ratios, vendor, same, unknown, weighted = score([runs[p] for p in problems],
                                                    picks(header, problems, precision),
                                                    [flops(p) for p in problems])
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")
    # columns: header | precision | shapes | vendor picks | same own picks | unknown | geomean |
    # below 0.8x | below 0.9x | worst | time-weighted (all over the scored picks)
    print(f"| {os.path.basename(header)} | {precision} | {len(problems)} | {vendor} | {same} | "
          f"{unknown} | {geo:.3f} | {sum(r < 0.8 for r in ratios)} | "
          f"{sum(r < 0.9 for r in ratios)} | {min(ratios) if ratios else float('nan'):.3f} | "
          f"{weighted:.3f} |")


if __name__ == "__main__":
    main(sys.argv)
