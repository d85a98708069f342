#!/usr/bin/env python3
"""scripts/selector_pick_prediction.py's scoring on hand-made runs: a vendor pick is scored by
that vendor's column, an own pick only where the run served the same config, others unknown.
  test_selector_pick_prediction.py SCRIPT"""
import os
import runpy
import sys
import tempfile
import types
import unittest

# The script under test, given by CTest or found beside this checkout's scripts/.
if len(sys.argv) > 1:
    SCRIPT = sys.argv.pop(1)
else:
    SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts",
                          "selector_pick_prediction.py")
prediction = types.SimpleNamespace(**runpy.run_path(SCRIPT, run_name="prediction"))


class Prediction(unittest.TestCase):
    def test_scores_vendor_and_same_picks_only(self):
        runs = [("kind=a", 3.0, 2.0, 4.0),  # picked vendor=cublas: 2 / 4
                ("kind=a", 3.0, 2.0, 4.0),  # picked kind=a, which the run served: 3 / 4
                ("kind=a", 3.0, 2.0, 4.0),  # picked kind=b: not timed there, unknown
                ("vendor=cublas", 5.0, 5.0, 2.5)]  # picked vendor=cublaslt: 2.5 / 5
        ratios, vendor, same, unknown = prediction.score(
            runs, ["vendor=cublas", "kind=a", "kind=b", "vendor=cublaslt"])
        self.assertEqual(ratios, [0.5, 0.75, 0.5])
        self.assertEqual((vendor, same, unknown), (2, 1, 1))

    def test_reads_the_bench_lines(self):
        with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
            f.write("first call: ...\n[1/2] transa=1;transb=0;m=8;n=4;k=2;batch=1;precision=2 "
                    "kind=a ktune 1.5 cublas 2.0 cublaslt 1.0\n")
        try:
            runs = prediction.measured(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(runs, {"transa=1;transb=0;m=8;n=4;k=2;batch=1;precision=2":
                                ("kind=a", 1.5, 2.0, 1.0)})


if __name__ == "__main__":
    unittest.main()
