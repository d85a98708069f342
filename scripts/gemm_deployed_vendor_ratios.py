#!/usr/bin/env python3
"""Deployed library vs each CUDA vendor row and vs the faster of them, from tuned_gemm_bench logs
(its CSV keeps only the fastest vendor; each log line names every vendor's GFLOP/s of the same
run). "faster vendor" is the faster of the calls a user makes (cuBLAS, cuBLASLt's heuristic #0);
rows named *-top8 (the fastest of cuBLASLt's top 8 algorithms, timed in the same run) are
compared alone and in "fastest incl. top-8". "the vendor it calls" takes only the shapes the
library serves with a shipped vendor call the benchmark also times (vendor=cublas, vendor=cublaslt:
heuristic #0), each against that same call: the library's wrapper cost, with no selection in it.
Per set, the geometric mean of deployed/vendor, the time-weighted ratio (sum of vendor times / sum
of deployed times), the shapes below 0.8x and the worst ratio. A shape measured in several logs
counts once, for the first set that names it.
  scripts/gemm_deployed_vendor_ratios.py SET=LOG[,LOG...] ... > out.md
  e.g. in-sample=bench-dnn-bf16.log,bench-large-bf16.log held-out=bench-llm-bf16.log"""
import math
import re
import sys

LINE = re.compile(r"\[\d+/\d+\] (\S+) (\S+) ktune ([\d.]+)((?: \S+ [\d.]+)+)\s*$")


CALLED = "the vendor it calls"


def flops(key):
    f = dict(kv.split("=") for kv in key.split(";"))
    return 2.0 * int(f["m"]) * int(f["n"]) * int(f["k"]) * int(f["batch"])


def main(args):
    if not args or any("=" not in a for a in args):
        sys.exit(__doc__)
    seen, sets = set(), []
    for arg in args:
        name, logs = arg.split("=", 1)
        rows = []
        for log in logs.split(","):
            for line in open(log):
                m = LINE.match(line)
                if not m or m.group(1) in seen:
                    continue
                seen.add(m.group(1))
                parts = m.group(4).split()
                vendors = {parts[i]: float(parts[i + 1]) for i in range(0, len(parts), 2)}
                rows.append((m.group(1), m.group(2), float(m.group(3)), vendors))
        sets.append((name, rows))
    print("| set | against | shapes | geomean | time-weighted | below 0.8× | worst |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, rows in sets:
        names = sorted({v for _, _, _, vendors in rows for v in vendors})
        extra = ["fastest incl. top-8"] if any(n.endswith("-top8") for n in names) else []
        for against in names + ["faster vendor"] + extra + [CALLED]:
            ratios, t_deployed, t_vendor = [], 0.0, 0.0
            for key, config, ktune, vendors in rows:
                if against == CALLED:
                    vendor = vendors.get(config.removeprefix("vendor="))
                    if vendor is None:  # a kernel, or a cuBLASLt answer the benchmark does not time
                        continue
                elif against == "faster vendor":
                    vendor = max(v for n, v in vendors.items() if not n.endswith("-top8"))
                elif against in extra:
                    vendor = max(vendors.values())
                else:
                    vendor = vendors[against]
                ratios.append(ktune / vendor)
                t_deployed += flops(key) / ktune
                t_vendor += flops(key) / vendor
            if not ratios:
                continue
            geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
            below = sum(r < 0.8 for r in ratios)
            print(f"| {name} | {against} | {len(ratios)} | {geo:.3f} | {t_vendor / t_deployed:.3f} | "
                  f"{below} | {min(ratios):.3f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
