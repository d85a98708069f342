#!/usr/bin/env python3
"""Adds deployable cuBLASLt candidates to a GEMM sweep's CSV (stdin to stdout).

The sweep's "cublaslt-top8" row is the fastest of cuBLASLt's first 8 heuristic answers, and its
message names the one ("heuristic #3: algo ..."). A library can call that answer: config
"vendor=cublaslt;heuristic=3" (kernels/gemm/gemm_vendor_config.hpp). For each top-8 row whose
winner is answer #i with i >= 1, this writes the same measurement once more as vendor row
"cublaslt;heuristic=<i>" (config_id -1, as every vendor row), so `ktune deploy --vendors
--vendor-names cublas,cublaslt,cublaslt;heuristic=1,...` can ship it. A winner #0 is the
"cublaslt" row's algorithm and adds nothing. Sweeps made before each answer got its own row
(kernels/gemm/cuda/gemm_cuda_session.cpp) timed the other answers without keeping them: the
candidate is unmeasured there (the selector learns it only where it was the top-8 winner). Where
the sweep already has the answer's own row (newer sweeps: every answer), nothing is added. Every
input row passes through unchanged. A top-8 row whose message names no index is an error
naming the row.
  xzcat gemm-tf32.csv.xz | scripts/gemm_lt_heuristic_rows.py > with-heuristics.csv
"""
import csv
import re
import sys

TOP = "cublaslt-top8"
LIMIT = 8  # kLtHeuristicLimit
WINNER = re.compile(r"^heuristic #(\d+):")


def heuristic_rows(reader, writer):
    """Copies the rows, adding one candidate row per top-8 winner #i >= 1; returns that count."""
    rows = list(reader)
    measured = {(r["problem"], r["config"]) for r in rows}
    added = 0
    for line, row in enumerate(rows, start=2):
        writer.writerow(row)
        if row["config"] != TOP or row["status"] != "ok":
            continue
        match = WINNER.match(row.get("message") or "")
        if not match:
            raise ValueError(f"line {line}: {TOP} row names no heuristic index: {row['message']!r}")
        index = int(match.group(1))
        if index >= LIMIT:
            raise ValueError(f"line {line}: heuristic #{index} is outside 0..{LIMIT - 1}")
        if index == 0:
            continue
        name = f"cublaslt;heuristic={index}"
        if (row["problem"], name) in measured:
            continue  # the sweep's own row of that answer
        extra = dict(row)
        extra["config"] = name
        extra["config_id"] = "-1"
        writer.writerow(extra)
        added += 1
    return added


def main():
    reader = csv.DictReader(sys.stdin)
    if not reader.fieldnames or not {"problem", "config", "status", "message", "config_id"} <= set(reader.fieldnames):
        sys.exit("gemm_lt_heuristic_rows.py: stdin is not a sweep CSV (needs problem, config, config_id, status, message)")
    writer = csv.DictWriter(sys.stdout, fieldnames=reader.fieldnames, lineterminator="\n")
    writer.writeheader()
    try:
        added = heuristic_rows(reader, writer)
    except ValueError as e:
        sys.exit(f"gemm_lt_heuristic_rows.py: {e}")
    print(f"gemm_lt_heuristic_rows.py: {added} cuBLASLt heuristic rows added", file=sys.stderr)


if __name__ == "__main__":
    main()
