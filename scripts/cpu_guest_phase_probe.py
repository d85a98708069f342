#!/usr/bin/env python3
"""Probes a guest's slow phases: repeats an idle gap, then a short window of OpenBLAS SGEMMs
(numpy, 512 x 784 x 256, the thread count OPENBLAS_NUM_THREADS gives), and prints each window's
median GFLOP/s with every CPU's steal ticks (/proc/stat, USER_HZ) over the window. A bench's rounds
see the same shape of timing (a gap before each library's runs), so the windows show how often,
for how long and how deep a guest slows such calls, and whether its steal time says so.
  scripts/cpu_guest_phase_probe.py GAP_S WORK_S DURATION_S
Debian's python3 with python3-numpy (OpenBLAS through libblas.so.3); pin with taskset to probe one
CPU at a time."""
import sys
import time

import numpy as np


def steal_ticks():
    return [int(line.split()[8]) for line in open("/proc/stat", encoding="ascii")
            if line.startswith("cpu") and line[3].isdigit()]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    gap, work, duration = (float(x) for x in sys.argv[1:])
    m, n, k = 512, 784, 256
    rng = np.random.default_rng(0)
    a = rng.random((m, k), dtype=np.float32)
    b = rng.random((k, n), dtype=np.float32)
    end = time.time() + duration
    while time.time() < end:
        time.sleep(gap)
        before, start, times = steal_ticks(), time.perf_counter(), []
        while time.perf_counter() - start < work:
            t = time.perf_counter()
            a @ b  # pylint: disable=pointless-statement
            times.append(time.perf_counter() - t)
        after = steal_ticks()
        times.sort()
        gflops = 2 * m * n * k / times[len(times) // 2] / 1e9
        print(f"{gflops:7.1f} median GFLOP/s over {len(times)} steal "
              f"{[y - x for x, y in zip(before, after)]}", flush=True)


if __name__ == "__main__":
    main()
