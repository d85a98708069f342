#!/usr/bin/env python3
"""Whether a call slows down after another library's kernel, from tuned_gemm_bench --turns-probe
lines ("turns-probe KEY CONFIG lib-after-lib MS lib-after-lt MS lt-after-lt MS lt-after-lib MS").
Per log and per kind of pick (ktune's own kernels, shipped vendor calls): shapes, the geometric
mean of the library's time after cuBLASLt over its time after itself, the same for cuBLASLt #0
after the library over after itself, and the time-weighted forms (sums of times). A ratio above
1 is a slowdown after the other call. Lines where a call did not run ok are counted apart.
  scripts/gemm_turns_probe.py LOG... > turns-probe.md"""
import math
import re
import sys

LINE = re.compile(r"turns-probe (\S+) (\S+) lib-after-lib (\S+) lib-after-lt (\S+) "
                  r"lt-after-lt (\S+) lt-after-lib (\S+)\s*$")


def probe_times(fields):
    """The four times of a line, or None where a call did not run ok (a status word)."""
    try:
        times = [float(x) for x in fields]
    except ValueError:
        return None
    return times if all(t > 0 and math.isfinite(t) for t in times) else None


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def summarize(log):
    groups, not_ok = {}, 0
    for line in open(log):
        m = LINE.match(line)
        if not m:
            continue
        times = probe_times(m.group(3, 4, 5, 6))
        if times is None:
            not_ok += 1
            continue
        kind = "vendor calls" if m.group(2).startswith("vendor=") else "own kernels"
        groups.setdefault(kind, []).append(times)
    rows = []
    for kind in sorted(groups):
        t = groups[kind]
        lib = geomean([x[1] / x[0] for x in t])
        lt = geomean([x[3] / x[2] for x in t])
        lib_tw = sum(x[1] for x in t) / sum(x[0] for x in t)
        lt_tw = sum(x[3] for x in t) / sum(x[2] for x in t)
        rows.append(f"| {log} | {kind} | {len(t)} | {lib:.3f} | {lib_tw:.3f} | {lt:.3f} | "
                    f"{lt_tw:.3f} |")
    return rows, not_ok


def main(logs):
    if not logs:
        sys.exit(__doc__)
    print("| log | picks | shapes | library after cuBLASLt / after itself (geomean) | "
          "time-weighted | cuBLASLt after the library / after itself (geomean) | "
          "time-weighted |")
    print("|---|---|---:|---:|---:|---:|---:|")
    skipped = 0
    for log in logs:
        rows, not_ok = summarize(log)
        skipped += not_ok
        print("\n".join(rows))
    if skipped:
        print(f"\n{skipped} shapes left out: a call that did not run ok")


if __name__ == "__main__":
    main(sys.argv[1:])
