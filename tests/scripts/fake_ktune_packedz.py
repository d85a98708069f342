#!/usr/bin/env python3
"""A stand-in for a ktune binary in the tests of scripts/cpu_packedz_ab.sh and
scripts/cpu_packedz_ab_confirm.py: the commands those scripts run, no kernel timed.
The tests copy it as <dir>/before and <dir>/after (its file name is the side it plays).
  bench --help            prints "Core: FakeCore" when OPENBLAS_VERBOSE=2 (OpenBLAS's report)
  bench ... --workload W --configs C --store S [--shard I/N]
                          one line per (shape of W (of shard I), config of C) added to S (a
                          text file here), with the side in the line: a store mixed up between
                          sides shows
  export --store S --format csv -o OUT.csv.gz
                          S's lines as a ktune export (device = the side that benched the row)
Each call is appended as a JSON line to $FAKE_KTUNE_LOG: side, arguments, the workload's text,
OMP_NUM_THREADS and the OpenBLAS variables the scripts must unset. $FAKE_KTUNE_FAIL = a side
makes that side's bench exit 3 (a failing sweep)."""
import csv
import gzip
import json
import os
import sys

side = os.path.basename(sys.argv[0])
args = sys.argv[1:]


def opt(name):
    return args[args.index(name) + 1]


def record():
    with open(os.environ["FAKE_KTUNE_LOG"], "a") as f:
        f.write(json.dumps(call) + "\n")


call = {"side": side, "args": args, "omp": os.environ.get("OMP_NUM_THREADS"),
        "openblas_env": [k for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in os.environ]}
if args[:2] == ["bench", "--help"]:
    if os.environ.get("OPENBLAS_VERBOSE") == "2":
        print("Core: FakeCore")
    print("usage: ktune bench ...")
elif args[0] == "bench":
    with open(opt("--workload")) as f:
        call["workload"] = f.read()
    if os.environ.get("FAKE_KTUNE_FAIL") == side:
        record()
        print(f"{side}: planted failure", file=sys.stderr)
        sys.exit(3)
    with open(opt("--workload")) as f:
        shapes = list(csv.DictReader(f))
    if "--shard" in args:  # shard i/n: every n-th shape from the i-th (each shape in one shard)
        i, n = map(int, opt("--shard").split("/"))
        shapes = shapes[i::n]
    with open(opt("--store"), "a") as f:
        for s in shapes:
            problem = ";".join(f"{k}={s[k]}" for k in ("transa", "transb", "m", "n", "k", "batch"))
            for c in opt("--configs").split(","):
                f.write(f"{side}\t{problem}\t{c}\n")
    print(f"{side}: {len(shapes)} shapes benched")
elif args[0] == "export":
    with open(opt("--store")) as f, gzip.open(opt("-o"), "wt") as out:
        out.write("device,family,problem,config,config_id,status,median_ms\n")
        for i, line in enumerate(f):
            who, problem, config = line.rstrip("\n").split("\t")
            out.write(f"{who},gemm,{problem},{config},{i},ok,1.0\n")
else:
    sys.exit(f"fake ktune: unexpected command {args}")
record()
