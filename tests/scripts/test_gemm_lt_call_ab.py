#!/usr/bin/env python3
"""scripts/gemm_lt_call_ab.py on hand-made tuned_gemm_bench --lt-call-ab logs whose figures are
worked out by hand: met within the tolerance, missed by a slow shape, by another algorithm, by a
call not timed; a missing log is a one-line error.
  test_gemm_lt_call_ab.py SCRIPT"""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gemm_lt_call_ab.py")

KEY = "transa=1;transb=0;m={};n=128;k=4096;batch=1;precision=2"
CFG = " (algo 66, tile 13, stages 35, split-K 1, workspace 0 B)"


def line(m, lib, plan, bench, same="yes"):
    return (f"lt-call-ab {KEY.format(m)} library {lib} plan {plan} benchmark {bench} "
            f"same-algorithm {same}{CFG}\n")


def run(text, *options):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "bench.log")
        with open(log, "w") as f:
            f.write("[1/2] other lines are ignored\n" + text)
        p = subprocess.run([sys.executable, SCRIPT, *options, log], capture_output=True,
                           text=True)
    rows = [r.split(" | ") for r in p.stdout.splitlines() if r.startswith("| /")]
    return p.returncode, rows[0] if rows else None, p


class LtCallAb(unittest.TestCase):
    def test_met(self):
        # ratios benchmark / library: 0.99, 1.0 -> geomean 0.995; time-weighted
        # (0.099 + 0.2) / (0.1 + 0.2) = 0.99667; extra us: median of 1 and 0 = 0.5.
        rc, row, _ = run(line(1, 0.1, 0.1, 0.099) + line(2, 0.2, 0.2, 0.2))
        self.assertEqual(rc, 0)
        self.assertEqual(row[1:8], ["2", "0.995", "0.997", "0.995", "1.000", "0.50", "0"])

    def test_missed_by_the_geomean(self):
        rc, row, _ = run(line(1, 0.1, 0.1, 0.095) + line(2, 0.2, 0.2, 0.19))
        self.assertEqual(rc, 1)
        self.assertEqual(row[2], "0.950")
        rc, _, _ = run(line(1, 0.1, 0.1, 0.095) + line(2, 0.2, 0.2, 0.19), "--tolerance", "0.06")
        self.assertEqual(rc, 0)

    def test_missed_by_one_shape_below_the_floor(self):
        rc, row, _ = run(line(1, 0.1, 0.1, 0.08) + "".join(line(m, 0.1, 0.1, 0.1003)
                                                               for m in range(2, 40)))
        self.assertEqual(rc, 1)
        self.assertEqual(row[7], "1")

    def test_missed_by_another_algorithm_or_a_call_not_timed(self):
        rc, row, _ = run(line(1, 0.1, 0.1, 0.1, "no"))
        self.assertEqual((rc, row[8]), (1, "1"))
        rc, row, _ = run(line(1, 0.1, 0.1, 0.1) + line(2, "refused", 0.1, 0.1))
        self.assertEqual((rc, row[1], row[9]), (1, "1", "1 |"))

    def test_no_line_and_bad_input(self):
        rc, row, _ = run("lt-call-ab nothing here\n")
        self.assertEqual((rc, row[1]), (1, "0"))
        p = subprocess.run([sys.executable, SCRIPT, "/nonexistent/bench.log"],
                           capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("cannot read '/nonexistent/bench.log'", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
