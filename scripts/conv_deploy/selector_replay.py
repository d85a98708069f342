#!/usr/bin/env python3
"""Replays bf16 conv2d selector headers on the committed H100 bf16 sweeps (no new timing): each
header's pick per layer (compiled with g++ against kernels/conv2d/conv2d_features.hpp, the
features ktune::conv2d_ex computes), its fallback order where the sweep refused the pick, and the
pick's swept median against the sweep's cuDNN-at-best row (a `vendor=cudnn` pick counts as that
row: what the selector assumed, not what the deployed cuDNN call costs). Prints per header and
layer set: layers, geomean and time-weighted cuDNN ms / pick ms (layers times their counts), the
worst layer and how many picks are ktune's own kernels.
  scripts/conv_deploy/selector_replay.py HEADER[:vgg16|resnet50] ...   (from the repository root)
HEADER:net replays on that network's layers only (a held-out header on the other network).
--sweep PATH (CSV[.gz], first) replays on that sweep instead of the H100 bf16 rows (e.g.
results/h200/conv-tc-sweep/sweep-bf16.csv.gz)."""
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
  long long v[9];
  while (std::scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld", v, v + 1, v + 2, v + 3, v + 4,
                    v + 5, v + 6, v + 7, v + 8) == 9) {
    const auto f = ktune::kernels::conv2d::feature_values(v[0], v[1], v[2], v[3], v[4], v[5], v[6],
                                                          v[7], v[8]);
    S::ktune_selector::Features x{};
    double* slot = reinterpret_cast<double*>(&x);
    for (int i = 0; i < 9; ++i) slot[i] = f[i];
    slot[9] = 2;  // precision, after the problem's nine (as ktune::conv2d_ex fills it)
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


def main():
    args = sys.argv[1:]
    sweep = None
    if len(args) >= 2 and args[0] == "--sweep":
        sweep, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    if sweep:
        with (gzip.open(sweep, "rt") if sweep.endswith(".gz") else open(sweep)) as f:
            text = f.read()
    else:
        text = subprocess.run([sys.executable, "scripts/conv_deploy/bf16_rows.py"], check=True,
                              capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    times, vendor, tag = {}, {}, {}
    for r in rows:
        tag[r["problem"]] = r["tags"]
        if r["status"] != "ok":
            continue
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
    stdin = "".join(" ".join(d[k] for k in KEYS) + "\n" for d in fields)
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
            ratios, deployed_ms, vendor_ms, own, worst = [], 0.0, 0.0, 0, None
            for p, d, line in zip(problems, fields, picks):
                if only and tag[p] != only:
                    continue
                pick, *order = line.split("|")
                time_of = lambda c: vendor[p] if c == "vendor=cudnn" else times.get((p, c))
                if time_of(pick) is None:  # refused in the sweep: the fallback order's first
                    pick = next(c for c in order if time_of(c) is not None)
                n = count[(tag[p], tuple(d[k] for k in SHAPE))]
                ratio = vendor[p] / time_of(pick)
                ratios.append(ratio)
                deployed_ms += n * time_of(pick)
                vendor_ms += n * vendor[p]
                own += pick != "vendor=cudnn"
                if worst is None or ratio < worst[0]:
                    worst = (ratio, f"{tag[p]} n={d['n']} {d['h']}x{d['w']} c={d['c']} k={d['k']} "
                                    f"{d['r']}x{d['s']}/{d['stride']}")
            geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
            print(f"{os.path.basename(header)} on {only or 'all'}: {len(ratios)} layers, geomean "
                  f"{geomean:.3f}, time-weighted {vendor_ms / deployed_ms:.3f}, worst {worst[0]:.3f} "
                  f"({worst[1]}), ktune's kernels {own}")


if __name__ == "__main__":
    main()
