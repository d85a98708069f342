#!/usr/bin/env python3
"""Compares a built-in family with its file-family re-expression from the stores that
scripts/cross_check_stencil_file.sh wrote in OUT_DIR (both paths, interleaved rounds):
configs and verdicts, per-measurement times (file / built-in in the same round, against the
built-in's own round-to-round spread as the noise), per-config overhead on the tiny problem,
and the selection figures (ktune eval --quick on each dataset, the same split and seed).
Writes OUT_DIR/cross-check.md and OUT_DIR/{times,overhead}.csv; exits 1 if configs or
verdicts differ.
Usage: compare_file_family.py KTUNE OUT_DIR FAMILY_FILE [ROUNDS]"""
import collections
import csv
import statistics
import subprocess
import sys
from math import exp, log
from pathlib import Path


def export(ktune, store):
    out = store.with_suffix(".csv")
    subprocess.run([ktune, "export", "--store", str(store), "--format", "csv", "-o", str(out)],
                   check=True, capture_output=True)
    with open(out) as f:
        return {(r["problem"], r["config"]): r for r in csv.DictReader(f)}


def quantiles(xs):
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=20) if len(xs) > 1 else xs * 19
    return xs[len(xs) // 2], q[0], q[-1]  # median, 5th and 95th percentile


def log_ratios(a, b):
    keys = sorted(k for k in a if k in b and a[k]["status"] == "ok" == b[k]["status"])
    return [log(float(a[k]["median_ms"]) / float(b[k]["median_ms"])) for k in keys]


def ratio_row(name, lr):
    m, lo, hi = quantiles(lr)
    return f"| {name} | {len(lr)} | {exp(m):.3f} | {exp(lo):.3f} | {exp(hi):.3f} |"


def main():
    ktune, out, family_file = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    md, failures = [], 0
    data = {(p, r): export(ktune, out / f"{p}-{r}.sqlite")
            for p in ("builtin", "file") for r in range(1, rounds + 1)}
    md += ["## Configs and verdicts", ""]
    for r in range(1, rounds + 1):
        b, f = data["builtin", r], data["file", r]
        same = {k: v["status"] for k, v in b.items()} == {k: v["status"] for k, v in f.items()}
        failures += not same
        statuses = collections.Counter(v["status"] for v in b.values())
        md.append(f"- round {r}: {len(b)} built-in and {len(f)} file measurements, "
                  f"{'the same' if same else 'DIFFERENT'} (problem, config) pairs and verdicts "
                  f"(built-in: {dict(statuses)})")
    md += ["", "## Times (median of each measurement's runs)", "",
           "| ratio | pairs | median | 5th pct | 95th pct |", "| --- | --- | --- | --- | --- |"]
    rows = []
    for r in range(1, rounds + 1):
        lr = log_ratios(data["file", r], data["builtin", r])
        md.append(ratio_row(f"file / built-in, round {r}", lr))
        rows.append((f"file/builtin r{r}", lr))
    for p in ("builtin", "file"):
        for r in range(2, rounds + 1):
            lr = log_ratios(data[p, r], data[p, 1])
            md.append(ratio_row(f"{p} round {r} / round 1 (noise)", lr))
            rows.append((f"{p} r{r}/r1", lr))
    with open(out / "times.csv", "w") as f:
        f.write("comparison,pairs,median_ratio,p05_ratio,p95_ratio\n")
        for name, lr in rows:
            m, lo, hi = quantiles(lr)
            f.write(f"{name},{len(lr)},{exp(m):.4f},{exp(lo):.4f},{exp(hi):.4f}\n")
    md += ["", "## Per-config overhead (one 16 x 16 problem, every config, 50 timed runs each)", "",
           "| path | round | bench wall per config (ms) | median run (us) |",
           "| --- | --- | --- | --- |"]
    walls = {}
    with open(out / "wall.csv") as f:
        for w in csv.DictReader(f):
            walls[w["path"], w["workload"], int(w["round"])] = float(w["wall_s"])
    with open(out / "overhead.csv", "w") as f:
        f.write("path,round,configs,wall_per_config_ms,median_run_us\n")
        for r in range(1, rounds + 1):
            for p in ("builtin", "file"):
                tiny = export(ktune, out / f"tiny-{p}-{r}.sqlite")
                per = walls[p, "tiny", r] * 1e3 / len(tiny)
                run_us = statistics.median(float(v["median_ms"]) * 1e3 for v in tiny.values())
                md.append(f"| {p} | {r} | {per:.2f} | {run_us:.2f} |")
                f.write(f"{p},{r},{len(tiny)},{per:.4f},{run_us:.4f}\n")
    md += ["", "## Selection (ktune eval --quick --split cv4 --seed 1 on round 1 of each path)", ""]
    for p in ("builtin", "file"):
        extra = ["--family-file", family_file] if p == "file" else []
        subprocess.run([ktune, "eval", *extra, "--data", str(out / f"{p}-1.sqlite"), "--quick",
                        "--split", "cv4", "--seed", "1", "--threads", "1", "--csv",
                        str(out / f"eval-{p}.csv"), "--markdown", str(out / f"eval-{p}.md")],
                       check=True, capture_output=True)
    evals = {}
    for p in ("builtin", "file"):
        with open(out / f"eval-{p}.csv") as f:
            evals[p] = {(e["split"], e["norm"], e["pruner"], e["selector"] or "(ceiling)", e["k"]):
                        e["pct_of_oracle"] or e["ceiling_pct"] for e in csv.DictReader(f)}
    md += ["| split | norm | pruner | selector | K | built-in % of oracle | file % of oracle |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for key in sorted(evals["builtin"]):
        md.append(f"| {' | '.join(key)} | {evals['builtin'][key]} | "
                  f"{evals['file'].get(key, 'absent')} |")
    (out / "cross-check.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
