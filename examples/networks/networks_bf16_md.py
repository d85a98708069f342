#!/usr/bin/python3
"""The bf16 tables of a networks benchmark directory (scripts/cpu_bf16_bench.sh): whole-network
medians of ktune_bf16 against onednn_bf16 (the target is <= 1.0) beside the FP32 backends of the
same run, the geomean and time-weighted ratios, the conv/fc layers where ktune_bf16 loses the
most time, and the logits against FP32 onednn. Prints markdown; the last line is the one-line
summary run.json's `measures` quotes.

    examples/networks/networks_bf16_md.py OUT_DIR > OUT_DIR/networks-bf16.md
"""
import csv
import math
import os
import sys
from collections import defaultdict

out = sys.argv[1]
ms = {(r["network"], int(r["batch"]), r["backend"]): float(r["median_ms"])
      for r in csv.DictReader(open(f"{out}/networks.csv"))}
runs = sorted({(n, b) for n, b, _ in ms})
print("# bf16 networks\n")
separate = os.path.exists(f"{out}/networks-processes.csv")  # bench_cpu.sh's ROUNDS mode
print("Median ms of one inference of the whole batch, "
      + ("each backend in its own process, the processes alternating in rounds (the median over "
         "the processes of their medians: networks-processes.md)" if separate else
         "the backends taking turns in one process")
      + "; ktune_bf16 / onednn_bf16 is the target (<= 1.0); bf16 / FP32 compares each "
      "engine with itself.\n")
print("| network | batch | ktune_bf16 | onednn_bf16 | ktune_bf16 / onednn_bf16 | ktune (FP32) | "
      "onednn (FP32) | ktune_bf16 / ktune | onednn_bf16 / onednn |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
ratios, kt, ot = [], 0.0, 0.0
for n, b in runs:
    g = lambda backend: ms.get((n, b, backend))
    k, o, kf, of = g("ktune_bf16"), g("onednn_bf16"), g("ktune"), g("onednn")
    if k is None or o is None:
        continue
    ratios.append(k / o)
    kt += k
    ot += o
    f = lambda x: "" if x is None else f"{x:.2f}"
    print(f"| {n} | {b} | {k:.2f} | {o:.2f} | **{k / o:.3f}** | {f(kf)} | {f(of)} | "
          f"{f(k / kf if kf else None)} | {f(o / of if of else None)} |")
geo = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")
print(f"\nktune_bf16 / onednn_bf16 over the {len(ratios)} runs: geomean {geo:.3f}, "
      f"time-weighted (sum of medians) {kt / ot if ot else float('nan'):.3f}.\n")

# auto_bf16 (per layer and per inference the faster of the two bf16 backends) against the faster
# of them alone, where the run had it.
auto_rows = [(n, b, ms[(n, b, "auto_bf16")],
              min(ms[(n, b, "ktune_bf16")], ms[(n, b, "onednn_bf16")]))
             for n, b in runs
             if all((n, b, x) in ms for x in ("auto_bf16", "ktune_bf16", "onednn_bf16"))]
if auto_rows:
    print("`auto_bf16` against the faster of `ktune_bf16` and `onednn_bf16` alone (<= 1.0: never "
          "slower than its best single backend) and against `onednn_bf16`.\n")
    print("| network | batch | auto_bf16 | best single | auto_bf16 / best single | "
          "auto_bf16 / onednn_bf16 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for n, b, a, best in auto_rows:
        print(f"| {n} | {b} | {a:.2f} | {best:.2f} | **{a / best:.3f}** | "
              f"{a / ms[(n, b, 'onednn_bf16')]:.3f} |")
    print()

# Per layer: the conv / fc layers where ktune_bf16 spends the most time beyond onednn_bf16.
layers = defaultdict(dict)
for r in csv.DictReader(open(f"{out}/networks-layers.csv")):
    if r["kind"] in ("conv", "fc"):
        layers[(r["network"], int(r["batch"]), int(r["index"]), r["layer"], r["shape"])][
            r["backend"]] = (float(r["median_ms"]), r.get("choice", ""))
sums = defaultdict(lambda: [0.0, 0.0])
rows = []
for key, v in layers.items():
    if "ktune_bf16" in v and "onednn_bf16" in v:
        k, o = v["ktune_bf16"][0], v["onednn_bf16"][0]
        sums[key[:2]][0] += k
        sums[key[:2]][1] += o
        rows.append((k - o, key, k, o, v["onednn_bf16"][1], v["ktune_bf16"][1]))
print("Conv + fc layer medians summed (per-layer marks; the whole-network medians above include "
      "pooling, adds and the gaps between layers):\n")
print("| network | batch | ktune_bf16 (ms) | onednn_bf16 (ms) | ratio |")
print("| --- | ---: | ---: | ---: | ---: |")
for (n, b), (k, o) in sorted(sums.items()):
    print(f"| {n} | {b} | {k:.2f} | {o:.2f} | {k / o:.3f} |")
print("\nThe 12 layers where ktune_bf16 loses the most time to onednn_bf16:\n")
print("| network | batch | layer | shape | ktune_bf16 (ms) | onednn_bf16 (ms) | ratio | ktune_bf16's path | oneDNN's implementation |")
print("| --- | ---: | --- | --- | ---: | ---: | ---: | --- | --- |")
for _, (n, b, _i, name, shape), k, o, impl, path in sorted(rows, reverse=True)[:12]:
    print(f"| {n} | {b} | {name} | {shape} | {k:.3f} | {o:.3f} | {k / o:.2f} | {path} | {impl} |")

# The layers ktune_bf16 runs through FP32 Winograd on bf16 operands (its layer_choice), summed.
wino = defaultdict(lambda: [0, 0.0, 0.0])
for _, (n, b, *_rest), k, o, _impl, path in rows:
    if path.startswith("winograd"):
        w = wino[(n, b)]
        w[0] += 1
        w[1] += k
        w[2] += o
if wino:
    print("\nThe layers ktune_bf16 runs as Winograd in FP32 on bf16 operands (`choice` "
          "winograd_* in networks-layers.csv), their medians summed:\n")
    print("| network | batch | layers | ktune_bf16 (ms) | onednn_bf16 (ms) | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for (n, b), (c, k, o) in sorted(wino.items()):
        print(f"| {n} | {b} | {c} | {k:.2f} | {o:.2f} | {k / o:.3f} |")

print("\nLogits against FP32 onednn (same weights and input): max |difference| / max |logit|.\n")
print("| network | batch | backend | relative |")
print("| --- | ---: | --- | ---: |")
for r in csv.DictReader(open(f"{out}/networks-agree.csv")):
    print(f"| {r['network']} | {r['batch']} | {r['backend']} | {r['relative']} |")
worst = max(rows)[1] if rows else None
print("\nsummary: ktune_bf16 / onednn_bf16 whole-network medians "
      + ", ".join(f"{n} b{b} {ms[(n, b, 'ktune_bf16')] / ms[(n, b, 'onednn_bf16')]:.3f}"
                  for n, b in runs if (n, b, "onednn_bf16") in ms and (n, b, "ktune_bf16") in ms)
      + f"; geomean {geo:.3f}, time-weighted {kt / ot if ot else float('nan'):.3f}"
      + (f"; most time lost on {worst[0]} b{worst[1]} {worst[3]} ({worst[4]})" if worst else "")
      + ("; ktune_bf16 Winograd layers " + ", ".join(
          f"{n} b{b} {c}" for (n, b), (c, _k, _o) in sorted(wino.items())) if wino else "")
      + ("; auto_bf16 / its best single backend " + ", ".join(
          f"{n} b{b} {a / best:.3f}" for n, b, a, best in auto_rows) if auto_rows else ""))
