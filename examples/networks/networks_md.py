#!/usr/bin/python3
"""Markdown tables of a networks benchmark directory (networks.csv, networks-layers.csv,
networks-agree.csv from examples/networks/bench_cpu.sh): latency per backend with the
ktune / onednn ratio and, where the `auto` backend ran, its time over the faster single backend
and the share of its conv/fc layers (and of their time) on ktune's kernels; agreement of the
logits; the per-layer breakdown (layers summed by kind, then ktune against oneDNN per layer).

    examples/networks/networks_md.py results/<device> workloads/conv2d/conv2d-small.csv > results/<device>/networks.md
"""
import csv
import sys
from collections import defaultdict

def ms(x):
    return "" if x is None else f"{x:.1f}" if x >= 10 else f"{x:.3f}"


out = sys.argv[1]
# Conv shapes the CPU tuned conv library's selector was trained on (workload conv-small): the
# others are held out for it.
small = sys.argv[2] if len(sys.argv) > 2 else None
trained = set()
if small:
    for r in csv.DictReader(line for line in open(small) if not line.startswith("#")):
        trained.add(tuple(int(r[k]) for k in ("n", "h", "w", "c", "k", "r", "stride")))


def in_training(shape):
    """'1x224x224x3->1x224x224x64 r3s1' → whether (n, h, w, c, k, r, stride) is in conv-small."""
    if " r" not in shape:
        return ""
    dims, rs = shape.split(" r")
    src, dst = dims.split("->")
    n, h, w, c = (int(v) for v in src.split("x"))
    k = int(dst.split("x")[3])
    r, stride = (int(v) for v in rs.split("s"))
    return "yes" if (n, h, w, c, k, r, stride) in trained else "no"

rows = list(csv.DictReader(open(f"{out}/networks.csv")))
layers = list(csv.DictReader(open(f"{out}/networks-layers.csv")))
agree = list(csv.DictReader(open(f"{out}/networks-agree.csv")))
devices = sorted({r["device"] for r in rows})
order = {"ktune": 0, "onednn": 1, "onednn_winograd": 2, "auto": 3}
backends = sorted({r["backend"] for r in rows}, key=lambda b: (order.get(b, 3), b))
singles = [b for b in backends if b != "auto"]
other = [b for b in singles if b != "ktune"]

print(f"# Whole networks on {', '.join(devices)}\n")
has_auto = "auto" in backends
print("Median latency of one inference of the whole batch (ms); ktune / other = ktune's latency "
      "over the other backend's (the target is <= 1.0)"
      + ("; auto / best = the `auto` backend's latency over the faster of the single backends "
         "(<= 1.0: never slower than its best single backend)" if has_auto else "") + ".\n")
extra = [f"ktune / {b}" for b in other] + (["auto / best"] if has_auto else [])
print("| network | batch | device | " + " | ".join(backends + extra) + " |")
print("| --- | ---: | --- | " + " | ".join("---:" for _ in backends + extra) + " |")
table = {(r["network"], r["batch"], r["device"], r["backend"]): float(r["median_ms"]) for r in rows}
for net, batch, dev in sorted({(r["network"], r["batch"], r["device"]) for r in rows}, key=lambda k: (k[0], int(k[1]), k[2])):
    t = [table.get((net, batch, dev, b)) for b in backends]
    ratios = [table[(net, batch, dev, "ktune")] / table[(net, batch, dev, b)] if (net, batch, dev, b) in table and (net, batch, dev, "ktune") in table else None for b in other]
    if has_auto:
        best = [table[(net, batch, dev, b)] for b in singles if (net, batch, dev, b) in table]
        auto = table.get((net, batch, dev, "auto"))
        ratios.append(auto / min(best) if auto and best else None)
    print(f"| {net} | {batch} | {dev} | " + " | ".join(ms(x) for x in t) + " | "
          + " | ".join(f"{x:.2f}" if x else "" for x in ratios) + " |")

if has_auto:
    print("\nThe `auto` backend's conv and fc layers: how many ran on ktune's kernels (the rest on "
          "oneDNN's), and their share of its conv + fc time.\n")
    print("| network | batch | device | layers on ktune | of | time on ktune (ms) | of (ms) | share of time |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    served = defaultdict(lambda: [0, 0, 0.0, 0.0])
    for l in layers:
        if l["backend"] != "auto" or l["kind"] not in ("conv", "fc"):
            continue
        s = served[(l["network"], l["batch"], l["device"])]
        on_ktune = l.get("choice") == "ktune"
        s[0] += on_ktune
        s[1] += 1
        s[2] += float(l["median_ms"]) if on_ktune else 0.0
        s[3] += float(l["median_ms"])
    for (net, batch, dev), (k, n, k_ms, all_ms) in sorted(served.items(), key=lambda kv: (kv[0][0], int(kv[0][1]), kv[0][2])):
        print(f"| {net} | {batch} | {dev} | {k} | {n} | {ms(k_ms)} | {ms(all_ms)} | {k_ms / all_ms:.2f} |")

print("\nLogits against oneDNN's (same weights and input): max |difference| / max |logit|.\n")
print("| network | batch | backend | device | max abs diff | max abs logit | relative |")
print("| --- | ---: | --- | --- | ---: | ---: | ---: |")
for a in agree:
    print(f"| {a['network']} | {a['batch']} | {a.get('backend', 'ktune')} | {a.get('device', '')} | {a['max_abs_diff']} | {a['max_abs_logit']} | {a['relative']} |")

by_kind = defaultdict(float)
per_layer = {}
for l in layers:
    key = (l["network"], l["batch"], l["device"])
    by_kind[key + (l["kind"], l["backend"])] += float(l["median_ms"])
    per_layer[key + (l["index"], l["backend"])] = l
print("\nPer-layer medians summed by layer kind (ms; per-layer medians do not add up exactly to the "
      "median total).\n")
kinds = ["conv", "fc", "max_pool", "avg_pool", "add", "softmax"]
print("| network | batch | device | backend | " + " | ".join(kinds) + " |")
print("| --- | ---: | --- | --- | " + " | ".join("---:" for _ in kinds) + " |")
for net, batch, dev in sorted({(l["network"], l["batch"], l["device"]) for l in layers}, key=lambda k: (k[0], int(k[1]), k[2])):
    for b in backends:
        print(f"| {net} | {batch} | {dev} | {b} | " + " | ".join(ms(by_kind.get((net, batch, dev, k, b), 0.0)) for k in kinds) + " |")

if other:
    o = "onednn" if "onednn" in other else other[0]
    print(f"\nConv and fc layers, ktune against {o} (ratio = ktune / {o}; > 1: ktune slower), "
          "every layer (full data: networks-layers.csv).\n")
    print("'trained': the shape is one of the 12 conv-small layers the tuned conv library's selector "
          "was trained on; every other layer (and all of batch > 1) is held out for it.\n")
    print(f"| network | batch | device | layer | shape | trained | ktune ms | {o} ms | ratio |")
    print("| --- | ---: | --- | --- | --- | --- | ---: | ---: | ---: |")
    for (net, batch, dev, index, backend), l in sorted(per_layer.items(), key=lambda kv: (kv[0][0], int(kv[0][1]), kv[0][2], int(kv[0][3]))):
        if backend != "ktune" or l["kind"] not in ("conv", "fc"):
            continue
        m = per_layer.get((net, batch, dev, index, o))
        if not m:
            continue
        k_ms, o_ms = float(l["median_ms"]), float(m["median_ms"])
        print(f"| {net} | {batch} | {dev} | {l['layer']} | {l['shape']} | {in_training(l['shape'])} | {ms(k_ms)} | {ms(o_ms)} | {k_ms / o_ms:.2f} |")
