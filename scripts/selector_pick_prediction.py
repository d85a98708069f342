#!/usr/bin/env python3
"""What a GEMM selector header would score on a workload an earlier deployed run measured.

Compiles the header into a small driver, asks select() for each shape of an earlier
tuned_gemm_bench log (lines `[i/n] PROBLEM CONFIG ktune X cublas Y cublaslt Z`), and scores each
pick from that run's own timings against the faster of its cuBLAS and cuBLASLt columns: a vendor
pick by the benchmark's call of that vendor, an own-kernel pick only where it is the config the
run served (its measured time); other own-kernel picks are counted as unknown, not scored. A
prediction from a measurement of another header, not a measurement of this one.
  scripts/selector_pick_prediction.py HEADER PRECISION BENCH.log
PRECISION: fp32 (six-argument selectors), tf32, bf16 or fp16.
"""
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
    """problem -> (served config, ktune, cublas, cublaslt) perf of a bench log."""
    out = {}
    for line in open(log):
        m = LINE.match(line)
        if m:
            p, config, *perf = m.groups()
            out[p] = (config, *map(float, perf))
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


def score(runs, chosen):
    """(ratios of the scored picks, vendor picks, same own picks, unknown own picks)."""
    ratios, vendor, same, unknown = [], 0, 0, 0
    for (served, ktune, cublas, cublaslt), config in zip(runs, chosen):
        faster = max(cublas, cublaslt)
        if config == "vendor=cublas":
            ratios.append(cublas / faster)
            vendor += 1
        elif config == "vendor=cublaslt":
            ratios.append(cublaslt / faster)
            vendor += 1
        elif config == served:
            ratios.append(ktune / faster)
            same += 1
        else:
            unknown += 1
    return ratios, vendor, same, unknown


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
    ratios, vendor, same, unknown = score([runs[p] for p in problems],
                                          picks(header, problems, precision))
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")
    print(f"| {os.path.basename(header)} | {precision} | {len(problems)} | {vendor} | {same} | "
          f"{unknown} | {geo:.3f} | {sum(r < 0.8 for r in ratios)} | "
          f"{sum(r < 0.9 for r in ratios)} | {min(ratios) if ratios else float('nan'):.3f} |")


if __name__ == "__main__":
    main(sys.argv)
