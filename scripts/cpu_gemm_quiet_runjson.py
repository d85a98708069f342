#!/usr/bin/env python3
"""Writes OUT_DIR/run.json for a CPU deployed-vs-vendor run of scripts/cpu_gemm_heldout_bench.sh
(results/ conventions): command, commit, date, device (scripts/cpu_model.py's CPU description,
the load average at the end), per set whether its shapes are in the selector's
training data, the vendors that ran (the CSVs' OpenBLAS core and oneDNN implementation columns and
the bench's vendor lines in the log) and the measures: per set the geomean and time-weighted ratio
against the faster of OpenBLAS and oneDNN (each side the median of its rounds), the shapes below
0.8x and 0.9x, the worst, the share served by ktune's own kernels, and from the rounds files the
median over rounds of each round's own ratio (the paired figure) and the spread of the deployed
side's round times.
  scripts/cpu_gemm_quiet_runjson.py OUT_DIR --command CMD --set NAME=held-out|in-sample ...
NAME is a run of OUT_DIR (deployed-cpu-NAME.csv, rounds-cpu-NAME.csv)."""
import argparse
import csv
import datetime
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_model import describe as cpu_model  # noqa: E402
from gemm_deployed_tables import flop, geomean, read_run  # noqa: E402


def round_figures(path):
    """Per shape: the median over rounds of vendor-best / deployed, and max / min of the deployed
    round times (None where the file has fewer than two rounds of a shape)."""
    times = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["ms"]:
                times.setdefault(r["problem"], {}).setdefault(int(r["round"]), {})[r["library"]] = \
                    float(r["ms"])
    out = {}
    for problem, rounds in times.items():
        ratios, deployed = [], []
        for lib in rounds.values():
            vendors = [ms for name, ms in lib.items() if name != "deployed"]
            if "deployed" in lib and vendors:
                ratios.append(min(vendors) / lib["deployed"])
                deployed.append(lib["deployed"])
        ratios.sort()
        h = len(ratios) // 2
        paired = ratios[h] if len(ratios) % 2 else 0.5 * (ratios[h - 1] + ratios[h])
        spread = max(deployed) / min(deployed) if len(deployed) > 1 else None
        out[problem] = (paired, spread, len(ratios))
    return out


def set_measures(name, rows, rounds):
    ratio = [r["ratio"] for r in rows]
    vendor_t = sum(flop(r["shape"]) / r["vendor"] for r in rows)
    ours_t = sum(flop(r["shape"]) / r["deployed"] for r in rows)
    own = [r for r in rows if not r["config"].startswith("vendor=")]
    own_t = sum(flop(r["shape"]) / r["deployed"] for r in own)
    worst = min(rows, key=lambda r: r["ratio"])
    text = (f"{name}: {len(rows)} shapes, {geomean(ratio):.3f} geomean / {vendor_t / ours_t:.3f} "
            f"time-weighted, {sum(x < 0.8 for x in ratio)} below 0.8x, "
            f"{sum(x < 0.9 for x in ratio)} below 0.9x "
            f"({100 * sum(x < 0.9 for x in ratio) / len(rows):.0f} %), worst {worst['ratio']:.3f} "
            f"({worst['problem']} `{worst['config']}`), own kernels on {len(own)} of {len(rows)} "
            f"shapes ({100 * own_t / ours_t:.0f} % of the time)")
    paired = [rounds[r["problem"]] for r in rows if r["problem"] in rounds]
    if paired and len(paired) == len(rows):
        spreads = sorted(s for _, s, _ in paired if s)
        text += (f"; per-round pairing: {geomean([p for p, _, _ in paired]):.3f} geomean, "
                 f"{sum(p < 0.9 for p, _, _ in paired)} below 0.9x, "
                 f"{sum(p < 0.8 for p, _, _ in paired)} below 0.8x over "
                 f"{min(n for _, _, n in paired)} rounds")
        if spreads:
            text += (f", deployed round times max/min median {spreads[len(spreads) // 2]:.2f}, "
                     f"largest {spreads[-1]:.2f}")
    return text


def vendors_text(out_dir, runs):
    kernels = {"openblas": set(), "onednn": set()}
    for rows in runs:
        for r in rows:
            for v in kernels:
                if r.get(f"{v}_kernel"):
                    kernels[v].add(r[f"{v}_kernel"])
    lines = []
    log = os.path.join(out_dir, "deployed-cpu-heldout.log")
    if os.path.exists(log):
        with open(log) as f:
            lines = sorted({line.strip() for line in f if line.startswith("vendor ")})
    return ("; ".join(lines) + "; " if lines else "") + (
        f"per row: OpenBLAS core {', '.join(sorted(kernels['openblas'])) or 'none'}, oneDNN "
        f"{', '.join(sorted(kernels['onednn'])) or 'none'}; OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE "
        "unset for the bench commands (a '(forced)' core says scripts/openblas_core.sh set one)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--command", required=True)
    ap.add_argument("--set", action="append", required=True, help="NAME=held-out|in-sample")
    a = ap.parse_args()
    in_sample, measures, runs = {}, [], []
    for spec in a.set:
        name, _, kind = spec.partition("=")
        if kind not in ("held-out", "in-sample"):
            sys.exit(f"cpu_gemm_quiet_runjson.py: --set {spec}: expected NAME=held-out|in-sample")
        path = os.path.join(a.out_dir, f"deployed-cpu-{name}.csv")
        if not os.path.exists(path):
            sys.exit(f"cpu_gemm_quiet_runjson.py: no file {path}")
        rows = read_run(path)
        rounds_path = os.path.join(a.out_dir, f"rounds-cpu-{name}.csv")
        rounds = round_figures(rounds_path) if os.path.exists(rounds_path) else {}
        in_sample[name] = kind == "in-sample"
        measures.append(set_measures(f"{name} ({kind})", rows, rounds))
        runs.append(rows)
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    run = {
        "command": a.command,
        "commit": commit,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "device": f"{cpu_model()} (load average at the end: {load})",
        "measures": "the deployed CPU GEMM library against the faster of OpenBLAS and oneDNN, "
                    "each side the median of its rounds (tuned_gemm_bench --rounds: each round "
                    "starts with the next library): " + "; ".join(measures),
        "files": sorted(f for f in os.listdir(a.out_dir) if f != "run.json"),
        # true / false when every set is one or the other, else null ("mixed"), and per set
        "in_sample": (all(in_sample.values()) or (False if not any(in_sample.values()) else None)),
        "in_sample_per_set": in_sample,
        "vendors": vendors_text(a.out_dir, runs),
    }
    with open(os.path.join(a.out_dir, "run.json"), "w") as f:
        json.dump(run, f, indent=2)
        f.write("\n")
    print(run["measures"])


if __name__ == "__main__":
    main()
