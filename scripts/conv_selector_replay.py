#!/usr/bin/env python3
"""What a generated conv2d selector header picks on a CPU conv sweep's layers, scored on the sweep.

Compiles the header (c++) with kernels/conv2d/conv2d_features.hpp into a small driver that prints
select()'s pick per layer, then per network tag and batch prints the picks' geometric mean and
time-weighted ratio against oneDNN at its best in the sweep (the faster of the onednn and
onednn_winograd rows), the layers predicted below 0.8x, the worst layers, and the share of layers
and of (predicted) time served by ktune's own kernels; a pick the sweep has no ok row for
(refused) falls back along kSafeOrder as the deployed library does. A vendor candidate's pick
("vendor=onednn", "vendor=onednn_winograd": ktune deploy --vendors) is scored by its vendor row. A prediction from the sweep's own timings, not a
measurement of the library: scripts/cpu_conv_sweep.sh's deployed benchmark is that.
  scripts/conv_selector_replay.py HEADER DATA.csv[.gz] [--tags vgg16,resnet50]
"""
import argparse
import collections
import csv
import gzip
import math
import os
import subprocess
import sys
import tempfile

DRIVER = r"""
#include <cstdio>
#include "kernels/conv2d/conv2d_features.hpp"
#include HEADER
int main() {
  long long v[9];
  while (std::scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld", v, v + 1, v + 2, v + 3, v + 4,
                    v + 5, v + 6, v + 7, v + 8) == 9) {
    const auto f = ktune::kernels::conv2d::feature_values(v[0], v[1], v[2], v[3], v[4], v[5], v[6],
                                                          v[7], v[8]);
    ktune_selector::Features x;
    static_assert(sizeof x == sizeof(double) * f.size());
    double* out = &x.n;
    for (size_t i = 0; i < f.size(); ++i) out[i] = f[i];
    // The pick, then the fallback order the deployed library walks when the pick refuses.
    std::printf("%s", ktune_selector::kConfigs[ktune_selector::select(x)]);
    for (int i : ktune_selector::kSafeOrder) std::printf("|%s", ktune_selector::kConfigs[i]);
    std::printf("\n");
  }
}
"""
KEYS = ("n", "h", "w", "c", "k", "r", "s", "stride", "pad")
VENDORS = ("onednn", "onednn_winograd")


def load(path):
    rows = csv.DictReader(gzip.open(path, "rt") if path.endswith(".gz") else open(path))
    ms = collections.defaultdict(dict)  # problem -> config -> median ms
    tags = {}
    for row in rows:
        if row["status"] != "ok":
            continue
        ms[row["problem"]][row["config"]] = float(row["median_ms"])
        tags[row["problem"]] = row["tags"]
    return ms, tags


def picks(header, problems, root):
    with tempfile.TemporaryDirectory() as work:
        src, exe = os.path.join(work, "d.cpp"), os.path.join(work, "d")
        open(src, "w").write(DRIVER.replace("HEADER", '"' + os.path.abspath(header) + '"'))
        built = subprocess.run(["c++", "-std=c++20", "-O1", "-I", root, src, "-o", exe],
                               capture_output=True, text=True)
        if built.returncode != 0:
            sys.exit(f"conv_selector_replay: {header} does not compile as a conv2d selector "
                     f"header: {built.stderr.strip().splitlines()[0] if built.stderr else ''}")
        text = "\n".join(" ".join(dict(kv.split("=") for kv in p.split(";"))[k] for k in KEYS)
                         for p in problems)
        out = subprocess.run([exe], input=text, capture_output=True, text=True, check=True)
    return [line.split("|") for line in out.stdout.split("\n")[: len(problems)]]


def row_name(config):
    """The sweep's row of a shipped config: a vendor candidate's is the vendor's row."""
    return config[len("vendor="):] if config.startswith("vendor=") else config


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("header")
    ap.add_argument("data")
    ap.add_argument("--tags", default="", help="only these workload tags (comma-separated)")
    a = ap.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    for path in (a.header, a.data):
        if not os.path.isfile(path):
            sys.exit(f"conv_selector_replay: no such file: {path}")
    ms, tags = load(a.data)
    if not ms:
        sys.exit(f"conv_selector_replay: no ok rows in {a.data}")
    wanted = set(filter(None, a.tags.split(",")))
    problems = sorted(p for p in ms if not wanted or tags[p] in wanted)
    chosen = dict(zip(problems, picks(a.header, problems, root)))
    groups = collections.defaultdict(list)
    for p in problems:
        vendor = min((ms[p][v] for v in VENDORS if v in ms[p]), default=None)
        if vendor is None:
            continue
        # A pick the sweep refused (no ok row) falls back as the deployed library does.
        pick = next((c for c in chosen[p] if row_name(c) in ms[p]), None)
        if pick is None:
            print(f"missing: {p}: no ok row for any shipped config", file=sys.stderr)
            continue
        mine = ms[p][row_name(pick)]
        batch = dict(kv.split("=") for kv in p.split(";"))["n"]
        for g in ((tags[p], batch), ("all", "")):
            groups[g].append((vendor / mine, vendor, mine, p, pick))
    print("| set | batch | layers | geomean | time-weighted | below 0.8x | own layers | own time | worst |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for (tag, batch), v in sorted(groups.items(), key=lambda kv: (kv[0][0] == "all", kv[0])):
        geo = math.exp(sum(math.log(r) for r, *_ in v) / len(v))
        tw = sum(x[1] for x in v) / sum(x[2] for x in v)
        worst = ", ".join(f"{p.split(';k=')[0][:24]}.. {r:.2f} {c}"
                          for r, _, _, p, c in sorted(v)[:3])
        low = sum(r < 0.8 for r, *_ in v)
        own = [x for x in v if not x[4].startswith("vendor=")]
        own_time = sum(x[2] for x in own) / sum(x[2] for x in v)
        print(f"| {tag} | {batch} | {len(v)} | {geo:.3f} | {tw:.3f} | {low} | "
              f"{len(own)}/{len(v)} | {own_time:.0%} | {worst} |")


if __name__ == "__main__":
    main()
