#!/usr/bin/env python3
"""How much cuBLASLt's top-8 search gains over the calls a library makes, in a GEMM sweep's CSV.

Per set (large, dnn: every model tag, llm), over the problems with ok cublas, cublaslt (heuristic
#0) and cublaslt-top8 rows: the geometric mean of #0's time over the best of #0 and the top-8
winner; of the faster vendor's (cublas, #0) time over the best of the three, and its time-weighted
form; how many problems the top-8 winner beats the faster vendor by more than 2 % and 5 %; and how
often each heuristic answer wins (the message's "heuristic #i"). The sweep's own figures: a
selector that ships "vendor=cublaslt;heuristic=<i>" can reach them only where it picks well.
  xzcat gemm-tf32.csv.xz | scripts/gemm_lt_top8_gain.py
"""
import collections
import csv
import math
import re
import sys

VENDORS = ("cublas", "cublaslt", "cublaslt-top8")


def set_of(tags):
    return tags if tags in ("large", "llm") else "dnn"


def main():
    reader = csv.DictReader(sys.stdin)
    if not reader.fieldnames or not {"problem", "config", "status", "median_ms", "message",
                                     "tags"} <= set(reader.fieldnames):
        sys.exit("gemm_lt_top8_gain.py: stdin is not a sweep CSV")
    ms = collections.defaultdict(dict)
    winner, sets = {}, {}
    for r in reader:
        if r["config"] not in VENDORS or r["status"] != "ok":
            continue
        ms[r["problem"]][r["config"]] = float(r["median_ms"])
        sets[r["problem"]] = set_of(r["tags"])
        if r["config"] == "cublaslt-top8":
            m = re.match(r"heuristic #(\d+):", r["message"])
            winner[r["problem"]] = int(m.group(1)) if m else -1
    print("| set | problems | #0 / best of top-8 (geomean) | faster vendor / best incl. top-8 "
          "(geomean) | time-weighted | top-8 > faster vendor by 2 % | by 5 % | winner #0..#7 |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name in ("large", "dnn", "llm"):
        ps = [p for p in ms if sets[p] == name and len(ms[p]) == 3]
        if not ps:
            continue
        lt0, vend, tw_v, tw_b, by2, by5 = [], [], 0.0, 0.0, 0, 0
        wins = collections.Counter(winner.get(p, -1) for p in ps)
        for p in ps:
            d = ms[p]
            top = min(d["cublaslt-top8"], d["cublaslt"])
            v = min(d["cublas"], d["cublaslt"])
            lt0.append(math.log(d["cublaslt"] / top))
            vend.append(math.log(v / min(v, top)))
            tw_v += v
            tw_b += min(v, top)
            by2 += v / top > 1.02
            by5 += v / top > 1.05
        g = lambda x: math.exp(sum(x) / len(x))
        print(f"| {name} | {len(ps)} | {g(lt0):.3f} | {g(vend):.3f} | {tw_v / tw_b:.3f} | {by2} | "
              f"{by5} | {' '.join(str(wins[i]) for i in range(8))} |")


if __name__ == "__main__":
    main()
