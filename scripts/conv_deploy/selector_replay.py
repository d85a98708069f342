#!/usr/bin/env python3
"""Replays 16-bit conv2d selector headers on the committed sweeps (no new timing): each
header's pick per layer (compiled with g++ against kernels/conv2d/conv2d_features.hpp, the
features ktune::conv2d_ex computes), its fallback order where the sweep refused the pick, and the
pick's swept median against the sweep's cuDNN-at-best row (a `vendor=cudnn` pick counts as that
row: what the selector assumed, not what the deployed cuDNN call costs). Prints per header and
layer set: layers, geomean and time-weighted cuDNN ms / pick ms (layers times their counts), the
worst layer, how many layers fall below 0.8x and 0.9x, the picks' % of the oracle (geomean of the
best swept row's ms / pick ms, cuDNN's row included) and how many picks are ktune's own kernels;
a layer no shipped config runs (the library would throw) is listed with pick "none" and counted
as unservable, not scored. The precision feature the harness passes is each problem's own
(precision= of its key: 2 bf16, 3 fp16).
  scripts/conv_deploy/selector_replay.py HEADER[:vgg16|resnet50] ...   (from the repository root)
HEADER:net replays on that network's layers only (a held-out header on the other network).
--sweep PATH (CSV[.gz], first) replays on that sweep instead of the H100 bf16 rows (e.g.
results/h200/conv-tc-sweep-persist/sweep-bf16.csv.gz, sweep-fp16.csv.gz or sweep-tf32.csv.gz).
--csv PATH writes every replayed layer (header, layer set, problem, pick, ratio), --md PATH the
summary lines as a Markdown table (ktune's kernels: layers, and their share of the picks' time,
each layer times its count)."""
import csv
import gzip
import io
import math
import os
import subprocess
import sys
import tempfile

HARNESS = r'''
#include <cstdio>
#include "kernels/conv2d/conv2d_features.hpp"
namespace S {
#include HEADER
}
int main() {
  long long v[10];
  while (std::scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", v, v + 1, v + 2, v + 3,
                    v + 4, v + 5, v + 6, v + 7, v + 8, v + 9) == 10) {
    const auto f = ktune::kernels::conv2d::feature_values(v[0], v[1], v[2], v[3], v[4], v[5], v[6],
                                                          v[7], v[8]);
    S::ktune_selector::Features x{};
    double* slot = reinterpret_cast<double*>(&x);
    for (int i = 0; i < 9; ++i) slot[i] = f[i];
    slot[9] = double(v[9]);  // precision, after the problem's nine (as ktune::conv2d_ex fills it)
    for (int i = 9; i < 23; ++i) slot[i + 1] = f[i];
    std::printf("%s", S::ktune_selector::kConfigs[S::ktune_selector::select(x)]);
    for (int i = 0; i < S::ktune_selector::kNumConfigs; ++i)
      std::printf("|%s", S::ktune_selector::kConfigs[S::ktune_selector::kSafeOrder[i]]);
    std::printf("\n");
  }
}
'''
KEYS = ["n", "h", "w", "c", "k", "r", "s", "stride", "pad"]
SHAPE = ["h", "w", "c", "k", "r", "s", "stride", "pad"]


def score(header, only, problems, fields, picks, times, vendor, tag, count, table, best):
    """One header's picks on one layer set (only: a network, or "" for all): its summary line's
    figures, and one row per layer appended to table."""
    ratios, deployed_ms, vendor_ms, own, own_ms, worst, below = [], 0.0, 0.0, 0, 0.0, None, 0
    below9, oracle_logs, unservable = 0, 0.0, 0
    for p, d, line in zip(problems, fields, picks):
        if only and tag[p] != only:
            continue
        pick, *order = line.split("|")
        time_of = lambda c: vendor[p] if c == "vendor=cudnn" else times.get((p, c))
        if time_of(pick) is None:  # refused in the sweep: the fallback order's first
            pick = next((c for c in order if time_of(c) is not None), None)
        n = count[(tag[p], tuple(d[k] for k in SHAPE))]
        if pick is None:  # no shipped config runs it (the library throws): listed, not scored
            unservable += 1
            table.append((os.path.basename(header), only or "all", p, n, "none",
                          f"{vendor[p]:.6g}", "", "", f"{best[p]:.6g}"))
            continue
        ratio = vendor[p] / time_of(pick)
        ratios.append(ratio)
        deployed_ms += n * time_of(pick)
        vendor_ms += n * vendor[p]
        if pick != "vendor=cudnn":
            own += 1
            own_ms += n * time_of(pick)
        below += ratio < 0.8
        below9 += ratio < 0.9
        oracle_logs += math.log(best[p] / time_of(pick))
        table.append((os.path.basename(header), only or "all", p, n, pick, f"{vendor[p]:.6g}",
                      f"{time_of(pick):.6g}", f"{ratio:.4f}", f"{best[p]:.6g}"))
        if worst is None or ratio < worst[0]:
            worst = (ratio, f"{tag[p]} n={d['n']} {d['h']}x{d['w']} c={d['c']} k={d['k']} "
                            f"{d['r']}x{d['s']}/{d['stride']}")
    if not ratios:
        sys.exit(f"selector_replay: {os.path.basename(header)} serves none of the layers "
                 f"{only or 'all'} (no shipped config runs them)")
    return {"header": os.path.basename(header), "layers": only or "all", "count": len(ratios),
            "geomean": math.exp(sum(map(math.log, ratios)) / len(ratios)),
            "time_weighted": vendor_ms / deployed_ms, "worst": worst[0], "worst_layer": worst[1],
            "below": below, "below9": below9, "own": own, "own_time": own_ms / deployed_ms,
            "pct_oracle": 100 * math.exp(oracle_logs / len(ratios)), "unservable": unservable}


def main():
    args = sys.argv[1:]
    options = {"--sweep": None, "--csv": None, "--md": None}
    while len(args) >= 2 and args[0] in options:
        options[args[0]] = args[1]
        args = args[2:]
    sweep, out_csv, out_md = options["--sweep"], options["--csv"], options["--md"]
    if not args:
        sys.exit(__doc__)
    if sweep:
        with (gzip.open(sweep, "rt") if sweep.endswith(".gz") else open(sweep)) as f:
            text = f.read()
    else:
        text = subprocess.run([sys.executable, "scripts/conv_deploy/bf16_rows.py"], check=True,
                              capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    times, vendor, tag, best = {}, {}, {}, {}
    for r in rows:
        tag[r["problem"]] = r["tags"]
        if r["status"] != "ok":
            continue
        ms = float(r["median_ms"])  # the oracle: the fastest ok row, cuDNN's included
        best[r["problem"]] = min(ms, best.get(r["problem"], ms))
        if r["config"] == "cudnn":
            vendor[r["problem"]] = float(r["median_ms"])
        else:
            times[(r["problem"], r["config"])] = float(r["median_ms"])
    count = {}
    for net in ("vgg16", "resnet50"):
        with open(f"workloads/conv2d/conv2d-{net}.csv") as f:
            for r in csv.DictReader(f):
                count[(net, tuple(r[k] for k in SHAPE))] = int(r.get("count") or 1)
    problems = sorted(vendor)
    fields = [dict(kv.split("=") for kv in p.split(";")) for p in problems]
    stdin = "".join(" ".join(d[k] for k in KEYS) + " " + d.get("precision", "0") + "\n"
                    for d in fields)
    table = [("header", "layers", "problem", "count", "pick", "cudnn_ms", "pick_ms", "ratio",
              "oracle_ms")]
    summaries = []
    with tempfile.TemporaryDirectory() as work:
        for arg in args:
            header, _, only = arg.partition(":")
            source = os.path.join(work, "replay.cpp")
            with open(source, "w") as f:
                f.write(HARNESS.replace("HEADER", '"' + os.path.abspath(header) + '"'))
            binary = os.path.join(work, "replay")
            subprocess.run(["g++", "-std=c++17", "-O1", "-I.", source, "-o", binary], check=True)
            picks = subprocess.run([binary], input=stdin, check=True, capture_output=True,
                                   text=True).stdout.splitlines()
            m = score(header, only, problems, fields, picks, times, vendor, tag, count, table,
                      best)
            summaries.append(m)
            print(f"{m['header']} on {m['layers']}: {m['count']} layers, geomean "
                  f"{m['geomean']:.3f}, time-weighted {m['time_weighted']:.3f}, worst "
                  f"{m['worst']:.3f} ({m['worst_layer']}), below 0.8x {m['below']}, below 0.9x "
                  f"{m['below9']}, {m['pct_oracle']:.1f} % of oracle, ktune's "
                  f"kernels {m['own']} ({100 * m['own_time']:.1f} % of the time)"
                  + (f", {m['unservable']} unservable (no shipped config runs them: the library "
                     "throws; not scored)" if m["unservable"] else ""))
    if out_csv:
        with open(out_csv, "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(table)
    if out_md:
        lines = ["| header | layers | n | cuDNN ms / pick ms (geomean) | time-weighted | worst "
                 "| below 0.8x | ktune's kernels: layers | ktune's kernels: time | below 0.9x "
                 "| % of oracle |",
                 "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
        lines += [f"| {m['header']} | {m['layers']} | {m['count']} | {m['geomean']:.3f} | "
                  f"{m['time_weighted']:.3f} | {m['worst']:.3f} ({m['worst_layer']}) | "
                  f"{m['below']} | {m['own']} | {100 * m['own_time']:.1f} % | {m['below9']} | "
                  f"{m['pct_oracle']:.1f} % |" for m in summaries]
        with open(out_md, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
