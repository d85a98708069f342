#!/usr/bin/env python3
"""scripts/gemm_rounds_summary.py on a hand-made --rounds-out CSV whose figures are worked out by
hand: each side's median of rounds and fastest round against the faster vendor, the stalled
turns, a shape some side never timed left out, and one-line refusals of bad input.
  test_gemm_rounds_summary.py SCRIPT"""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gemm_rounds_summary.py")
A = "transa=0;transb=0;m=64;n=197;k=197;batch=1"
B = "transa=1;transb=0;m=197;n=197;k=64;batch=6"
C = "transa=0;transb=1;m=8;n=8;k=8;batch=1"
# ms per round. A: the library at 1 in two rounds and a stalled 8 (median 1, fastest 1), the faster
# vendor oneDNN at 1: ratio 1 either way. B: the library stalled in two rounds (median 7.7, fastest
# 0.2), oneDNN once (median 0.2): median ratio 0.2 / 7.7, fastest 0.2 / 0.2. C: no oneDNN times.
TIMES = {A: {"deployed": [1, 1, 8], "openblas": [2, 2, 2], "onednn": [1, 1, 1]},
         B: {"deployed": [0.2, 7.7, 7.7], "openblas": [0.5, 0.5, 0.5], "onednn": [0.2, 0.2, 7.7]},
         C: {"deployed": [1, 1, 1], "openblas": [1, 1, 1]}}


class RoundsSummary(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.rounds = self.path("rounds.csv")
        with open(self.rounds, "w") as f:
            f.write("problem,round,position,library,ms\n")
            for problem, sides in TIMES.items():
                for library, times in sides.items():
                    for i, ms in enumerate(times):
                        f.write(f"{problem},{i},0,{library},{ms}\n")

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def test_median_and_fastest_round_against_the_faster_vendor(self):
        r = self.run_script("--run", f"x={self.rounds}", "--csv", self.path("out.csv"))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.path("out.csv")) as f:
            rows = {row["statistic"]: row for row in csv.DictReader(f)}
        median = rows["median of rounds"]
        self.assertEqual(median["shapes"], "2")  # C left out
        self.assertAlmostEqual(float(median["geomean"]), (0.2 / 7.7) ** 0.5, places=4)
        self.assertAlmostEqual(float(median["time_weighted"]), 1.2 / 8.7, places=4)
        self.assertEqual((median["below_0.9"], median["below_0.8"]), ("1", "1"))
        fastest = rows["fastest round"]
        self.assertEqual((fastest["geomean"], fastest["time_weighted"]), ("1.0000", "1.0000"))
        self.assertEqual((fastest["below_0.9"], fastest["below_0.8"]), ("0", "0"))
        # Of all 24 turns (C's too): A's 8 (7 above 1), B's two library 7.7s and oneDNN's 7.7.
        self.assertEqual((median["stalled_turns"], median["turns"]), ("4", "24"))
        self.assertIn("| x | median of rounds | 2 | 0.161 | 0.138 | 1 | 1 | 4 of 24 | "
                      f"{B} 0.03; {A} 1.00 |", r.stdout)

    def test_bad_input_is_one_line_naming_it(self):
        bad = self.path("bad.csv")
        for content, expected in (("problem,round,library\n", "no column ms"),
                                  (f"problem,round,library,ms\n{A},0,cublas,1\n", "cublas"),
                                  (f"problem,round,library,ms\n{A},0,onednn,x\n", "'x'"),
                                  (f"problem,round,library,ms\n{A},0,onednn,-1\n", "positive"),
                                  ("problem,round,library,ms\n", "no shape")):
            with open(bad, "w") as f:
                f.write(content)
            r = self.run_script("--run", f"x={bad}")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(expected, r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        r = self.run_script("--run", self.rounds)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("expected NAME=rounds.csv", r.stderr)
        r = self.run_script("--run", f"x={self.path('missing.csv')}")
        self.assertIn("missing.csv", r.stderr)


if __name__ == "__main__":
    unittest.main()
