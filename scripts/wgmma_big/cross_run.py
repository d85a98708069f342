#!/usr/bin/env python3
"""Every ok row of one 8192^3 export against the same row (config id, or vendor name) of earlier
exports, per precision and transpose: TFLOP/s in each and the new / mean-of-earlier ratio, then
the median ratio of the ktune rows and of the vendor rows (different calls: a card or machine
that runs slower moves both, so the two medians are read together). Markdown to stdout.

  python3 scripts/wgmma_big/cross_run.py NEW.csv.gz EARLIER.csv.gz [EARLIER.csv.gz ...]
"""
import csv
import gzip
import statistics
import sys

TRANSPOSES = {("0", "0"): "NN", ("0", "1"): "NT", ("1", "0"): "TN"}
PRECISIONS = {"2": "bf16", "3": "fp16"}


def load(path):
    """{(precision, transpose, row): TFLOP/s} of the ok rows; row = config id or vendor name."""
    try:
        rows = list(csv.DictReader(gzip.open(path, "rt")))
    except OSError as e:
        sys.exit("cross_run.py: cannot read %s: %s" % (path, e.strerror or e))
    out = {}
    for r in rows:
        if r.get("status") != "ok":
            continue
        p = dict(kv.split("=", 1) for kv in r["problem"].split(";"))
        t = TRANSPOSES.get((p.get("transa"), p.get("transb")))
        prec = PRECISIONS.get(p.get("precision"))
        if t and prec:
            name = r["config"] if r["config_id"] == "-1" else "%s (%s)" % (r["config"], r["config_id"])
            out[(prec, t, name)] = float(r["perf"]) / 1000
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: cross_run.py NEW.csv.gz EARLIER.csv.gz [EARLIER.csv.gz ...]")
    new, earlier = load(sys.argv[1]), [load(p) for p in sys.argv[2:]]
    cols = " | ".join("earlier %d" % (i + 1) for i in range(len(earlier)))
    print("| precision | transpose | row | new | %s | new / mean of earlier |" % cols)
    print("|---|---|---|---:|" + "---:|" * len(earlier) + "---:|")
    ratios = {"ktune": [], "vendor": []}
    for key in sorted(new, key=lambda k: (k[0], ["NN", "NT", "TN"].index(k[1]), k[2])):
        olds = [e[key] for e in earlier if key in e]
        cells = " | ".join("%.0f" % e[key] if key in e else "—" for e in earlier)
        ratio = new[key] / statistics.mean(olds) if olds else None
        if ratio is not None:
            ratios["ktune" if key[2].startswith("kind=") else "vendor"].append(ratio)
        print("| %s | %s | %s | %.0f | %s | %s |" % (key + (new[key], cells, "%.3f" % ratio if ratio else "—")))
    print()
    for who, rs in ratios.items():
        if rs:
            print("Median new / earlier of the %s rows: %.3f (%d rows)." % (who, statistics.median(rs), len(rs)))


if __name__ == "__main__":
    main()
