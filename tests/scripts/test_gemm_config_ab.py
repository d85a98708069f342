#!/usr/bin/env python3
"""scripts/gemm_config_ab.py on hand-made exports (two rounds a side) whose ratios are worked
out by hand: a shape missing from one round is left out, a failed row too, vendor rows first.
  test_gemm_config_ab.py SCRIPT"""
import gzip
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gemm_config_ab.py")

HEADER = "device,family,problem,config,config_id,status,median_ms\n"
P1, P2, P3 = ("m=1;n=1;k=1", "m=2;n=2;k=2", "m=3;n=3;k=3")


def export(rows):
    return HEADER + "".join(f"h200,gemm,\"{p}\",\"{c}\",{i},{s},{ms}\n" for p, c, i, s, ms in rows)


MMA, LT = "kind=mma;bm=64", "cublaslt"
# A rounds: mma 2 and 8 ms on P1 (geomean 4), 3 and 3 on P2; B rounds: 1 and 4 on P1 (2), 1 and 1
# on P2 (1). P3 only in A1: left out. cuBLASLt 1 ms everywhere but A2's P1 failed: P1 left out.
A1 = [(P1, MMA, 5, "ok", 2), (P2, MMA, 5, "ok", 3), (P3, MMA, 5, "ok", 9),
      (P1, LT, -1, "ok", 1), (P2, LT, -1, "ok", 1)]
A2 = [(P1, MMA, 5, "ok", 8), (P2, MMA, 5, "ok", 3), (P1, LT, -1, "failed", 0),
      (P2, LT, -1, "ok", 1)]
B1 = [(P1, MMA, 5, "ok", 1), (P2, MMA, 5, "ok", 1), (P1, LT, -1, "ok", 1), (P2, LT, -1, "ok", 1)]
B2 = [(P1, MMA, 5, "ok", 4), (P2, MMA, 5, "ok", 1), (P1, LT, -1, "ok", 1), (P2, LT, -1, "ok", 1)]


class ConfigAb(unittest.TestCase):
    def test_ratios_per_config(self):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, rows in (("a1", A1), ("a2", A2), ("b1", B1), ("b2", B2)):
                path = os.path.join(tmp, f"{name}.csv.gz")
                with gzip.open(path, "wt") as f:
                    f.write(export(rows))
                paths.append(path)
            out = subprocess.run([sys.executable, SCRIPT, "--a", *paths[:2], "--b", *paths[2:]],
                                 capture_output=True, text=True, check=True).stdout
        lines = [line for line in out.splitlines() if line.startswith("| `")]
        # cuBLASLt: P2 alone, 1 / 1; repeat 1 / 1. mma: P1 4 / 2 = 2, P2 3 / 1 = 3: geomean
        # sqrt(6) = 2.449; A's first / last round: P1 2 / 8, P2 3 / 3: sqrt(0.25) = 0.5.
        self.assertEqual(lines[0], "| `cublaslt` | vendor | 1 | 1.000 | 1.000 | 1.000 | 1.000 |")
        self.assertEqual(lines[1], f"| `{MMA}` | own | 2 | 2.449 | 2.000 | 3.000 | 0.500 |")
        self.assertEqual(len(lines), 2)


if __name__ == "__main__":
    unittest.main()
