#!/usr/bin/env python3
"""Tables and run.json for a run of scripts/gpu_remember_vit.sh (tune and remember on the GPU):
per precision the plain library, its tune-and-remember steady state and plain again, each against
the faster of cuBLAS and cuBLASLt #0 in the same run (geomean and time-weighted ratio, shapes below
0.8x / 0.9x, worst); which config each remembered shape served (the cache's winner, not the
selector's pick the bench's config column shows) with every candidate it timed; and the first-call
costs of overhead.csv.
  scripts/gpu_remember_runjson.py OUT_DIR --command CMD --commit SHA [--device TEXT]
Writes OUT_DIR/remembered-<p>.csv (every row of the cache remember-<p>.sqlite, which it then
removes), remember-<p>-served.csv (the bench rows, config = the config served),
deployed-tables.csv / .md (scripts/gemm_deployed_tables.py) and run.json."""
import argparse
import csv
import datetime
import json
import os
import re
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm_deployed_tables import flop, geomean, read_run  # noqa: E402

PRECISIONS = ("tf32", "bf16", "fp32")
PHASES = ("plain", "remember", "plain2")


def cache_rows(path):
    """problem -> list of (config, median_ms, reps, winner) from a tune-and-remember cache."""
    out = {}
    if not os.path.exists(path):
        return out
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    winners = dict(db.execute("SELECT problem, config FROM answers"))
    for problem, config, median, reps in db.execute(
            "SELECT problem, config, median_ms, reps FROM timings ORDER BY problem, median_ms"):
        out.setdefault(problem, []).append((config, median, reps, winners.get(problem) == config))
    for problem, config in winners.items():  # an answer with no timing row of this run
        out.setdefault(problem, [(config, 0.0, 0, True)])
    db.close()
    return out


def written_cache_rows(sqlite_path, csv_path):
    """cache_rows of the cache at sqlite_path, which is then written out as csv_path (every row:
    problem, config, median_ms, reps, winner) and removed (results/ keeps text); where it is gone,
    the rows of the csv_path an earlier run wrote (a rerun); None when neither is there."""
    if os.path.exists(sqlite_path):
        rows = cache_rows(sqlite_path)
        with open(csv_path, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["problem", "config", "median_ms", "reps", "winner"])
            for problem in sorted(rows):
                for config, median, reps, win in rows[problem]:
                    w.writerow([problem, config, f"{median:.6f}", reps, int(win)])
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(sqlite_path + suffix):
                os.remove(sqlite_path + suffix)
        return rows
    if not os.path.exists(csv_path):
        return None
    rows = {}
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            rows.setdefault(r["problem"], []).append(
                (r["config"], float(r["median_ms"]), int(r["reps"]), r["winner"] == "1"))
    return rows


def smi_table(text):
    """(name, driver, memory) read from nvidia-smi's own table, each None where it is not there."""
    name = re.search(r"\|\s+\d+\s+(NVIDIA[^|]*?)\s{2,}", text)
    driver = re.search(r"Driver Version:\s*(\S+)", text)
    memory = re.search(r"/\s*(\d+MiB)", text)
    return (name.group(1).strip() if name else None, driver.group(1) if driver else None,
            memory.group(1) if memory else None)


def figures(rows):
    ratio = [r["ratio"] for r in rows]
    vendor_t = sum(flop(r["shape"]) / r["vendor"] for r in rows)
    ours_t = sum(flop(r["shape"]) / r["deployed"] for r in rows)
    worst = min(rows, key=lambda r: r["ratio"])
    return {"shapes": len(rows), "geomean": round(geomean(ratio), 3),
            "time_weighted": round(vendor_t / ours_t, 3),
            "below_0.8": sum(x < 0.8 for x in ratio), "below_0.9": sum(x < 0.9 for x in ratio),
            "worst": round(worst["ratio"], 3), "worst_problem": worst["problem"],
            "worst_config": worst["config"]}


def served_copy(out, p, answers):
    """remember-<p>.csv with config = the config served (the cache's answer where it has one)."""
    src, dst = f"{out}/remember-{p}.csv", f"{out}/remember-{p}-served.csv"
    with open(src, newline="") as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames, list(reader)
    for r in rows:
        r["config"] = answers.get(r["problem"], r["config"])
    with open(dst, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return dst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--command", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--device", help="default: the GPU nvidia-smi.txt names")
    args = ap.parse_args()
    out = args.out
    device = args.device
    if not device:
        text = open(f"{out}/nvidia-smi.txt").read() if os.path.exists(f"{out}/nvidia-smi.txt") else ""
        name, driver, _ = smi_table(text)
        device = (name or "unknown GPU") + (f" (driver {driver})" if driver else "")
    files, measures, table_runs, per_precision = ["phases.log", "nvidia-smi.txt"], [], [], {}
    if not any(os.path.exists(f"{out}/remember-{p}.csv") for p in PRECISIONS):
        sys.exit(f"{out}: no remember-<precision>.csv (not a run of scripts/gpu_remember_vit.sh)")
    for p in PRECISIONS:
        if not os.path.exists(f"{out}/remember-{p}.csv"):
            continue
        for phase in PHASES:
            if not os.path.exists(f"{out}/{phase}-{p}.csv"):
                sys.exit(f"{out}: {phase}-{p}.csv is missing (a run of {p} cut short?)")
        rows = written_cache_rows(f"{out}/remember-{p}.sqlite", f"{out}/remembered-{p}.csv") or {}
        answers = {problem: next(c for c, _, _, w in timed if w) for problem, timed in rows.items()}
        served = served_copy(out, p, answers)
        sets = {"plain": f"{out}/plain-{p}.csv", "remember": served,
                "plain2": f"{out}/plain2-{p}.csv"}
        per_precision[p] = {"remembered_shapes": len(answers)}
        for phase, path in sets.items():
            per_precision[p][phase] = figures(read_run(path))
            table_runs += ["--run", f"{phase}-{p}={path}"]
        own = sum(not c.startswith("vendor=") for c in answers.values())
        per_precision[p]["remembered_on_ktune_kernels"] = own
        f = per_precision[p]
        measures.append(
            f"{p}: plain {f['plain']['geomean']} / {f['plain']['time_weighted']} "
            f"({f['plain']['below_0.8']} below 0.8x), remembered {f['remember']['geomean']} / "
            f"{f['remember']['time_weighted']} ({f['remember']['below_0.8']} below 0.8x, "
            f"{f['remember']['below_0.9']} below 0.9x, worst {f['remember']['worst']}), "
            f"plain again {f['plain2']['geomean']} / {f['plain2']['time_weighted']}; "
            f"{len(answers)} shapes tuned ({own} on ktune's kernels)")
        for phase in ("plain", "fill", "remember", "plain2"):
            files += [f"{phase}-{p}.csv", f"{phase}-{p}.log"]
        files += [f"remember-{p}-served.csv", f"remembered-{p}.csv"]
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__),
                                                 "gemm_deployed_tables.py")] + table_runs +
                   ["--csv", f"{out}/deployed-tables.csv", "--markdown",
                    f"{out}/deployed-tables.md"], check=True)
    files += ["deployed-tables.csv", "deployed-tables.md"]
    first = []
    if os.path.exists(f"{out}/overhead.csv"):
        files += ["overhead.csv", "overhead.log"]
        with open(f"{out}/overhead.csv", newline="") as f:
            for r in csv.DictReader(f):
                first.append(f"{r['measure']} {r['precision']} {r['shape']} {r['value']} "
                             f"{r['unit']} ({r['detail']})")
    tests = []
    for program in ("ktune_gpu_vendor_tc_tests", "ktune_gpu_vendor_tests"):
        log = f"{out}/{program}.log"
        if not os.path.exists(log):
            continue
        files.append(f"{program}.log")
        text = open(log).read()
        passed = re.search(r"\[  PASSED  \] (\d+) test", text)
        failed = re.search(r"\[  FAILED  \] (\d+) test", text)
        tests.append(f"{program} {passed.group(1) if passed else 0} passed, "
                     f"{failed.group(1) if failed else 0} failed")
    files = [x for x in files if os.path.exists(f"{out}/{x}")]
    run = {"command": args.command, "commit": args.commit,
           "date": datetime.date.today().isoformat(), "device": device,
           "measures": "Tune and remember in the shipped CUDA GEMM library on the 36 held-out ViT "
                       "GEMMs, deployed / faster of cuBLAS and cuBLASLt #0 in the same run, "
                       "geomean / time-weighted: " + "; ".join(measures) +
                       ". First-call costs: " + "; ".join(first) +
                       (". GPU tests: " + "; ".join(tests) if tests else ""),
           "per_precision": per_precision, "files": files, "in_sample": False,
           "vendors": ["cublas", "cublaslt (heuristic #0)"]}
    with open(f"{out}/run.json", "w") as f:
        json.dump(run, f, indent=2)
        f.write("\n")
    print(run["measures"])


if __name__ == "__main__":
    main()
