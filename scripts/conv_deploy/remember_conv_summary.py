#!/usr/bin/env python3
"""The tables and run.json of scripts/conv_deploy/gpu_remember_conv.sh's directory (tune and
remember in the held-out CUDA conv2d libraries): per precision and held-out pair, the passes plain,
remembered (steady state: the second process, serving the cache a first one filled) and plain
again against cuDNN at its best in the same run — geomean and time-weighted deployed / cuDNN (the
bench table's all-layers row), layers below 0.9x and 0.8x, the three worst layers, the layers
served by ktune's own kernels (plain: the selector's pick, the config column; remembered: the
cache's answer per layer) — and the first calls' costs (the fill process's first call of each
layer, candidates timed; the remembered process's, the cache read). Figures are copied from the
files the run wrote; a missing file is said, never filled in. Writes DIR/summary.md and
DIR/run.json (the draft the committer completes: command, commit, date, device, measures); each
cache (remember-<p>-trained-<net>.sqlite) becomes remember-<p>-trained-<net>.csv, every row it
timed, and is removed.
  scripts/conv_deploy/remember_conv_summary.py DIR --commit SHA --seconds S [--command TEXT]"""
import argparse
import csv
import datetime
import json
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from callmatch_summary import read  # noqa: E402  (None for a missing file)
# a cache's rows, kept as CSV; the GPU in nvidia-smi's table
from gpu_remember_runjson import smi_table, written_cache_rows  # noqa: E402

PASSES = (("plain", "plain"), ("remembered", "remembered (steady state)"),
          ("plain2", "plain again"))
PAIRS = (("vgg16", "resnet50"), ("resnet50", "vgg16"))
ALL_ROW = re.compile(r"^\| all \| 0 \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([^|]+) \|", re.M)
FIRST_CALL = re.compile(r"^remember first call: (\S+): ([\d.]+) ms$", re.M)
SIZES = ("n", "h", "w", "c", "k", "r", "s", "stride", "pad")


def problem_key(row, precision, out16):
    """The cache's problem text of a bench row (kernels/conv2d/deploy/remember_conv2d.hpp)."""
    key = ";".join(f"{x}={int(row[x])}" for x in SIZES)
    code = {"tf32": 1, "bf16": 2, "fp16": 3}.get(precision)
    if code:
        key += f";precision={code}"
    return key + (";out16=1" if out16 else "")


def cache_answers(d, stem):
    """problem -> the config the cache served (None: no cache). The cache DIR/<stem>.sqlite is
    written out as DIR/<stem>.csv and removed (written_cache_rows); a later run reads that CSV."""
    rows = written_cache_rows(os.path.join(d, stem + ".sqlite"), os.path.join(d, stem + ".csv"))
    if rows is None:
        return None
    return {problem: config for problem, timed in rows.items()
            for config, _, _, winner in timed if winner}


def layer_rows(csv_text, answers, precision, out16):
    """(label, ratio, served config) per layer measured on both sides."""
    out = []
    for r in csv.DictReader(csv_text.splitlines()):
        try:
            deployed, vendor = float(r["deployed_gflops"]), float(r["vendor_gflops"])
        except (KeyError, ValueError):
            continue
        if deployed <= 0 or vendor <= 0:
            continue
        served = r.get("config", "")
        if answers is not None:
            served = answers.get(problem_key(r, precision, out16), served)
        out.append((f"{r['network']} {r['layer']} b{r['batch']}", deployed / vendor, served))
    return out


def pass_line(md, rows):
    if md is None:
        return "missing (no table)"
    m = ALL_ROW.search(md)
    if not m:
        return "no all-layers row"
    layers, geo, tw, _ = m.groups()
    ratios = sorted(rows, key=lambda x: x[1])
    own = sum(1 for _, _, c in rows if not c.startswith("vendor="))
    worst = ", ".join(f"{label} {ratio:.3f} (`{served}`)" for label, ratio, served in ratios[:3])
    return (f"{layers} layers: **{geo} geomean, {tw} time-weighted**; below 0.9x "
            f"{sum(1 for r in rows if r[1] < 0.9)}, below 0.8x {sum(1 for r in rows if r[1] < 0.8)}; "
            f"on ktune's kernels {own} of {len(rows)}; worst {worst}")


def first_calls(log):
    ms = [float(v) for _, v in FIRST_CALL.findall(log or "")]
    if not ms:
        return "none logged"
    return (f"{len(ms)} layers: median {statistics.median(ms):.1f} ms, min {min(ms):.1f}, "
            f"max {max(ms):.1f}")


def changed(plain_rows, remembered_rows):
    """Layers whose served config the cache changed (against the selector's pick)."""
    picks = {label: served for label, _, served in plain_rows}
    return sum(1 for label, _, served in remembered_rows if picks.get(label, served) != served)


def summarize(d):
    lines, measures = [], []
    precisions = sorted({m.group(1) for f in os.listdir(d)
                         if (m := re.match(r"^plain-(\w+)-trained-", f))})
    for p in precisions:
        out16 = p != "tf32"
        for trained, run in PAIRS:
            lines.append(f"\n## {p}, trained on {trained}, run on {run} (held out)\n")
            answers = cache_answers(d, f"remember-{p}-trained-{trained}")
            if answers is None:
                lines.append("- the cache: missing")
            rows = {}
            for name, title in PASSES:
                stem = os.path.join(d, f"{name}-{p}-trained-{trained}")
                text = read(stem + ".csv") or ""
                rows[name] = layer_rows(text, answers if name == "remembered" else None, p, out16)
                line = pass_line(read(stem + ".md"), rows[name])
                lines.append(f"- {title}: {line}")
                measures.append(f"{p} trained on {trained} run on {run}, {title}: {line}")
            if rows["plain"] and rows["remembered"]:
                lines.append(f"- layers the cache serves another config than the selector's pick: "
                             f"{changed(rows['plain'], rows['remembered'])} of "
                             f"{len(rows['remembered'])}")
            for name, title in (("fill", "first calls, empty cache (candidates timed)"),
                                ("remembered", "first calls, answer in the cache")):
                log = read(os.path.join(d, f"{name}-{p}-trained-{trained}.log"))
                lines.append(f"- {title}: {first_calls(log)}")
    tests = read(os.path.join(d, "gpu-tests.log")) or ""
    passed = sum(int(n) for n in re.findall(r"\[  PASSED  \] (\d+) test", tests))
    failed = sorted(set(re.findall(r"^\[  FAILED  \] (\S+)", tests, re.M)))
    test_line = (f"GPU tests (TunedConv2dRememberCuda.*, TunedConv2dExCuda*, "
                 f"TunedGemmRememberCuda.*): {passed} passed, {len(failed)} failed"
                 f"{': ' + ', '.join(failed) if failed else ''}")
    return lines, measures, test_line


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--commit", required=True)
    parser.add_argument("--seconds", required=True)
    parser.add_argument("--command", default="bash scripts/conv_deploy/gpu_remember_conv.sh")
    args = parser.parse_args()
    lines, measures, test_line = summarize(args.dir)
    text = (read(os.path.join(args.dir, "nvidia-smi.txt")) or "").strip()
    smi = text.splitlines()
    card = smi[1].split(", ") if len(smi) > 1 else []
    # gpu_info's CSV, or nvidia-smi's own table (name, driver and memory read from it)
    table = smi_table(text)
    if len(card) >= 3 and not card[0].startswith(("+", "|")) and "NVIDIA-SMI" not in card[0]:
        device = f"{card[0]} (lent, driver {card[1]}, {card[2]})"
    elif all(table):
        device = f"{table[0]} (lent, driver {table[1]}, {table[2]})"
    else:
        device = "unknown: nvidia-smi.txt missing"
    md = ("# Tune and remember in the held-out CUDA conv2d libraries, against cuDNN at its best\n\n"
          f"{device}; deployed / cuDNN per layer (GFLOP/s ratio), all layers of the run network."
          "\n\n" + test_line + "\n" + "\n".join(lines) + "\n")
    with open(os.path.join(args.dir, "summary.md"), "w", encoding="utf-8") as f:
        f.write(md)
    files = sorted(f for f in os.listdir(args.dir) if f not in ("run.json",))
    run = {"command": f"{args.command} ({args.seconds} s)", "commit": args.commit,
           "date": datetime.date.today().isoformat(), "device": device,
           "measures": "Tune and remember in the held-out conv2d libraries (KTUNE_REMEMBER; each "
                       "pass its own process, a fresh cache filled by a first one): " +
                       "; ".join(measures) + ". " + test_line,
           "in_sample": False,
           "vendors": ["cuDNN at its best in the same precision and output type (legacy Find + "
                       "backend engines, NHWC or NCHW)"],
           "files": files}
    with open(os.path.join(args.dir, "run.json"), "w", encoding="utf-8") as f:
        json.dump(run, f, indent=1)
        f.write("\n")
    print(md)


if __name__ == "__main__":
    main()
