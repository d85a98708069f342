#!/usr/bin/python3
"""The separate-process mode of examples/networks/bench_cpu.sh (ROUNDS=N): one backend per
process, the processes alternating in rounds.

    networks_processes.py row STDOUT ONE_CSV ROUND REPS WARMUP LOAD1
        one row of networks-processes.csv from a ktune_infer process (its stdout and --csv row)
    networks_processes.py aggregate OUT_DIR
        networks.csv (per backend the median over its processes of their medians),
        networks-layers.csv (per layer the median over the processes of its medians) and
        networks-processes.md (the spread over the processes and the target ratios)

A ratio "A / B at its best" divides A's figure by the smallest of the B backends' figures (oneDNN
at its best: the faster of onednn and onednn_winograd per network and batch).
"""
import csv
import re
import statistics
import sys
from collections import Counter, defaultdict

# (backend, the backends it is compared with: the smallest of their figures)
TARGETS = [("ktune", ("onednn", "onednn_winograd")), ("ktune_bf16", ("onednn_bf16",)),
           ("auto", ("ktune", "onednn", "onednn_winograd")), ("auto_bf16", ("ktune_bf16", "onednn_bf16"))]
KEY = ("network", "batch", "backend", "device")


def row(stdout, one_csv, rnd, reps, warmup, load):
    text = open(stdout).read()
    (r,) = list(csv.DictReader(open(one_csv)))
    name = re.escape(r["backend"])
    m = re.search(rf"^{name}: median ([0-9.]+) ms .*\(min ([0-9.]+), max ([0-9.]+);", text, re.M)
    c = re.search(rf"^{name}: process CPU time median ([0-9.]+) ms per inference, ([0-9.]+)x", text, re.M)
    if not m or not c:
        sys.exit(f"networks_processes.py: {stdout}: no median / CPU time line for {r['backend']}")
    print(",".join([rnd, r["network"], r["batch"], r["backend"], r["device"], r["median_ms"],
                    m.group(2), m.group(3), c.group(1), c.group(2), reps, warmup, load]))


def ms(x):
    return f"{x:.1f}" if x >= 10 else f"{x:.3f}"


def aggregate(out):
    procs = list(csv.DictReader(open(f"{out}/networks-processes.csv")))
    by = defaultdict(list)
    for p in procs:
        by[tuple(p[k] for k in KEY)].append(p)
    order = lambda k: (k[0] != "resnet50", int(k[1]), k[3], k[2])
    with open(f"{out}/networks.csv", "w") as f:
        f.write("network,batch,backend,device,median_ms\n")
        for k in sorted(by, key=order):
            f.write(",".join(k) + f",{statistics.median(float(p['median_ms']) for p in by[k]):.4f}\n")
    layers = defaultdict(list)
    fields = None
    for l in csv.DictReader(open(f"{out}/networks-layers-processes.csv")):
        fields = fields or [f for f in l if f not in ("round", "median_ms", "choice")]
        layers[tuple(l[f] for f in fields)].append(l)
    with open(f"{out}/networks-layers.csv", "w") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(fields + ["median_ms", "choice"])
        for k, ls in layers.items():
            choice = Counter(l["choice"] for l in ls).most_common(1)[0][0]
            w.writerow(list(k) + [f"{statistics.median(float(l['median_ms']) for l in ls):.4f}", choice])

    print_md(by, order)


def print_md(by, order):
    md = ["# Whole networks, each backend in its own process\n",
          "Per backend: its processes (alternating in rounds, the backends' order rotated every "
          "round), each process's median over its timed inferences; the median, smallest and "
          "largest of those medians, the smallest single inference, and the process CPU time per "
          "inference (median over the processes) with its ratio to the wall time (near 2 on two "
          "threads when both cores worked).\n",
          "| network | batch | backend | processes | median of medians (ms) | min of medians | "
          "max of medians | min of all | CPU ms / inference | CPU / wall |",
          "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for k in sorted(by, key=order):
        v = [float(p["median_ms"]) for p in by[k]]
        md.append(f"| {k[0]} | {k[1]} | {k[2]} | {len(v)} | {ms(statistics.median(v))} | "
                  f"{ms(min(v))} | {ms(max(v))} | {ms(min(float(p['min_ms']) for p in by[k]))} | "
                  f"{ms(statistics.median(float(p['cpu_ms']) for p in by[k]))} | "
                  f"{statistics.median(float(p['cpu_over_wall']) for p in by[k]):.2f} |")
    md += ["", "Targets (issue 30: <= 1.0): A over B at its best (the smallest figure among the B "
           "backends), from the medians of medians; from the smallest process medians; and per "
           "round (A's process over the best B process of the same round), the median and range "
           "of those.\n",
           "| network | batch | A | B | A (ms) | B at its best (ms) | which | A / B | min / min | "
           "per round: median | per round: range |",
           "| --- | ---: | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- |"]
    cells = sorted({k[:2] + k[3:] for k in by}, key=lambda k: (k[0] != "resnet50", int(k[1])))
    for net, batch, dev in cells:
        for a, bs in TARGETS:
            if (net, batch, a, dev) not in by or not any((net, batch, b, dev) in by for b in bs):
                continue
            med = lambda b: statistics.median(float(p["median_ms"]) for p in by[(net, batch, b, dev)])
            low = lambda b: min(float(p["median_ms"]) for p in by[(net, batch, b, dev)])
            present = [b for b in bs if (net, batch, b, dev) in by]
            best = min(present, key=med)
            rounds = defaultdict(dict)
            for b in [a] + present:
                for p in by[(net, batch, b, dev)]:
                    rounds[p["round"]][b] = float(p["median_ms"])
            per = sorted(r[a] / min(r[b] for b in present if b in r)
                         for r in rounds.values() if a in r and any(b in r for b in present))
            md.append(f"| {net} | {batch} | {a} | {' / '.join(present)} | {ms(med(a))} | "
                      f"{ms(med(best))} | {best} | **{med(a) / med(best):.3f}** | "
                      f"{low(a) / min(low(b) for b in present):.3f} | "
                      f"{statistics.median(per):.3f} | {per[0]:.3f}-{per[-1]:.3f} |")
    print("\n".join(md))


if __name__ == "__main__":
    if len(sys.argv) == 8 and sys.argv[1] == "row":
        row(*sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "aggregate":
        sys.stdout = open(f"{sys.argv[2]}/networks-processes.md", "w")
        aggregate(sys.argv[2])
    else:
        sys.exit(__doc__)
