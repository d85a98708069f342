#!/usr/bin/env python3
"""What a generated GEMM selector header picks on a sweep's problems, scored on the sweep itself.

Compiles the header (c++) into a small driver that prints select()'s pick per problem, then per
set of problems (the rows' workload tag: `llm` is the held-out set, the rest in-sample) prints
the picks' geometric mean against the faster vendor row (cublas, cublaslt), as % of the oracle
(the best of every config and those vendors), and the count of problems predicted below 0.8x and
0.9x the faster vendor. A prediction from the sweep's own timings, not a measurement of the
library: the deployed benchmark (tuned_gemm_bench) is that.
  scripts/selector_header_eval.py HEADER DATA.csv[.xz|.gz] PRECISION [--list]
PRECISION is the problem key's precision number (2 bf16, 3 fp16), or fp32 for the FP32 keys,
which name none (their selectors take six arguments); --list names the shapes below 0.8x.
"""
import collections
import csv
import gzip
import lzma
import math
import os
import subprocess
import sys
import tempfile

DRIVER = r"""
#include <cstdio>
#include HEADER
int main() {
  long long s[7];
  while (std::scanf("%lld %lld %lld %lld %lld %lld %lld", s, s + 1, s + 2, s + 3, s + 4, s + 5,
                    s + 6) == 7)
    std::printf("%s\n", ktune_selector::kConfigs[ktune_selector::select(ARGS)]);
}
"""
VENDORS = ("cublas", "cublaslt")


def open_text(path):
    if path.endswith(".xz"):
        return lzma.open(path, "rt")
    if path.endswith(".gz"):
        return gzip.open(path, "rt")
    return open(path)


def load(path, precision):
    perf, tags = collections.defaultdict(dict), {}
    with open_text(path) as f:
        for r in csv.DictReader(f):
            fp32 = precision == "fp32" and ";precision=" not in r["problem"]
            if not fp32 and not r["problem"].endswith(";precision=" + precision):
                continue
            tags[r["problem"]] = r["tags"]
            if r["status"] == "ok":
                perf[r["problem"]][r["config"]] = float(r["perf"])
    return perf, tags


def picks(header, problems, precision):
    fields = ("transa", "transb", "m", "n", "k", "batch", "precision")
    args = ", ".join(f"s[{i}]" for i in range(6 if precision == "fp32" else 7))
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "driver.cpp"), os.path.join(tmp, "driver")
        with open(src, "w") as f:
            f.write(DRIVER.replace("HEADER", '"' + os.path.abspath(header) + '"')
                    .replace("ARGS", args))
        subprocess.run(["c++", "-std=c++17", "-O1", src, "-o", exe], check=True)
        lines = []
        for p in problems:
            kv = dict(x.split("=") for x in p.split(";"))
            lines.append(" ".join(kv.get(x, "0") for x in fields))
        out = subprocess.run([exe], input="\n".join(lines) + "\n", capture_output=True,
                             text=True, check=True).stdout.split("\n")
    return out[:len(problems)]


def main(argv):
    if len(argv) < 4:
        sys.exit("usage: selector_header_eval.py HEADER DATA PRECISION [--list]")
    header, data, precision = argv[1:4]
    for path in (header, data):
        if not os.path.exists(path):
            sys.exit(f"selector_header_eval.py: no such file: {path}")
    perf, tags = load(data, precision)
    if not perf:
        sys.exit(f"selector_header_eval.py: {data} holds no problem of precision {precision}")
    problems = sorted(perf)
    sets = collections.defaultdict(list)
    for p, config in zip(problems, picks(header, problems, precision)):
        d = perf[p]
        got = d.get(config[len("vendor="):] if config.startswith("vendor=") else config, 0.0)
        vendor = max(d.get(v, 0.0) for v in VENDORS)
        oracle = max(v for c, v in d.items() if c in VENDORS or not c.startswith("cublas"))
        held_out = tags[p] == "llm"
        sets["held-out-llm" if held_out else "in-sample"].append((p, config, got, vendor, oracle))
    print("| set | problems | served | geomean vs faster vendor | % of oracle | < 0.8x | < 0.9x "
          "| own kernels |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in ("in-sample", "held-out-llm"):
        rows = sets[name]
        ok = [r for r in rows if r[2] > 0 and r[3] > 0]
        if not ok:
            continue
        geo = math.exp(sum(math.log(r[2] / r[3]) for r in ok) / len(ok))
        pct = 100 * math.exp(sum(math.log(r[2] / r[4]) for r in ok) / len(ok))
        below8 = [r for r in ok if r[2] / r[3] < 0.8]
        below9 = sum(r[2] / r[3] < 0.9 for r in ok)
        own = sum(not r[1].startswith("vendor=") for r in ok)
        print(f"| {name} | {len(rows)} | {len(ok)} | {geo:.3f} | {pct:.1f} | {len(below8)} | "
              f"{below9} | {own} |")
        if "--list" in argv:
            for r in sorted(below8, key=lambda r: r[2] / r[3]):
                print(f"|   {r[0]} | `{r[1]}` | {r[2] / r[3]:.3f} | | | | | |")


if __name__ == "__main__":
    main(sys.argv)
