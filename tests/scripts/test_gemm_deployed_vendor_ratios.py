#!/usr/bin/env python3
"""scripts/gemm_deployed_vendor_ratios.py on a hand-made tuned_gemm_bench log whose figures are
worked out by hand: per vendor, the faster of the calls a user makes (cuBLAS, cuBLASLt #0; the
*-top8 row left out) and the fastest including cuBLASLt's best of 8.
  test_gemm_deployed_vendor_ratios.py SCRIPT"""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gemm_deployed_vendor_ratios.py")

# Two shapes of equal FLOPs; ktune, cublas, cublaslt, cublaslt-top8 GFLOP/s.
LOG = """[1/2] transa=0;transb=0;m=10;n=10;k=10;batch=1;precision=2 kind=mma;bm=64 ktune 4.000 cublas 2.000 cublaslt 1.000 cublaslt-top8 8.000
[2/2] transa=0;transb=0;m=10;n=10;k=10;batch=2;precision=2 kind=mma;bm=64 ktune 2.000 cublas 1.000 cublaslt 4.000 cublaslt-top8 4.000
"""
# The library serving vendor calls: cuBLASLt #0 (timed by the benchmark too), cuBLAS, and a
# cuBLASLt answer the benchmark does not time (left out of "the vendor it calls").
SERVED = """[1/3] transa=0;transb=0;m=10;n=10;k=10;batch=1;precision=2 vendor=cublaslt ktune 3.000 cublas 6.000 cublaslt 4.000
[2/3] transa=0;transb=0;m=10;n=10;k=10;batch=2;precision=2 vendor=cublas ktune 2.000 cublas 2.000 cublaslt 1.000
[3/3] transa=0;transb=0;m=10;n=10;k=10;batch=3;precision=2 vendor=cublaslt;heuristic=1 ktune 9.000 cublas 1.000 cublaslt 1.000
"""


def ratio_rows(log_text):
    """The script's table for one set `s` holding log_text: {against: [cells after it]}."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "bench.log")
        with open(log, "w") as f:
            f.write(log_text)
        out = subprocess.run([sys.executable, SCRIPT, f"s={log}"], capture_output=True, text=True,
                             check=True).stdout
    return {line.split(" | ")[1]: line.split(" | ")[2:] for line in out.splitlines()
            if line.startswith("| s |")}


class VendorRatios(unittest.TestCase):
    def test_faster_vendor_leaves_out_the_top8_row(self):
        rows = ratio_rows(LOG)
        # faster of cublas / cublaslt: 2 then 4 -> ratios 2 and 0.5: geomean 1; time-weighted
        # (flops 2000 and 4000): (1000 + 1000) / (500 + 2000) = 0.8; one below 0.8x (0.5).
        self.assertEqual(rows["faster vendor"], ["2", "1.000", "0.800", "1", "0.500 |"])
        # with the top-8 row: 8 then 4 -> 0.5, 0.5; (250 + 1000) / (500 + 2000) = 0.5.
        self.assertEqual(rows["fastest incl. top-8"], ["2", "0.500", "0.500", "2", "0.500 |"])
        self.assertEqual(rows["cublaslt-top8"][:2], ["2", "0.500"])

    def test_the_vendor_it_calls_compares_each_served_shape_with_that_call(self):
        rows = ratio_rows(SERVED)
        # shape 1 against cuBLASLt (4): 0.75; shape 2 against cuBLAS (2): 1.0; shape 3 left out.
        # geomean sqrt(0.75) = 0.866; time-weighted (flops 2000, 4000):
        # (500 + 2000) / (666.67 + 2000) = 0.9375; one below 0.8x.
        self.assertEqual(rows["the vendor it calls"], ["2", "0.866", "0.938", "1", "0.750 |"])
        self.assertEqual(rows["faster vendor"][0], "3")


if __name__ == "__main__":
    unittest.main()
