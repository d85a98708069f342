#!/usr/bin/env python3
"""scripts/gemm_out16_compare.py on a hand-made scripts/gpu_gemm_out16.sh directory whose figures
are worked out by hand: two shapes, ktune twice and cuBLAS 1.25x faster with 16-bit C, cuBLASLt
unchanged; geomean and time-weighted speedups, the per-output deployed / vendor ratios, a shape
missing from one run left out, and the run.json draft listing the files.
  test_gemm_out16_compare.py SCRIPT"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gemm_out16_compare.py")

HEADER = ("problem,networks,config,status,rel_error,deployed_ms,deployed_gflops,vendor,vendor_ms,"
          "vendor_gflops,openblas_ms,openblas_gflops,openblas_kernel,onednn_ms,onednn_gflops,"
          "onednn_kernel,message")
P1 = "transa=0;transb=0;m=1000;n=1000;k=500;batch=1;precision=2"  # 1 GFLOP
P2 = "transa=0;transb=0;m=1000;n=1000;k=1500;batch=1;precision=2"  # 3 GFLOP
P3 = "transa=1;transb=0;m=10;n=10;k=10;batch=1;precision=2"  # only in the 16-bit run


def row(problem, deployed_ms, vendor_ms):
    return f"{problem},,vendor=cublas,ok,1e-3,{deployed_ms},,cublas,{vendor_ms},,,,,,,,\n"


def log_line(i, problem, ktune_ms, cublas_ms, lt_ms):
    gflop = 1.0 if problem == P1 else 3.0 if problem == P2 else 2e-6
    g = lambda ms: f"{gflop / (ms * 1e-3):.3f}"
    return (f"[{i}/3] {problem} vendor=cublas ktune {g(ktune_ms)} cublas {g(cublas_ms)} "
            f"cublaslt {g(lt_ms)}\n")


class Compare(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        files = {
            "deployed-large-bf16-c32.csv": HEADER + "\n" + row(P1, 2.0, 1.0) + row(P2, 6.0, 3.0),
            "deployed-large-bf16-c16.csv":
                HEADER + "\n" + row(P1, 1.0, 0.8) + row(P2, 3.0, 2.4) + row(P3, 1.0, 1.0),
            "bench-large-bf16-c32.log": "first call: ignored\n" + log_line(1, P1, 2.0, 1.0, 4.0) +
                                        log_line(2, P2, 6.0, 3.0, 4.0),
            "bench-large-bf16-c16.log": log_line(1, P1, 1.0, 0.8, 4.0) +
                                        log_line(2, P2, 3.0, 2.4, 4.0) +
                                        log_line(3, P3, 1.0, 1.0, 1.0),
        }
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self, *args):
        p = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def rows(self):
        out = self.run_script(self.tmp.name)
        return [[c.strip() for c in r.strip("|").split("|")] for r in out.splitlines()
                if r.startswith("| large")]

    def test_speedups_per_library(self):
        rows = {(r[1]): r for r in self.rows() if not r[1] in ("16-bit", "FP32")}
        self.assertEqual(rows["ktune::gemm_ex"][2:], ["2", "2.000", "2.000"])
        self.assertEqual(rows["fastest vendor"][2:], ["2", "1.250", "1.250"])
        self.assertEqual(rows["cublas"][2:], ["2", "1.250", "1.250"])
        self.assertEqual(rows["cublaslt"][2:], ["2", "1.000", "1.000"])

    def test_deployed_over_vendor_per_output(self):
        rows = {(r[1]): r for r in self.rows() if r[1] in ("16-bit", "FP32")}
        # FP32 C: vendor / deployed 0.5 on both shapes; 16-bit: 0.8 on both, and P3's 1.0.
        self.assertEqual(rows["FP32"][2:], ["2", "0.500", "0.500"])
        self.assertEqual(rows["16-bit"][2], "3")
        self.assertAlmostEqual(float(rows["16-bit"][3]), (0.8 * 0.8 * 1.0) ** (1 / 3), places=3)
        self.assertAlmostEqual(float(rows["16-bit"][4]), (0.8 + 2.4 + 1.0) / 5.0, places=3)

    def test_run_json_draft_lists_the_files(self):
        draft = json.loads(self.run_script("--run-json", self.tmp.name))
        self.assertIn("deployed-large-bf16-c16.csv", draft["files"])
        self.assertIn("held out", draft["in_sample"])
        for key in ("command", "commit", "date", "device", "measures", "vendors"):
            self.assertIn(key, draft)

    def test_bad_arguments_exit_nonzero(self):
        p = subprocess.run([sys.executable, SCRIPT, "/nonexistent-dir"], capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("usage", p.stderr)


if __name__ == "__main__":
    unittest.main()
