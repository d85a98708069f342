#!/usr/bin/env python3
"""scripts/gemm_lt_top8_gain.py on a hand-made sweep CSV whose figures are worked out by hand, and
on bad input (a one-line error, non-zero exit).
  test_gemm_lt_top8_gain.py SCRIPT"""
import os
import subprocess
import sys
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gemm_lt_top8_gain.py")

HEADER = "problem,config,status,median_ms,message,tags\n"


def rows(problem, tags, cublas, lt0, top8, winner):
    return (f"{problem},cublas,ok,{cublas},,{tags}\n{problem},cublaslt,ok,{lt0},,{tags}\n"
            f'{problem},cublaslt-top8,ok,{top8},"heuristic #{winner}: algo 1",{tags}\n')


class LtTop8Gain(unittest.TestCase):
    def test_figures(self):
        # dnn: p1 #0 = 2, top-8 (#2) = 1, cuBLAS 4: #0/best 2, vendor/best 2.
        #      p2 #0 = 1, top-8 (#0) = 1, cuBLAS 1: 1 and 1. Geomeans sqrt(2); time-weighted
        #      (2 + 1) / (1 + 1) = 1.5; beats the vendor by > 2 % and > 5 % once.
        text = HEADER + rows("p1", "vgg", 4, 2, 1, 2) + rows("p2", "resnet", 1, 1, 1, 0)
        out = subprocess.run([sys.executable, SCRIPT], input=text, capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        line = [l for l in out.stdout.splitlines() if l.startswith("| dnn |")][0]
        self.assertEqual(line, "| dnn | 2 | 1.414 | 1.414 | 1.500 | 1 | 1 | 1 0 1 0 0 0 0 0 |")
        self.assertNotIn("| large |", out.stdout)

    def test_bad_input(self):
        out = subprocess.run([sys.executable, SCRIPT], input="a,b\n1,2\n", capture_output=True,
                             text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertEqual(out.stderr.strip(), "gemm_lt_top8_gain.py: stdin is not a sweep CSV")


if __name__ == "__main__":
    unittest.main()
