#!/usr/bin/env python3
"""Summarizes tuned_gemm_bench --host-call-cost logs (one per run) as markdown: per precision and
stream, each call's median over the runs (us per call on the host) and the differences that
matter: the library's call above the bare cublasLtMatmul, the library's steps composed with
session 15's runtime stream queries above the same steps with the library's own (what the queries'
change saves), and the library's call above its composed steps (what its dispatch adds); then each
step alone (ns per call), median over the runs. A missing or unreadable log, or logs with no
host-call-cost line, is a one-line error and exit 1.
  host_call_cost_summary.py LOG..."""
import re
import statistics
import sys

CALL = re.compile(r"^host call cost (\w+) (\d+x\d+x\d+ \w+)( null stream)? \([^)]*\):(.*)$")
STEP = re.compile(r"^host step cost \([^)]*\):(.*)$")


def entries(text):
    """'a b 1.5; c 2;' -> {'a b': 1.5, 'c': 2.0}; None when an entry has no number."""
    out = {}
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        name, _, value = part.rpartition(" ")
        try:
            out[name] = float(value)
        except ValueError:
            return None
    return out


def read(paths):
    calls, steps = {}, {}  # (precision, shape, stream) -> name -> [values]; name -> [values]
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError as e:
            sys.exit(f"host_call_cost_summary: cannot read '{path}': {e.strerror}")
        for line in lines:
            m = CALL.match(line)
            if m:
                got = entries(m.group(4))
                if got is None:
                    sys.exit(f"host_call_cost_summary: '{path}': unreadable line: {line}")
                key = (m.group(1), m.group(2), "null" if m.group(3) else "created")
                for name, value in got.items():
                    calls.setdefault(key, {}).setdefault(name, []).append(value)
                continue
            m = STEP.match(line)
            if m:
                got = entries(m.group(1))
                if got is None:
                    sys.exit(f"host_call_cost_summary: '{path}': unreadable line: {line}")
                for name, value in got.items():
                    steps.setdefault(name, []).append(value)
    if not calls and not steps:
        sys.exit("host_call_cost_summary: no 'host call cost' line in " + ", ".join(paths))
    return calls, steps


def median(values):
    return statistics.median(values) if values else None


def text(x):
    return "-" if x is None else f"{x:.3f}"


def difference(row, a, b):
    x, y = median(row.get(a, [])), median(row.get(b, []))
    return None if x is None or y is None else x - y


def main(paths):
    calls, steps = read(paths)
    print(f"Host cost per call (us, median of {len(paths)} run(s) of tuned_gemm_bench "
          "--host-call-cost; each run's figure a median of 21 blocks of 100 calls)\n")
    print("| precision | shape | stream | gemm_ex_config | gemm_ex | s15 steps | steps | plan | "
          "cublasLtMatmul | library - bare | s15 - new steps | library - steps |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (q, shape, stream), row in sorted(calls.items()):
        gemm_ex = next((v for n, v in row.items() if n.startswith("gemm_ex (")), [])
        cells = [median(row.get("gemm_ex_config", [])), median(gemm_ex),
                 median(row.get("s15 steps", [])), median(row.get("steps", [])),
                 median(row.get("plan", [])), median(row.get("cublasLtMatmul", [])),
                 difference(row, "gemm_ex_config", "cublasLtMatmul"),
                 difference(row, "s15 steps", "steps"), difference(row, "gemm_ex_config", "steps")]
        print(f"| {q} | {shape} | {stream} | " + " | ".join(text(c) for c in cells) + " |")
    if steps:
        print(f"\nEach step alone (ns per call, created stream, median of {len(paths)} run(s))\n")
        print("| step | ns |")
        print("|---|---|")
        for name, values in steps.items():
            print(f"| {name} | {text(median(values))} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: host_call_cost_summary.py LOG...")
    main(sys.argv[1:])
