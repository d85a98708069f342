#!/usr/bin/env python3
"""Two GEMM selector headers of the deployed library (ktune::gemm_ex) in one device run, host
side (the protocol of results/h200/tc-bf16-allkinds-deployed; the device side is
scripts/gpu_header_ab.sh).

picks: compiles both headers into one driver (each in its own namespace: `ktune_selector`
renamed by a macro) and writes, per workload, what each picks on every shape:
  selector_header_ab.py picks --a NAME=HEADER --b NAME=HEADER --precision P --out DIR \\
    WORKLOAD=SOURCE[#TAG,...] ...
  DIR/picks.csv          workload,transa,transb,m,n,k,batch,precision,<a>_pick,<b>_pick
  DIR/differing-W.csv    the shapes of W where the picks differ (a workload file: side b is
                         timed on these alone; elsewhere both call the same config)
P: fp32 (the six-argument FP32 selector, KTUNE_CUDA_SELECTOR), tf32, bf16 or fp16 (the
precision is select()'s seventh argument, as the library passes it), or bf16-c16 / fp16-c16
(the 16-bit-C selectors: precision and c16 = 1). A pick out of range is the header's kBaseline,
as in the library. SOURCE: a workload file (transa,transb,m,n,k,batch or the TransposeLHS...
layout, '#' comments) or any CSV with a `problem` column (.gz / .xz too): a sweep export or an
earlier tuned_gemm_bench --out, e.g. for a built-in workload such as dnn, whose shapes are in no
file; its rows of precision P, and with #TAGS only rows whose `tags` column names one of them.
The shapes must be those the device's side a runs: merge fails on any other.

merge: after the run, side b's full per-workload CSV from its own rows on the differing shapes
and side a's rows on the others (the same config in the same run: one timing serves both):
  selector_header_ab.py merge --picks DIR/picks.csv --a NAME --b NAME --run RUN [--out OUT] [W...]
  reads RUN/<a>-W.csv (every shape of W) and RUN/<b>-differing-W.csv, writes OUT/<b>-W.csv
  (OUT defaults to RUN) in a's row order, `networks` taken from a's rows. Every row's config is
  checked against the pick the header of its side makes; a wrong config, a shape missing from
  either side, or a row of a shape that should not be there is an error (exit 1, nothing
  written for that workload)."""
import argparse
import csv
import gzip
import io
import lzma
import os
import subprocess
import sys
import tempfile

FIELDS = ("transa", "transb", "m", "n", "k", "batch")
ALIASES = {"transposelhs": "transa", "transposerhs": "transb"}
PRECISIONS = {"fp32": (0, False), "tf32": (1, False), "bf16": (2, False), "fp16": (3, False),
              "bf16-c16": (2, True), "fp16-c16": (3, True)}
DRIVER = r"""
#include <cstdio>
#include <cstring>
#define ktune_selector ktune_header_a
#include "a.hpp"
#undef ktune_selector
#define ktune_selector ktune_header_b
#include "b.hpp"
#undef ktune_selector
// select()'s arguments as the library passes them: six (FP32), the precision seventh, c16 eighth.
#define KTUNE_AB_SIDE(NS)                                                                   \
  template <class L>                                                                        \
  int arity_##NS(L v) {                                                                     \
    if constexpr (requires { NS::select(v, v, v, v, v, v, v, v); }) return 8;               \
    else if constexpr (requires { NS::select(v, v, v, v, v, v, v); }) return 7;             \
    else return 6;                                                                          \
  }                                                                                         \
  template <class L>                                                                        \
  const char* pick_##NS(const L* s) {                                                       \
    int i;                                                                                  \
    if constexpr (requires { NS::select(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]); }) \
      i = NS::select(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]);                       \
    else if constexpr (requires { NS::select(s[0], s[1], s[2], s[3], s[4], s[5], s[6]); })  \
      i = NS::select(s[0], s[1], s[2], s[3], s[4], s[5], s[6]);                             \
    else                                                                                    \
      i = NS::select(s[0], s[1], s[2], s[3], s[4], s[5]);                                   \
    return NS::kConfigs[i >= 0 && i < NS::kNumConfigs ? i : NS::kBaseline];                 \
  }
KTUNE_AB_SIDE(ktune_header_a)
KTUNE_AB_SIDE(ktune_header_b)
int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--arity") == 0) {
    std::printf("%d %d\n", arity_ktune_header_a(0LL), arity_ktune_header_b(0LL));
    return 0;
  }
  long long s[8];
  while (std::scanf("%lld %lld %lld %lld %lld %lld %lld %lld", s, s + 1, s + 2, s + 3, s + 4,
                    s + 5, s + 6, s + 7) == 8)
    std::printf("%s\t%s\n", pick_ktune_header_a(s), pick_ktune_header_b(s));
}
"""


def fail(message):
    sys.exit(f"selector_header_ab.py: {message}")


def open_text(path):
    if path.endswith(".xz"):
        return lzma.open(path, "rt", newline="")
    if path.endswith(".gz"):
        return gzip.open(path, "rt", newline="")
    return open(path, newline="")


def parse_key(key):
    """A problem key (transa=0;...;batch=1[;precision=2][;c16=1]) -> (shape, precision, c16)."""
    kv = dict(part.split("=", 1) for part in key.split(";") if "=" in part)
    try:
        shape = tuple(int(kv[f]) for f in FIELDS)
    except (KeyError, ValueError):
        raise ValueError(f"problem '{key}' is not a GEMM problem key") from None
    return shape, int(kv.get("precision", 0)), kv.get("c16", "0") == "1"


def problems_of(source, precision, c16):
    """The distinct shapes of SOURCE[#TAGS] in their first order (see the module's doc)."""
    path, _, tags = source.partition("#")
    wanted_tags = {t for t in tags.split(",") if t}
    if not os.path.isfile(path):
        fail(f"no such workload source: {path}")
    with open_text(path) as f:
        lines = [line for line in f if line.strip() and not line.lstrip().startswith("#")]
    reader = csv.reader(io.StringIO("".join(lines)))
    header = [h.strip() for h in next(reader, [])]
    shapes = []
    if "problem" in header:
        rows = (dict(zip(header, r)) for r in reader)
        for r in rows:
            if wanted_tags and not wanted_tags & set(r.get("tags", "").split(";")):
                continue
            shape, p, c = parse_key(r["problem"])
            if (p, c) == (precision, c16):
                shapes.append(shape)
    else:
        if wanted_tags:
            fail(f"{path}: #tags need a CSV with problem and tags columns")
        names = [ALIASES.get(h.lower(), h.lower()) for h in header]
        missing = [f for f in FIELDS if f not in names]
        if missing:
            fail(f"{path}: neither a problem column nor the workload columns {', '.join(missing)}")
        for r in reader:
            values = dict(zip(names, (v.strip() for v in r)))
            shapes.append(tuple(int(float({"true": 1, "false": 0}.get(values[f], values[f])))
                                for f in FIELDS))
    shapes = list(dict.fromkeys(shapes))
    if not shapes:
        fail(f"{source}: no problem of that precision")
    return shapes


def header_picks(header_a, header_b, precision_name, shapes):
    """[(a's pick, b's pick)] per shape; fails when a header's select() does not take the
    arguments the library passes for this precision."""
    precision, c16 = PRECISIONS[precision_name]
    want = 8 if c16 else 7 if precision else 6
    with tempfile.TemporaryDirectory() as tmp:
        for name, header in (("a", header_a), ("b", header_b)):
            with open(header) as f:  # without #pragma once: the same header may be both sides
                text = "".join(line for line in f if line.strip() != "#pragma once")
            with open(os.path.join(tmp, f"{name}.hpp"), "w") as f:
                f.write(text)
        src, exe = os.path.join(tmp, "picks.cpp"), os.path.join(tmp, "picks")
        with open(src, "w") as f:
            f.write(DRIVER)
        compiler = os.environ.get("CXX", "c++")
        built = subprocess.run([compiler, "-std=c++20", "-O1", src, "-o", exe],
                               capture_output=True, text=True)
        if built.returncode:
            fail(f"the headers do not compile together:\n{built.stderr[-3000:]}")
        arity = subprocess.run([exe, "--arity"], capture_output=True, text=True, check=True)
        for header, n in zip((header_a, header_b), map(int, arity.stdout.split())):
            if n != want:
                fail(f"{header}: select() takes {n} arguments; a {precision_name} selector "
                     f"takes {want}")
        text = "".join(" ".join(map(str, s)) + f" {precision} {int(c16)}\n" for s in shapes)
        out = subprocess.run([exe], input=text, capture_output=True, text=True, check=True)
    picks = [tuple(line.split("\t")) for line in out.stdout.splitlines()]
    if len(picks) != len(shapes):
        fail(f"{len(picks)} picks for {len(shapes)} shapes")
    return picks


def side(text, what):
    name, sep, header = text.partition("=")
    if not sep or not name or not header:
        fail(f"{what} wants NAME=HEADER, not '{text}'")
    if not os.path.isfile(header):
        fail(f"no such header: {header}")
    return name, header


def cmd_picks(args):
    (a, header_a), (b, header_b) = side(args.a, "--a"), side(args.b, "--b")
    if a == b:
        fail("the two sides need different names")
    precision, c16 = PRECISIONS[args.precision]
    workloads = []
    for spec in args.workloads:
        name, sep, source = spec.partition("=")
        if not sep or not name or not source:
            fail(f"a workload is NAME=SOURCE, not '{spec}'")
        workloads.append((name, problems_of(source, precision, c16)))
    shapes = [s for _, ws in workloads for s in ws]
    picks = iter(header_picks(header_a, header_b, args.precision, shapes))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "picks.csv"), "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["workload", *FIELDS, "precision", f"{a}_pick", f"{b}_pick"])
        for name, ws in workloads:
            differing = []
            for shape in ws:
                pa, pb = next(picks)
                out.writerow([name, *shape, args.precision, pa, pb])
                if pa != pb:
                    differing.append(shape)
            with open(os.path.join(args.out, f"differing-{name}.csv"), "w", newline="") as d:
                w = csv.writer(d, lineterminator="\n")
                w.writerow(FIELDS)
                w.writerows(differing)
            print(f"{name}: picks differ on {len(differing)} of {len(ws)} shapes")


def read_csv(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames or [], list(reader)


def merge_workload(w, picks, precision, a, b, run):
    """Side b's rows over all of workload w, or raises ValueError naming what is wrong."""
    a_path, b_path = os.path.join(run, f"{a}-{w}.csv"), os.path.join(run, f"{b}-differing-{w}.csv")
    differ = {s for s, (pa, pb) in picks.items() if pa != pb}
    if not os.path.isfile(a_path):
        raise ValueError(f"no {a_path}")
    fields, rows = read_csv(a_path)
    own = {}
    if os.path.isfile(b_path):
        for r in read_csv(b_path)[1]:
            own.setdefault(parse_key(r["problem"])[0], []).append(r)
    elif differ:
        raise ValueError(f"no {b_path} ({len(differ)} shapes differ)")
    errors, out, seen = [], [], set()

    def check(r, who, want):
        shape, p, c = parse_key(r["problem"])
        if (p, c) != precision:
            errors.append(f"{who} row {r['problem']}: not of the picks' precision")
        elif r["config"] != want:
            errors.append(f"{who} row {r['problem']}: config {r['config']}, its header picks "
                          f"{want}")
        return shape

    for r in rows:
        shape = parse_key(r["problem"])[0]
        if shape not in picks:
            errors.append(f"{a} row {r['problem']}: a shape the picks do not list")
            continue
        if shape in seen:
            errors.append(f"{a} row {r['problem']}: twice")
            continue
        seen.add(shape)
        pa, pb = picks[shape]
        check(r, a, pa)
        if shape not in differ:
            out.append(r)
            continue
        mine = own.pop(shape, [])
        if len(mine) != 1:
            errors.append(f"{b} rows of {r['problem']}: {len(mine)}, not 1")
            continue
        check(mine[0], b, pb)
        out.append(dict(mine[0], networks=r.get("networks", "")))
    if len(seen) != len(picks):
        errors.append(f"{a}: {len(seen)} of the {len(picks)} shapes")
    for shape, extra in own.items():
        why = "picks agree" if shape in picks else "not in the picks"
        errors += [f"{b} row {r['problem']}: {why}" for r in extra]
    if errors:
        raise ValueError("; ".join(errors[:10]) + (f"; {len(errors) - 10} more"
                                                    if len(errors) > 10 else ""))
    return fields, out, len(out) - len(differ)


def cmd_merge(args):
    picks, precision = {}, {}
    with open(args.picks, newline="") as f:
        reader = csv.DictReader(f)
        for col in (f"{args.a}_pick", f"{args.b}_pick"):
            if col not in (reader.fieldnames or []):
                fail(f"{args.picks} has no column {col}")
        for r in reader:
            shape = tuple(int(r[x]) for x in FIELDS)
            picks.setdefault(r["workload"], {})[shape] = (r[f"{args.a}_pick"], r[f"{args.b}_pick"])
            precision[r["workload"]] = PRECISIONS[r["precision"]]
    out_dir = args.out or args.run
    failed = False
    for w in args.workloads or list(picks):
        if w not in picks:
            fail(f"{args.picks} has no workload {w}")
        try:
            fields, rows, same = merge_workload(w, picks[w], precision[w], args.a, args.b,
                                                args.run)
        except ValueError as e:
            print(f"selector_header_ab.py: {w}: {e}", file=sys.stderr)
            failed = True
            continue
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, f"{args.b}-{w}.csv"), "w", newline="") as f:
            writer = csv.DictWriter(f, fields, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        print(f"{w}: {len(rows)} shapes, {same} with the same pick ({args.a}'s rows), "
              f"{len(rows) - same} differing ({args.b}'s own)")
    sys.exit(1 if failed else 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("picks", help="both headers' picks and the differing shapes per workload")
    p.add_argument("--a", required=True, help="NAME=HEADER of the side timed on every shape")
    p.add_argument("--b", required=True, help="NAME=HEADER of the side timed where picks differ")
    p.add_argument("--precision", required=True, choices=sorted(PRECISIONS))
    p.add_argument("--out", required=True)
    p.add_argument("workloads", nargs="+", metavar="WORKLOAD=SOURCE[#TAG,...]")
    p.set_defaults(func=cmd_picks)
    m = sub.add_parser("merge", help="side b's full CSVs from its own rows and side a's")
    m.add_argument("--picks", required=True)
    m.add_argument("--a", required=True)
    m.add_argument("--b", required=True)
    m.add_argument("--run", required=True, help="the run's CSVs (<a>-W.csv, <b>-differing-W.csv)")
    m.add_argument("--out", help="where <b>-W.csv go (default: --run)")
    m.add_argument("workloads", nargs="*", metavar="W")
    m.set_defaults(func=cmd_merge)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
