#!/usr/bin/env python3
"""scripts/selector_pick_prediction.py's scoring on hand-made runs: a vendor pick is scored by
that vendor's column, an own pick only where the run served the same config, others unknown;
the GPU bench log and the CPU deployed CSV read alike.
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


def measured(suffix, text):
    """prediction.measured of a file holding text."""
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False) as f:
        f.write(text)
    try:
        return prediction.measured(f.name)
    finally:
        os.unlink(f.name)


class Prediction(unittest.TestCase):
    def test_scores_vendor_and_same_picks_only(self):
        v = lambda cublas, cublaslt: {"cublas": cublas, "cublaslt": cublaslt}  # noqa: E731
        runs = [("kind=a", 3.0, v(2.0, 4.0)),  # picked vendor=cublas: 2 / 4
                ("kind=a", 3.0, v(2.0, 4.0)),  # picked kind=a, which the run served: 3 / 4
                ("kind=a", 3.0, v(2.0, 4.0)),  # picked kind=b: not timed there, unknown
                ("vendor=cublas", 5.0, v(5.0, 2.5))]  # picked vendor=cublaslt: 2.5 / 5
        ratios, vendor, same, unknown, weighted = prediction.score(
            runs, ["vendor=cublas", "kind=a", "kind=b", "vendor=cublaslt"], [8.0, 8.0, 8.0, 10.0])
        self.assertEqual(ratios, [0.5, 0.75, 0.5])
        self.assertEqual((vendor, same, unknown), (2, 1, 1))
        # vendor times 8/4 + 8/4 + 10/5 = 6; picked 8/2 + 8/3 + 10/2.5 = 10.667
        self.assertAlmostEqual(weighted, 6 / (4 + 8 / 3 + 4))

    def test_reads_a_cpu_deployed_csv(self):
        runs = measured(".csv", "problem,config,status,deployed_gflops,openblas_gflops,"
                        "onednn_gflops\n"
                        '"transa=1;transb=0;m=8;n=4;k=2;batch=1",vendor=onednn,ok,3.5,2.0,3.0\n'
                        '"transa=0;transb=0;m=8;n=4;k=2;batch=1",kind=a,failed,0,2.0,3.0\n')
        self.assertEqual(runs, {"transa=1;transb=0;m=8;n=4;k=2;batch=1":
                                ("vendor=onednn", 3.5, {"openblas": 2.0, "onednn": 3.0})})
        self.assertEqual(prediction.flops("transa=1;transb=0;m=8;n=4;k=2;batch=3"), 384.0)

    def test_reads_the_bench_lines(self):
        runs = measured(".log", "first call: ...\n[1/2] transa=1;transb=0;m=8;n=4;k=2;batch=1;"
                        "precision=2 kind=a ktune 1.5 cublas 2.0 cublaslt 1.0\n")
        self.assertEqual(runs, {"transa=1;transb=0;m=8;n=4;k=2;batch=1;precision=2":
                                ("kind=a", 1.5, {"cublas": 2.0, "cublaslt": 1.0})})


if __name__ == "__main__":
    unittest.main()
