#!/usr/bin/env python3
"""scripts/gemm_deployed_pick_compare.py on two hand-made tuned_gemm_bench CSVs whose figures are
worked out by hand, and on bad input (a one-line error, non-zero exit).
  test_gemm_deployed_pick_compare.py SCRIPT"""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gemm_deployed_pick_compare.py")

HEADER = "problem,config,status,deployed_gflops,vendor_gflops\n"
# p1: vendor=cublaslt in both (0.5 -> 1.0); p2: the pick changes (1.0 -> 2.0); p3 only old.
OLD = HEADER + "p1,vendor=cublaslt,ok,1,2\np2,kind=mma,ok,2,2\np3,kind=mma,ok,1,1\n"
NEW = HEADER + "p1,vendor=cublaslt,ok,2,2\np2,vendor=cublas,ok,4,2\n"


class PickCompare(unittest.TestCase):
    def run_on(self, old, new):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, text in (("old.csv", old), ("new.csv", new)):
                paths.append(os.path.join(tmp, name))
                with open(paths[-1], "w") as f:
                    f.write(text)
            return subprocess.run([sys.executable, SCRIPT] + paths, capture_output=True,
                                  text=True)

    def test_figures(self):
        out = self.run_on(OLD, NEW)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("| same pick | 1 | 0.500 | 1.000 |", out.stdout)
        self.assertIn("| changed pick | 1 | 1.000 | 2.000 |", out.stdout)
        self.assertIn("| both vendor=cublaslt | 1 | 0.500 | 1.000 |", out.stdout)
        # vendor 2 -> 2 (p1) and 2 -> 2 (p2): 1.000 over the 2 shared shapes.
        self.assertIn("vendor new / old run (geomean over 2 shapes): 1.000", out.stdout)

    def test_bad_input(self):
        for old in ("a,b\n1,2\n", "problem,status\np1,ok\n", "",
                    HEADER + "p1,vendor=cublaslt,ok,x,2\n"):
            out = self.run_on(old, NEW)
            self.assertNotEqual(out.returncode, 0, old)
            self.assertIn("not a tuned_gemm_bench CSV", out.stderr)
            self.assertEqual(len(out.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
