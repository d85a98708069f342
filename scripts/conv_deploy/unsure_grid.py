#!/usr/bin/env python3
"""The unsure rules of `ktune deploy` on the tensor-core conv selectors, a grid replayed on the
committed H200 sweeps (issue #26 "unsure -> safe"; no new timing): per precision and recipe (the
shipped tree-b K = 16 --vendors --leaf-floor 0.99 recipe plus a rule), selectors are deployed on
training rows and replayed on test rows (scripts/conv_deploy/selector_replay.py: the pick's swept
median against the sweep's cuDNN at its best, layers weighted by their count for the
time-weighted ratio). Splits, each pooled over its folds:
  resnet50->vgg16, vgg16->resnet50  trained on one network, scored on the other (held out)
  in-sample                         trained on every layer, scored on every layer
  cv5                               5 seeded folds of the layers of both networks (a layer's
                                    batch 1 and 16 rows in one fold), each scored by a selector
                                    trained on the other four
  in-sample:NET, cv5:NET            the same within one network only (the training side of
                                    each held-out direction)
Then per precision one recipe by a rule fixed before looking (choose()): among the recipes whose
in-sample geomean and time-weighted ratio stay within 0.01 of the current recipe's, the best worst
case over the held-out criteria (resnet50->vgg16, vgg16->resnet50, cv5; each criterion's score is
min(geomean, time-weighted)); ties within 0.005 go to the better mean, then to the current
recipe. The same rule per direction on that direction's training network alone (cv5:NET held
out, in-sample:NET kept) is the nested check whose held-out figure no choice has seen.
  scripts/conv_deploy/unsure_grid.py OUT_DIR [--ktune build/bin/ktune] [--precisions tf32,bf16,fp16]
Writes OUT_DIR/grid.csv (every precision, recipe and split) and OUT_DIR/grid.md. Predictions
from sweep timings, not measurements of the library."""
import argparse
import csv
import gzip
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

BASE = "--pruner tree --norm rawcutoff --k 16 --selector tree-b --vendors --leaf-floor 0.99"
RECIPES = [  # name, the rule's options (added to BASE)
    ("current", ""),
    ("mvs0.6", "--min-vote-share 0.6 --unsure-vendor"),
    ("mvs0.8", "--min-vote-share 0.8 --unsure-vendor"),
    ("mvs0.8-margin", "--min-vote-share 0.8 --unsure-leaf-margin 0.05 --unsure-vendor"),
    ("range-guard", "--range-guard --unsure-vendor"),
    ("leaf-box", "--leaf-box --unsure-vendor"),
    ("leaf-box-all", "--leaf-box --leaf-box-all --unsure-vendor"),
    # the same with the batch left out of the boxes (a leaf of batch-1 layers may serve batch 16)
    ("leaf-box-all-skip-n",
     "--range-guard --range-guard-skip n --leaf-box --leaf-box-all --unsure-vendor"),
    ("range-guard+leaf-box", "--range-guard --leaf-box --unsure-vendor"),
    ("mvs0.8-margin+range-guard",
     "--min-vote-share 0.8 --unsure-leaf-margin 0.05 --range-guard --unsure-vendor"),
    ("mvs0.8-margin+leaf-box",
     "--min-vote-share 0.8 --unsure-leaf-margin 0.05 --leaf-box --unsure-vendor"),
]
NETS = ("vgg16", "resnet50")
HELD_OUT = ("resnet50->vgg16", "vgg16->resnet50", "cv5")
SWEEP = "results/h200/conv-tc-sweep-persist/sweep-{}.csv.gz"


def layer_of(problem):
    """A layer's batch 1 and 16 rows share a fold (the problem key without n)."""
    return ";".join(kv for kv in problem.split(";") if not kv.startswith("n="))


def folds(problems, tag, nets, k, seed):
    """k seeded folds of the layers of `nets` (each network's layers dealt round-robin after a
    shuffle, so every fold holds some of each): a list of k sets of problems."""
    out = [set() for _ in range(k)]
    for net in nets:
        layers = sorted({layer_of(p) for p in problems if tag[p] == net})
        random.Random(f"{seed}:{net}").shuffle(layers)
        where = {layer: i % k for i, layer in enumerate(layers)}
        for p in problems:
            if tag[p] == net:
                out[where[layer_of(p)]].add(p)
    return [f for f in out if f]


def splits(problems, tag, k=5, seed=0):
    """split name -> [(training problems, test problems)]."""
    every = set(problems)
    on = {net: {p for p in problems if tag[p] == net} for net in NETS}
    out = {"resnet50->vgg16": [(on["resnet50"], on["vgg16"])],
           "vgg16->resnet50": [(on["vgg16"], on["resnet50"])],
           "in-sample": [(every, every)],
           f"cv{k}": [(every - f, f) for f in folds(problems, tag, NETS, k, seed)]}
    for net in NETS:
        out[f"in-sample:{net}"] = [(on[net], on[net])]
        out[f"cv{k}:{net}"] = [(on[net] - f, f) for f in folds(problems, tag, (net,), k, seed)]
    return out


def figures(layers):
    """Pooled figures of replayed layers (dicts with count, cudnn_ms, pick_ms, oracle_ms, pick);
    a layer no shipped config runs (pick "none") is counted, not scored."""
    unservable = sum(r["pick"] == "none" for r in layers)
    layers = [r for r in layers if r["pick"] != "none"]
    ratios = [float(r["cudnn_ms"]) / float(r["pick_ms"]) for r in layers]
    weighted = (sum(int(r["count"]) * float(r["cudnn_ms"]) for r in layers)
                / sum(int(r["count"]) * float(r["pick_ms"]) for r in layers))
    oracle = math.exp(sum(math.log(float(r["oracle_ms"]) / float(r["pick_ms"])) for r in layers)
                      / len(layers))
    return {"layers": len(layers), "geomean": math.exp(sum(map(math.log, ratios)) / len(ratios)),
            "time_weighted": weighted, "below_0.8": sum(x < 0.8 for x in ratios),
            "below_0.9": sum(x < 0.9 for x in ratios), "pct_oracle": 100 * oracle,
            "own": sum(not r["pick"].startswith("vendor=") for r in layers),
            "unservable": unservable}


def criterion(f):
    return min(f["geomean"], f["time_weighted"])


def choose(grid, held_out, kept, tolerance=0.01, tie=0.005):
    """The recipe of one precision: grid maps (recipe, split) -> figures ("current": the shipped
    recipe). Admissible: the `kept` split's geomean and time-weighted ratio within
    `tolerance` of the current recipe's. Best: the largest worst criterion over `held_out`, ties
    within `tie` to the larger mean, then to the current recipe, then to the earlier one."""
    recipes = list(dict.fromkeys(["current"] + [r for r, _ in grid]))
    now = grid[("current", kept)]
    best, best_key = None, None
    for r in recipes:
        f = grid[(r, kept)]
        if (f["geomean"] < now["geomean"] - tolerance
                or f["time_weighted"] < now["time_weighted"] - tolerance):
            continue
        scores = [criterion(grid[(r, s)]) for s in held_out]
        key = (min(scores), sum(scores) / len(scores))
        if best is None or key[0] > best_key[0] + tie or (
                abs(key[0] - best_key[0]) <= tie and key[1] > best_key[1] + 1e-12):
            best, best_key = r, key
    return best


def load(sweep):
    """The sweep's columns, its rows by problem, each problem's network, and the problems with an
    ok cuDNN row (the ones scored)."""
    with gzip.open(sweep, "rt", newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    by_problem = {}
    for row in rows:
        by_problem.setdefault(row["problem"], []).append(row)
    tag = {r["problem"]: r["tags"] for r in rows}
    vendor = {r["problem"] for r in rows if r["config"] == "cudnn" and r["status"] == "ok"}
    return reader.fieldnames, by_problem, tag, sorted(vendor)


def write_rows(path, header, by_problem, problems):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        w.writeheader()
        for p in sorted(problems):
            w.writerows(by_problem[p])


def run_fold(ktune, rule, header, by_problem, train, test, work, root):
    write_rows(f"{work}/train.csv", header, by_problem, train)
    write_rows(f"{work}/test.csv", header, by_problem, test)
    shutil.rmtree(f"{work}/pkg", ignore_errors=True)
    done = subprocess.run([ktune, "deploy", "--data", f"{work}/train.csv", *BASE.split(),
                           *rule.split(), "--name", "selector", "-o", f"{work}/pkg"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"unsure_grid: ktune deploy failed ({rule}): {done.stderr.strip()[-300:]}")
    hpp = f"{work}/pkg/selectors/h200/conv2d.hpp"
    done = subprocess.run([sys.executable, f"{root}/scripts/conv_deploy/selector_replay.py",
                           "--sweep", f"{work}/test.csv", "--csv", f"{work}/picks.csv", hpp],
                          cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"unsure_grid: the replay failed ({rule}): {done.stderr.strip()[-600:]}")
    with open(f"{work}/picks.csv") as f:
        return list(csv.DictReader(f))


def table(grid, precision, recipes, names):
    lines = [f"### {precision}: geomean / time-weighted (cuDNN ms / pick ms), layers below "
             "0.9x / 0.8x, % of oracle, own-kernel layers", "",
             "| recipe | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for r in recipes:
        cells = []
        for s in names:
            f = grid[(r, s)]
            cells.append(f"{f['geomean']:.3f} / {f['time_weighted']:.3f}, {f['below_0.9']} / "
                         f"{f['below_0.8']}, {f['pct_oracle']:.1f} %, {f['own']}/{f['layers']}"
                         + (f", {f['unservable']} unservable" if f["unservable"] else ""))
        lines.append(f"| {r} | " + " | ".join(cells) + " |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--ktune", default="build/bin/ktune")
    ap.add_argument("--precisions", default="tf32,bf16,fp16")
    a = ap.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    ktune = os.path.abspath(a.ktune)
    if not os.access(ktune, os.X_OK):
        sys.exit(f"unsure_grid: no ktune binary at {ktune}")
    os.makedirs(a.out, exist_ok=True)
    out_rows, md = [], ["# Unsure rules on the H200 tensor-core conv selectors (replay)", "",
                        f"Every recipe is `{BASE}` plus the rule's options. A prediction from "
                        "the sweeps' medians (ktune's rows FP32 output, cuDNN's in the "
                        "precision; a vendor=cudnn pick scored at the sweep's cuDNN-at-best "
                        "time), not a measurement of the library.", ""]
    picked = []
    for precision in a.precisions.split(","):
        sweep = os.path.join(root, SWEEP.format(precision))
        header, by_problem, tag, problems = load(sweep)
        plan = splits(problems, tag)
        grid = {}
        with tempfile.TemporaryDirectory() as work:
            for name, rule in RECIPES:
                for split, parts in plan.items():
                    layers = []
                    for train, test in parts:
                        layers += run_fold(ktune, rule, header, by_problem, train, test, work, root)
                    grid[(name, split)] = figures(layers)
                    out_rows.append({"precision": precision, "recipe": name, "options": rule,
                                     "split": split, **grid[(name, split)]})
                print(f"unsure_grid: {precision} {name} done", file=sys.stderr)
        chosen = choose(grid, HELD_OUT, "in-sample")
        nested = {d: choose(grid, [f"cv5:{d.split('->')[0]}"], f"in-sample:{d.split('->')[0]}")
                  for d in HELD_OUT[:2]}
        picked.append((precision, chosen, nested, grid))
        md += table(grid, precision, [r for r, _ in RECIPES],
                    ["in-sample", "cv5", "resnet50->vgg16", "vgg16->resnet50"]) + [""]
        md += table(grid, precision + " (training side of each direction)",
                    [r for r, _ in RECIPES],
                    ["in-sample:resnet50", "cv5:resnet50", "in-sample:vgg16", "cv5:vgg16"]) + [""]
    md += ["## Chosen recipes", "",
           "Rule: in-sample geomean and time-weighted within 0.01 of the current recipe's; then "
           "the best worst case of min(geomean, time-weighted) over resnet50->vgg16, "
           "vgg16->resnet50 and cv5 (ties within 0.005: the better mean, then the current "
           "recipe). Nested: the same rule per direction on its training network alone (cv5:NET, "
           "in-sample:NET), its held-out figure unseen by the choice.", "",
           "| precision | chosen | options | in-sample | cv5 | resnet50->vgg16 | vgg16->resnet50 "
           "| nested: resnet50->vgg16 | nested: vgg16->resnet50 |",
           "|---|---|---|---:|---:|---:|---:|---|---|"]
    options = dict(RECIPES)
    for precision, chosen, nested, grid in picked:
        cell = lambda r, s: f"{grid[(r, s)]['geomean']:.3f} / {grid[(r, s)]['time_weighted']:.3f}"
        nest = [f"{nested[d]}: {cell(nested[d], d)}" for d in HELD_OUT[:2]]
        md.append(f"| {precision} | {chosen} | `{options[chosen]}` | {cell(chosen, 'in-sample')} "
                  f"| {cell(chosen, 'cv5')} | {cell(chosen, HELD_OUT[0])} | "
                  f"{cell(chosen, HELD_OUT[1])} | {nest[0]} | {nest[1]} |")
    with open(os.path.join(a.out, "grid.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out_rows[0]), lineterminator="\n")
        w.writeheader()
        for r in out_rows:
            w.writerow({k: f"{v:.4f}" if isinstance(v, float) else v for k, v in r.items()})
    with open(os.path.join(a.out, "grid.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md[-len(picked) - 2:]))


if __name__ == "__main__":
    main()
