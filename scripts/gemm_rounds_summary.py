#!/usr/bin/env python3
"""The CPU GEMM library against the faster vendor from tuned_gemm_bench's per-round times
(--rounds-out: problem, round, position, library, ms; library is deployed, openblas or onednn),
each side's time taken two ways: the median of its rounds (what the bench's own CSV reports) and
its fastest round. On the 2-core guest a turn can stall: a few milliseconds added to every call
of the turn (a multithreaded call waits for a vCPU the host is not running), which makes a
0.2 ms call take 7.7 ms; the median of three rounds keeps such a turn when two of them stall, the
fastest round does not (noise that only adds time leaves the minimum closest to the call's own
speed). Both are reported, with the stalled turns counted: a turn STALL_MS or more above its
side's fastest round and at least twice it.
  scripts/gemm_rounds_summary.py --run NAME=rounds.csv [--run ...] [--markdown OUT.md]
      [--csv OUT.csv] [--worst N]
"""
import argparse
import collections
import csv
import math
import statistics
import sys

SIDES = ("deployed", "openblas", "onednn")
STALL_MS = 5.0


def fail(message):
    sys.exit(f"gemm_rounds_summary.py: {message}")


def load(path):
    """{problem: {library: [ms per round]}} of one rounds CSV."""
    times = collections.defaultdict(lambda: collections.defaultdict(list))
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = {"problem", "round", "library", "ms"} - set(reader.fieldnames or [])
            if missing:
                fail(f"{path}: no column {', '.join(sorted(missing))} (not a --rounds-out CSV)")
            for line, row in enumerate(reader, start=2):
                if row["library"] not in SIDES:
                    fail(f"{path}:{line}: library '{row['library']}' is none of {SIDES}")
                try:
                    ms = float(row["ms"])
                except ValueError:
                    fail(f"{path}:{line}: ms '{row['ms']}' is not a number")
                if not (ms > 0 and math.isfinite(ms)):
                    fail(f"{path}:{line}: ms {row['ms']} is not a positive time")
                times[row["problem"]][row["library"]].append(ms)
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    return times


def summarize(times, statistic, worst):
    """Geomean, time-weighted ratio, shapes below 0.9x / 0.8x and the worst shapes of one set."""
    ratios, vendor_sum, deployed_sum = [], 0.0, 0.0
    for problem, sides in times.items():
        if any(not sides.get(s) for s in SIDES):
            continue  # a shape some side never timed (a cut run): not scored
        deployed = statistic(sides["deployed"])
        vendor = min(statistic(sides["openblas"]), statistic(sides["onednn"]))
        ratios.append((vendor / deployed, problem))
        vendor_sum += vendor
        deployed_sum += deployed
    if not ratios:
        return None
    ratios.sort()
    return {
        "shapes": len(ratios),
        "geomean": math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios)),
        "time_weighted": vendor_sum / deployed_sum,
        "below_0.9": sum(r < 0.9 for r, _ in ratios),
        "below_0.8": sum(r < 0.8 for r, _ in ratios),
        "worst": ratios[:worst],
    }


def stalls(times):
    """Turns STALL_MS or more above their side's fastest round and at least twice it."""
    count = total = 0
    for sides in times.values():
        for rounds in sides.values():
            fastest = min(rounds)
            total += len(rounds)
            count += sum(ms - fastest >= STALL_MS and ms >= 2 * fastest for ms in rounds)
    return count, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", action="append", required=True, help="NAME=rounds CSV")
    ap.add_argument("--markdown")
    ap.add_argument("--csv")
    ap.add_argument("--worst", type=int, default=3)
    a = ap.parse_args()
    rows = []
    for run in a.run:
        name, sep, path = run.partition("=")
        if not sep or not name or not path:
            fail(f"--run '{run}': expected NAME=rounds.csv")
        times = load(path)
        stalled, turns = stalls(times)
        for label, statistic in (("median of rounds", statistics.median), ("fastest round", min)):
            s = summarize(times, statistic, a.worst)
            if s is None:
                fail(f"{path}: no shape with all of {', '.join(SIDES)} timed")
            rows.append((name, label, s, stalled, turns))
    lines = ["| set | each side's time | shapes | deployed / faster vendor (geomean) | "
             "time-weighted | < 0.9× | < 0.8× | stalled turns | worst |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for name, label, s, stalled, turns in rows:
        worst = "; ".join(f"{p} {r:.2f}" for r, p in s["worst"])
        lines.append(f"| {name} | {label} | {s['shapes']} | {s['geomean']:.3f} | "
                     f"{s['time_weighted']:.3f} | {s['below_0.9']} | {s['below_0.8']} | "
                     f"{stalled} of {turns} | {worst} |")
    text = "\n".join(lines) + "\n"
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["set", "statistic", "shapes", "geomean", "time_weighted", "below_0.9",
                        "below_0.8", "stalled_turns", "turns"])
            for name, label, s, stalled, turns in rows:
                w.writerow([name, label, s["shapes"], f"{s['geomean']:.4f}",
                            f"{s['time_weighted']:.4f}", s["below_0.9"], s["below_0.8"],
                            stalled, turns])


if __name__ == "__main__":
    main()
