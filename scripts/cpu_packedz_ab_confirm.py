#!/usr/bin/env python3
"""Second pass of a before/after packedz sweep (scripts/cpu_packedz_ab.sh): per shape, the TOP
fastest configs of each side's screening sweep (the union: the same configs on both sides) and
the vendor rows, timed again with more repetitions by both ktune binaries, one shape at a time,
the side going first alternating from shape to shape. The screening's few repetitions
(--min-reps 2) leave one slow round (a helper thread woken late, another process) deciding a
1 ms row; this pass's TIMING takes the median of more. Writes OUT_DIR/<workload>-NAME-<side>
.csv.gz (--name: another NAME, e.g. for a run under another OMP_WAIT_POLICY), which
scripts/cpu_packedz_ab_table.py reads as workload <workload>-NAME.
  scripts/cpu_packedz_ab_confirm.py OUT_DIR BEFORE_KTUNE AFTER_KTUNE WORKLOAD... [--top 4]
OUT_DIR holds the screening's <workload>-before.csv.gz / -after.csv.gz. Env as
cpu_packedz_ab.sh: THREADS (default 2), STORE_DIR; TIMING here defaults to
"--warmups 2 --min-reps 7 --rep-budget-ms 60"."""
import argparse
import csv
import datetime
import gzip
import os
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("before")
parser.add_argument("after")
parser.add_argument("workloads", nargs="+")
parser.add_argument("--top", type=int, default=4)
parser.add_argument("--name", default="confirm", help="outputs <workload>-NAME-<side>.csv.gz")
args = parser.parse_args()
timing = os.environ.get("TIMING", "--warmups 2 --min-reps 7 --rep-budget-ms 60").split()
stores = os.environ.get("STORE_DIR", "/tmp/ktune-packedz-ab-confirm")
# Inputs checked before anything is written: a bad one is one line naming it.
for what, path in (("BEFORE_KTUNE", args.before), ("AFTER_KTUNE", args.after)):
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        sys.exit(f"error: {what} '{path}' is not an executable file")
for w in args.workloads:
    for s in ("before", "after"):
        screening = os.path.join(args.out, f"{w}-{s}.csv.gz")
        if not os.path.isfile(screening):
            sys.exit(f"error: no screening export '{screening}' (run scripts/cpu_packedz_ab.sh first)")
os.makedirs(stores, exist_ok=True)
env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
env["OMP_NUM_THREADS"] = os.environ.get("THREADS", "2")
log = open(os.path.join(args.out, "confirm.log"), "a")


def say(text):
    print(text, flush=True)
    log.write(text + "\n")
    log.flush()


def ranked(path):
    """problem -> packedz configs, fastest first"""
    rows = {}
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(f):
            if r["status"] == "ok" and r["config_id"] != "-1":
                rows.setdefault(r["problem"], []).append((float(r["median_ms"]), r["config"]))
    return {p: [c for _, c in sorted(v)] for p, v in rows.items()}


say(f"# {datetime.datetime.now(datetime.timezone.utc):%FT%TZ} {args.name}: OMP_WAIT_POLICY "
    f"{os.environ.get('OMP_WAIT_POLICY', 'unset')}, top {args.top} per side, "
    f"timing {' '.join(timing)}, threads {env['OMP_NUM_THREADS']}")
for w in args.workloads:
    sides = {s: ranked(os.path.join(args.out, f"{w}-{s}.csv.gz")) for s in ("before", "after")}
    # Every shape either screening has (one only in the after run's too).
    for i, problem in enumerate(sorted(set(sides["before"]) | set(sides["after"]))):
        configs = []
        for s in ("before", "after"):
            configs += [c for c in sides[s].get(problem, [])[: args.top] if c not in configs]
        d = dict(kv.split("=") for kv in problem.split(";"))
        shape = os.path.join(stores, f"{w}-{i}.csv")
        with open(shape, "w") as f:
            f.write("transa,transb,m,n,k,batch\n")
            f.write(",".join(d[k] for k in ("transa", "transb", "m", "n", "k", "batch")) + "\n")
        order = ("before", "after") if i % 2 == 0 else ("after", "before")
        load = open("/proc/loadavg").read().split()[:3]
        say(f"# {datetime.datetime.now(datetime.timezone.utc):%T} {w} {problem}: {len(configs)} configs, "
            f"{order[0]} first, load {' '.join(load)}")
        for s in order:
            binary = args.before if s == "before" else args.after
            run = subprocess.run([binary, "bench", "--family", "gemm", "--device", "cpu", "--workload",
                                  shape, "--configs", ",".join(configs), "--store",
                                  os.path.join(stores, f"{w}-{args.name}-{s}.sqlite"), *timing],
                                 env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if run.returncode != 0:
                why = (run.stderr.strip().splitlines() or ["no message"])[-1]
                say(f"# {s} bench failed on {w} {problem}: {why}")
                sys.exit(f"error: the {s} bench failed on {w} {problem}: {why}")
    for s in ("before", "after"):
        subprocess.run([args.after, "export", "--store", os.path.join(stores, f"{w}-{args.name}-{s}.sqlite"),
                        "--format", "csv", "-o", os.path.join(args.out, f"{w}-{args.name}-{s}.csv.gz")],
                       check=True, stdout=subprocess.DEVNULL)
say(f"# {datetime.datetime.now(datetime.timezone.utc):%T} confirm done, load "
    f"{' '.join(open('/proc/loadavg').read().split()[:3])}")
