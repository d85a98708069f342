#!/usr/bin/env python3
"""Replay of GEMM deploy recipes against the faster vendor, leaving one workload out.

Per recipe (`ktune deploy` options) and per held-out workload W: deploys a selector header from
the dataset's rows of the other workloads, compiles it into a small driver that prints select()'s
pick per problem of W, and scores the picks on the sweep's own timings of W against the faster of
the vendor rows (--vendors; default openblas,onednn, the CPU's): geometric mean, time-weighted
(sum of vendor times / sum of served times, time = FLOPs / perf), shapes below 0.9x and 0.8x, and
the share of shapes and of served time on ktune's own kernels. Also the recipe trained on every
workload but the --held-out ones and scored on its training problems (in-sample) and on each
--held-out workload. A prediction from the sweep, not a timing of the library (tuned_gemm_bench
is that: scripts/cpu_gemm_heldout_bench.sh, scripts/gpu_selector_benches.sh).
  scripts/cpu_gemm_vendor_replay.py DATA --workloads W1.csv,W2.csv,... \
      --recipe NAME='deploy options' [--recipe ...] [--ktune build/bin/ktune] \
      [--workload-tags T1,T2 in place of --workloads] [--vendors cublas,cublaslt] [--precision P] [--held-out W] [--markdown OUT.md] [--csv OUT.csv] [--picks PICKS.csv]
--picks writes every scored pick (recipe, held-out split, problem, config, ratio to the faster
vendor) to see which shapes a figure comes from.
--workload-tags T1,T2,... in place of --workloads: a workload is the problems whose `tags` column
holds that tag (the GPU sweeps tag each row with its workload; a problem holding several of the
listed tags, e.g. `mobilenet;resnet`, counts in the first listed). Problems of DATA in none of the
workloads form one more workload, `rest`. --precision P
keeps the problems whose key ends in `;precision=P` (the tensor-core sweeps; the selectors then
take seven arguments); with --c16 those ending in `;precision=P;c16=1` (C in the 16-bit input
type: eight arguments).
"""
import argparse
import collections
import csv
import gzip
import lzma
import math
import os
import shlex
import subprocess
import sys
import tempfile

VENDORS = ("openblas", "onednn")
FIELDS = ("transa", "transb", "m", "n", "k", "batch")
DRIVER = r"""
#include <cstdio>
#include HEADER
int main() {
  long long s[8];
  while (std::scanf("%lld %lld %lld %lld %lld %lld %lld %lld", s, s + 1, s + 2, s + 3, s + 4,
                    s + 5, s + 6, s + 7) == 8)
    std::printf("%s\n", ktune_selector::kConfigs[ktune_selector::select(ARGS)]);
}
"""


def fail(message):
    sys.exit(f"cpu_gemm_vendor_replay.py: {message}")


def open_text(path):
    if path.endswith(".xz"):  # the committed tensor-core sweeps
        return lzma.open(path, "rt")
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def workload_keys(path, precision=None, c16=False):
    if not os.path.exists(path):
        fail(f"no such workload file: {path}")
    lines = [line for line in open(path) if line.strip() and not line.startswith("#")]
    tail = key_tail(precision, c16)
    return {";".join(f"{f}={r[f]}" for f in FIELDS) + tail for r in csv.DictReader(lines)}


def key_tail(precision, c16=False):
    return (f";precision={precision}" + (";c16=1" if c16 else "")) if precision else ""


def load(path, precision=None, c16=False):
    """(header, rows by problem, perf[problem][config]) of a long CSV of ok/other rows; with a
    precision, only the problems of that precision."""
    rows, perf = collections.defaultdict(list), collections.defaultdict(dict)
    tags = collections.defaultdict(set)
    with open_text(path) as f:
        reader = csv.reader(f)
        header = next(reader)
        col = {name: i for i, name in enumerate(header)}
        for name in ("problem", "config", "status", "perf"):
            if name not in col:
                fail(f"{path}: no column '{name}'")
        for r in reader:
            problem = r[col["problem"]]
            if precision and not problem.endswith(key_tail(precision, c16)):
                continue
            rows[problem].append(r)
            if "tags" in col:
                tags[problem].update(t for t in r[col["tags"]].split(";") if t)
            if r[col["status"]] == "ok":
                perf[problem][r[col["config"]]] = float(r[col["perf"]])
    return header, rows, perf, tags


def flops(problem):
    kv = dict(x.split("=") for x in problem.split(";"))
    return 2.0 * int(kv["m"]) * int(kv["n"]) * int(kv["k"]) * int(kv["batch"])


def tagged(perf, tags, tag, groups):
    """The problems holding `tag` that no earlier group took (a shape of two networks, tagged
    `mobilenet;resnet`, counts in the first listed)."""
    return {p for p in perf if tag in tags[p]} - set().union(*groups.values())


def deploy_header(ktune, header, rows, train, options, work):
    data = os.path.join(work, "train.csv.gz")
    with gzip.open(data, "wt", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for p in sorted(train):
            w.writerows(rows[p])
    package = os.path.join(work, "package")
    run = subprocess.run([ktune, "deploy", "--data", data, *shlex.split(options), "--name",
                          "selector", "-o", package], capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"ktune deploy {options} failed: {run.stderr.strip()}")
    found = [os.path.join(d, f) for d, _, files in os.walk(os.path.join(package, "selectors"))
             for f in files if f.endswith(".hpp")]
    if len(found) != 1:
        fail(f"ktune deploy wrote {len(found)} selector headers, expected 1")
    return found[0]


def picks(header, problems, work, precision=None, c16=False):
    src, exe = os.path.join(work, "driver.cpp"), os.path.join(work, "driver")
    # A header trained on FP32-C rows takes no c16 argument (--header: the status quo's picks).
    c16 = c16 and "long long c16)" in open(header).read()
    args = ", ".join(f"s[{i}]" for i in range((8 if c16 else 7) if precision else 6))
    with open(src, "w") as f:
        f.write(DRIVER.replace("HEADER", '"' + os.path.abspath(header) + '"')
                .replace("ARGS", args))
    subprocess.run(["c++", "-std=c++17", "-O1", src, "-o", exe], check=True)
    fields = FIELDS + ("precision", "c16")
    lines = [" ".join(dict(x.split("=") for x in p.split(";")).get(f, "0") for f in fields)
             for p in problems]
    out = subprocess.run([exe], input="\n".join(lines) + "\n", capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return out[:len(problems)]


def served(perf, problems, chosen, vendors=VENDORS):
    """Per problem: (ratio to the faster vendor, problem, config, vendor time, served time), and
    the count of picks the sweep did not time (counted, not scored)."""
    out, unmeasured = [], 0
    for p, config in zip(problems, chosen):
        d = perf[p]
        key = config[len("vendor="):] if config.startswith("vendor=") else config
        vendor = max(d.get(v, 0.0) for v in vendors)
        if key not in d or vendor <= 0:
            unmeasured += 1
            continue
        out.append((d[key] / vendor, p, config, flops(p) / vendor, flops(p) / d[key]))
    return out, unmeasured


def score(rows, shapes, unmeasured):
    """One table row's figures from served() rows."""
    n = len(rows)
    vendor_time = sum(r[3] for r in rows)
    served_time = sum(r[4] for r in rows)
    own = [r for r in rows if not r[2].startswith("vendor=")]
    nan = float("nan")
    return {
        "shapes": shapes, "scored": n, "unmeasured": unmeasured,
        "geomean": math.exp(sum(math.log(r[0]) for r in rows) / n) if n else nan,
        "time_weighted": vendor_time / served_time if served_time else nan,
        "below_0.9": sum(r[0] < 0.9 for r in rows), "below_0.8": sum(r[0] < 0.8 for r in rows),
        "worst": min(r[0] for r in rows) if rows else nan,
        "own_shapes": len(own) / n if n else nan,
        "own_time": sum(r[4] for r in own) / served_time if served_time else nan,
        "worst_shapes": sorted(r[:3] for r in rows)[:3],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data")
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--workloads", help="comma-separated workload CSV files")
    where.add_argument("--workload-tags", help="comma-separated tags of the data's tags column")
    ap.add_argument("--recipe", action="append", default=[], help="NAME='deploy options'")
    ap.add_argument("--header", action="append", default=[],
                    help="NAME=HEADER: a committed selector scored as is on every split (no "
                         "training: e.g. today's selector on rows it was not trained for)")
    ap.add_argument("--ktune", default="build/bin/ktune")
    ap.add_argument("--vendors", default=",".join(VENDORS),
                    help="the vendor rows the picks are compared with (the faster of them)")
    ap.add_argument("--precision", help="keep the problems of this precision number only")
    ap.add_argument("--c16", action="store_true",
                    help="with --precision: the problems of 16-bit C (keys ending ;c16=1)")
    ap.add_argument("--held-out", action="append", default=[],
                    help="a workload (file name without .csv) the in-sample recipe never sees")
    ap.add_argument("--markdown")
    ap.add_argument("--csv")
    ap.add_argument("--picks", help="CSV of every scored pick: recipe, held_out, problem, config, ratio")
    a = ap.parse_args()
    for path in (a.data, a.ktune):
        if not os.path.exists(path):
            fail(f"no such file: {path}")
    vendors = tuple(a.vendors.split(","))
    if a.c16 and not a.precision:
        fail("--c16 needs --precision")
    header, rows, perf, tags = load(a.data, a.precision, a.c16)
    if not perf:
        fail(f"{a.data}: no problem of precision {a.precision}")
    groups = {}
    for path in (a.workloads or a.workload_tags).split(","):
        if a.workloads:
            keys = workload_keys(path, a.precision, a.c16) & set(perf)
        else:
            keys = tagged(perf, tags, path, groups)
        if not keys:
            fail(f"{path}: none of its shapes is in {a.data}")
        for other, seen in groups.items():
            if keys & seen:
                fail(f"{path} and {other} share {len(keys & seen)} shapes: hold out disjoint sets")
        groups[os.path.basename(path).removesuffix(".csv")] = keys
    rest = set(perf) - set().union(*groups.values())
    if rest:
        groups["rest"] = rest
    for w in a.held_out:
        if w not in groups:
            fail(f"--held-out {w}: not one of the workloads ({', '.join(groups)})")
    seen = set(perf) - set().union(*(groups[w] for w in a.held_out))
    if not a.recipe and not a.header:
        fail("no --recipe and no --header")
    recipes = []
    for r in a.header:
        name, sep, path = r.partition("=")
        if not sep or not os.path.exists(path):
            fail(f"--header '{r}': expected NAME=HEADER of an existing file")
        recipes.append((name, "header:" + os.path.abspath(path)))
    for r in a.recipe:
        name, sep, options = r.partition("=")
        if not sep or not name:
            fail(f"--recipe '{r}': expected NAME='deploy options'")
        recipes.append((name, options))
    out, pick_rows = [], []
    with tempfile.TemporaryDirectory() as work:
        for name, options in recipes:
            pooled, pooled_unmeasured = [], 0
            splits = [(w, set(perf) - keys, keys) for w, keys in groups.items()]
            shipped = [("in-sample", seen, seen)]
            shipped += [(f"shipped, {w} held out", seen, groups[w]) for w in a.held_out]
            for w, train, test in splits + shipped:
                if w == "in-sample":  # every problem was held out once: the pooled figure
                    out.append({"recipe": name, "options": options, "held_out": "each held out",
                                **score(pooled, len(perf), pooled_unmeasured)})
                    last = out[-1]
                problems = sorted(test)
                hpp = (options[len("header:"):] if options.startswith("header:") else
                       deploy_header(a.ktune, header, rows, train, options, work))
                scored, unmeasured = served(perf, problems,
                                            picks(hpp, problems, work, a.precision, a.c16),
                                            vendors)
                out.append({"recipe": name, "options": options, "held_out": w,
                            **score(scored, len(problems), unmeasured)})
                pick_rows += [(name, w, p, c, f"{x:.4f}") for x, p, c, _, _ in scored]
                if w in groups:  # a leave-one-workload-out split
                    pooled += scored
                    pooled_unmeasured += unmeasured
            print(f"{name}: each held out {last['geomean']:.3f} / {last['time_weighted']:.3f}, "
                  f"{last['below_0.9']} below 0.9x, {last['below_0.8']} below 0.8x",
                  file=sys.stderr)
    fields = ["recipe", "held_out", "shapes", "scored", "unmeasured", "geomean", "time_weighted",
              "below_0.9", "below_0.8", "worst", "own_shapes", "own_time", "options"]
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fields, extrasaction="ignore", lineterminator="\n")
            w.writeheader()
            for r in out:
                w.writerow({k: f"{v:.4f}" if isinstance(v, float) else v for k, v in r.items()})
    if a.picks:
        with open(a.picks, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["recipe", "held_out", "problem", "config", "ratio"])
            w.writerows(pick_rows)
    lines = ["| recipe | held out | shapes | vs faster vendor (geomean) | time-weighted | < 0.9x "
             "| < 0.8x | worst | own kernels: shapes | own kernels: time | worst shapes |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in out:
        worst = "; ".join(f"{p} `{c}` {x:.2f}" for x, p, c in r["worst_shapes"] if x < 0.9)
        lines.append(f"| {r['recipe']} | {r['held_out']} | {r['scored']} | {r['geomean']:.3f} | "
                     f"{r['time_weighted']:.3f} | {r['below_0.9']} | {r['below_0.8']} | "
                     f"{r['worst']:.3f} | {100 * r['own_shapes']:.0f} % | "
                     f"{100 * r['own_time']:.0f} % | {worst} |")
    lines += ["", "Recipes (`ktune deploy` options):", ""]
    lines += [f"- {name}: `{options}`" for name, options in recipes]
    text = "\n".join(lines) + "\n"
    if a.markdown:
        open(a.markdown, "w").write(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
