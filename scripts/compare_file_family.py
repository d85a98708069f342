#!/usr/bin/env python3
"""Compares a built-in family with its file-family re-expression from the stores that
scripts/cross_check_stencil_file.sh wrote in OUT_DIR (both paths, interleaved rounds):
configs and verdicts, per-measurement times (file / built-in in the same round, against the
built-in's own round-to-round spread as the noise), per-config overhead (the tiny problem's
benches; and, for each workload bench, its wall less its kernel runs: (reps + 2) x median per
measurement, the 2 being the verification run and the warm-up), and the selection figures
(ktune eval --quick on each dataset, the same split and seed). Rounds missing from OUT_DIR
(a run cut short) are left out.
Writes OUT_DIR/cross-check.md and OUT_DIR/{times,overhead}.csv; exits 1 if configs or
verdicts differ.
Usage: compare_file_family.py KTUNE OUT_DIR FAMILY_FILE"""
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
    md, failures = [], 0
    data = {(p, int(store.stem.split("-")[1])): export(ktune, store)
            for p in ("builtin", "file") for store in sorted(out.glob(f"{p}-*.sqlite"))}
    rounds = sorted({r for (p, r) in data if ("builtin", r) in data and ("file", r) in data})
    md += ["## Configs and verdicts", ""]
    for r in rounds:
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
    for r in rounds:
        lr = log_ratios(data["file", r], data["builtin", r])
        md.append(ratio_row(f"file / built-in, round {r}", lr))
        rows.append((f"file/builtin r{r}", lr))
    for p in ("builtin", "file"):
        for r in sorted(r for (q, r) in data if q == p and r > 1):
            lr = log_ratios(data[p, r], data[p, 1])
            md.append(ratio_row(f"{p} round {r} / round 1 (noise)", lr))
            rows.append((f"{p} r{r}/r1", lr))
    with open(out / "times.csv", "w") as f:
        f.write("comparison,pairs,median_ratio,p05_ratio,p95_ratio\n")
        for name, lr in rows:
            m, lo, hi = quantiles(lr)
            f.write(f"{name},{len(lr)},{exp(m):.4f},{exp(lo):.4f},{exp(hi):.4f}\n")
    walls = {}
    with open(out / "wall.csv") as f:
        for w in csv.DictReader(f):
            walls[w["path"], w["workload"], int(w["round"])] = float(w["wall_s"])
    md += ["", "## Per-config overhead", "",
           "| path | workload | round | measurements | bench wall per config (ms) | "
           "of which kernel runs (ms) | overhead per config (ms) |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    with open(out / "overhead.csv", "w") as f:
        f.write("path,workload,round,measurements,wall_per_config_ms,runs_per_config_ms,"
                "overhead_per_config_ms\n")
        for (p, workload, r), wall in sorted(walls.items(), key=lambda x: (x[0][1], x[0][2])):
            store = out / (f"{p}-{r}.sqlite" if workload != "tiny" else f"tiny-{p}-{r}.sqlite")
            if not store.exists():
                continue
            d = export(ktune, store)
            runs = sum((int(v["reps"]) + 2) * float(v["median_ms"]) for v in d.values()) / len(d)
            per = wall * 1e3 / len(d)
            md.append(f"| {p} | {workload} | {r} | {len(d)} | {per:.2f} | {runs:.2f} | "
                      f"{per - runs:.2f} |")
            f.write(f"{p},{workload},{r},{len(d)},{per:.4f},{runs:.4f},{per - runs:.4f}\n")
    md += ["", "## Selection (ktune eval --quick --split cv4 --seed 1 on each round's dataset)", ""]
    # The built-in's round 2 too, when there is one: the selection figures' own noise.
    datasets = [("builtin", 1), ("file", 1)] + ([("builtin", 2)] if ("builtin", 2) in data else [])
    for p, r in datasets:
        extra = ["--family-file", family_file] if p == "file" else []
        subprocess.run([ktune, "eval", *extra, "--data", str(out / f"{p}-{r}.sqlite"), "--quick",
                        "--split", "cv4", "--seed", "1", "--threads", "1", "--csv",
                        str(out / f"eval-{p}-{r}.csv"), "--markdown", str(out / f"eval-{p}-{r}.md")],
                       check=True, capture_output=True)
    evals = {}  # mean % of oracle over the folds, per (norm, pruner, selector, K)
    for p, r in datasets:
        folds = collections.defaultdict(list)
        with open(out / f"eval-{p}-{r}.csv") as f:
            for e in csv.DictReader(f):
                value = e["pct_of_oracle"] or e["ceiling_pct"]
                if value:
                    key = (e["norm"], e["pruner"], e["selector"] or "(ceiling)", e["k"])
                    folds[key].append(float(value))
        evals[p, r] = {k: statistics.mean(v) for k, v in folds.items()}
    names = {("builtin", 1): "built-in", ("file", 1): "file", ("builtin", 2): "built-in round 2"}
    md += ["Mean % of oracle over the 4 folds.", "",
           "| norm | pruner | selector | K | " + " | ".join(names[d] for d in datasets) + " |",
           "| --- " * (4 + len(datasets)) + "|"]
    for key in sorted(evals["builtin", 1], key=lambda k: (k[0], k[1], k[2], int(k[3]))):
        cells = [evals[d].get(key) for d in datasets]
        md.append(f"| {' | '.join(key)} | " +
                  " | ".join("absent" if c is None else f"{c:.1f}" for c in cells) + " |")
    (out / "cross-check.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
