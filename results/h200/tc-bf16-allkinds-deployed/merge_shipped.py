#!/usr/bin/env python3
"""Writes shipped-W.csv, the shipped bf16 header's deployed rows over all of workload W: its own
bench rows where its pick differs from the all-kinds header's (shipped-differing-W.csv, the
differing-W.csv workload), and the all-kinds build's rows where both headers pick the same
config (the same kernel or vendor call, timed in the same run). Checks every bench row's
config against the picks both headers make (picks.csv, from picks.cpp).
  results/h200/tc-bf16-allkinds-deployed/merge_shipped.py   (from that folder)"""
import csv

picks = {}
with open("picks.csv", newline="") as f:
    for r in csv.DictReader(f):
        key = "transa={transa};transb={transb};m={m};n={n};k={k};batch={batch};precision=2".format(**r)
        picks[key] = (r["allkinds_pick"], r["shipped_pick"])
for w in ("vit", "llm", "large", "dnn"):
    with open(f"allkinds-{w}.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    with open(f"shipped-differing-{w}.csv", newline="") as f:
        own = {r["problem"]: r for r in csv.DictReader(f)}
    out, same = [], 0
    for r in rows:
        new, old = picks[r["problem"]]
        assert r["config"] == new, (w, r["problem"], r["config"], new)
        if new == old:
            out.append(r)
            same += 1
            continue
        o = dict(own.pop(r["problem"]))
        assert o["config"] == old, (w, r["problem"], o["config"], old)
        o["networks"] = r["networks"]  # the builtin dnn workload names them; the file does not
        out.append(o)
    assert not own, f"{w}: rows of shapes whose picks agree: {sorted(own)}"
    with open(f"shipped-{w}.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0].keys()), lineterminator="\n")
        writer.writeheader()
        writer.writerows(out)
    print(f"{w}: {len(out)} shapes, {same} with the same pick, {len(out) - same} differing")
