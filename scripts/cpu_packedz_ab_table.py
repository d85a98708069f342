#!/usr/bin/env python3
"""The table of a before/after packedz sweep (scripts/cpu_packedz_ab.sh): per shape, each side's
packedz oracle (best config of the sweep) against oneDNN and against the faster of OpenBLAS and
oneDNN, each ratio against the vendor rows of that side's own run; then per workload the
geometric mean, the time-weighted ratio (sum of vendor times / sum of oracle times) and the
shapes below 0.8x and 0.9x. Markdown on stdout; --csv writes one row per shape.
  scripts/cpu_packedz_ab_table.py DIR WORKLOAD... [--csv OUT]
DIR holds <workload>-before.csv.gz and <workload>-after.csv.gz (ktune export --format csv).
--scaling ONE TWO: instead, per shape the after side's packedz oracle and oneDNN at one thread
(workload ONE) and two (TWO), and each one's two-thread speedup."""
import argparse
import csv
import gzip
import math
import os

parser = argparse.ArgumentParser()
parser.add_argument("dir")
parser.add_argument("workloads", nargs="+")
parser.add_argument("--csv")
parser.add_argument("--scaling", nargs=2, metavar=("ONE", "TWO"))
args = parser.parse_args()


def read(path):
    """problem -> {'packedz': (ms, config), 'onednn': ms, 'openblas': ms}"""
    out = {}
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(f):
            if r["status"] != "ok":
                continue
            ms = float(r["median_ms"])
            row = out.setdefault(r["problem"], {})
            if r["config_id"] == "-1":
                row[r["config"]] = ms
            elif "packedz" not in row or ms < row["packedz"][0]:
                row["packedz"] = (ms, r["config"])
    return out


def shape(problem):
    d = dict(kv.split("=") for kv in problem.split(";"))
    tr = ("T" if d["transa"] == "1" else "N") + ("T" if d["transb"] == "1" else "N")
    return f"{d['m']}×{d['n']}×{d['k']}" + (f" ×{d['batch']}" if d["batch"] != "1" else "") + f" {tr}"


def short(config):
    keep = ("mr", "nr", "kc", "mc", "pa", "pb")
    items = dict(kv.split("=") for kv in config.split(";"))
    return f"{items['mr']}x{items['nr']} " + " ".join(f"{k}={items[k]}" for k in keep[2:])


def summary(ratios, vendor_ms, own_ms):
    gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    tw = sum(vendor_ms) / sum(own_ms)
    return gm, tw, sum(r < 0.8 for r in ratios), sum(r < 0.9 for r in ratios), min(ratios)


if args.scaling:
    one, two = (read(os.path.join(args.dir, f"{w}-after.csv.gz")) for w in args.scaling)
    print("| shape | packedz 1 thread ms | 2 threads ms | speedup | oneDNN 1 thread ms | 2 threads ms | speedup |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for p in sorted(two, key=lambda p: one[p]["packedz"][0]):
        a, b = one[p]["packedz"][0], two[p]["packedz"][0]
        c, d = one[p]["onednn"], two[p]["onednn"]
        print(f"| {shape(p)} | {a:.3f} | {b:.3f} | {a / b:.2f} | {c:.3f} | {d:.3f} | {c / d:.2f} |")
    raise SystemExit(0)

rows = []
print("| workload | shape | before: packedz / oneDNN | / faster vendor | after: packedz / oneDNN | / faster vendor | after / before (own time) | after's best config |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
totals = {}
for w in args.workloads:
    sides = {s: read(os.path.join(args.dir, f"{w}-{s}.csv.gz")) for s in ("before", "after")}
    for p in sides["before"]:
        if p not in sides["after"]:
            continue
        row = {"workload": w, "problem": p}
        cells = []
        for s in ("before", "after"):
            d = sides[s][p]
            own = d["packedz"][0]
            fast = min(d["onednn"], d["openblas"])
            row.update({f"{s}_packedz_ms": own, f"{s}_config": d["packedz"][1],
                        f"{s}_onednn_ms": d["onednn"], f"{s}_openblas_ms": d["openblas"],
                        f"{s}_vs_onednn": d["onednn"] / own, f"{s}_vs_faster": fast / own})
            cells += [f"{d['onednn'] / own:.2f}", f"{fast / own:.2f}"]
            t = totals.setdefault((w, s), {"onednn": [], "faster": [], "on_ms": [], "fa_ms": [], "own": []})
            t["onednn"].append(d["onednn"] / own)
            t["faster"].append(fast / own)
            t["on_ms"].append(d["onednn"])
            t["fa_ms"].append(fast)
            t["own"].append(own)
        row["after_over_before"] = row["before_packedz_ms"] / row["after_packedz_ms"]
        rows.append(row)
        print(f"| {w} | {shape(p)} | {' | '.join(cells)} | {row['after_over_before']:.2f} | {short(row['after_config'])} |")
print()
print("| workload | side | shapes | vs oneDNN: geomean / time-weighted / < 0.8× / < 0.9× / worst | vs faster vendor: geomean / time-weighted / < 0.8× / < 0.9× / worst |")
print("| --- | --- | ---: | --- | --- |")
for (w, s), t in totals.items():
    a = summary(t["onednn"], t["on_ms"], t["own"])
    b = summary(t["faster"], t["fa_ms"], t["own"])
    fmt = lambda x: f"{x[0]:.3f} / {x[1]:.3f} / {x[2]} / {x[3]} / {x[4]:.2f}"  # noqa: E731
    print(f"| {w} | {s} | {len(t['own'])} | {fmt(a)} | {fmt(b)} |")
if args.csv:
    with open(args.csv, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)
