#!/usr/bin/env python3
"""scripts/gemm_precision_ratios.py on a hand-made export whose figures are worked out by hand:
the best config of the space per shape against the fastest vendor row, and --refuse-tf32-copies
(the wgmmatf32 rows of shapes whose operands that kind copies K-major are left out); cuBLASLt's
answer rows count as vendor rows; 16-bit C is a group of its own.
  test_gemm_precision_ratios.py SCRIPT"""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gemm_precision_ratios.py")

HEADER = "device,family,problem,config,config_id,status,median_ms,tags\n"
TN = "transa=1;transb=0;m=10;n=10;k=16;batch=1;precision=1"  # K-major, k % 4 == 0: no copy
NN = "transa=0;transb=0;m=10;n=10;k=16;batch=1;precision=1"  # A MN-major: copied
ROWS = [  # problem, config, median ms
    (TN, "kind=wgmmatf32;bm=128", 1.0), (TN, "kind=mma;bm=64", 2.0), (TN, "cublas", 2.0),
    (NN, "kind=wgmmatf32;bm=128", 1.0), (NN, "kind=mma;bm=64", 4.0), (NN, "cublas", 2.0),
    (NN, "cublaslt", 4.0), (NN, "kind=mma;bm=128", 8.0),  # the slower mma config: not the best
]


def script_output(rows, *options):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "store.csv")
        with open(path, "w") as f:
            f.write(HEADER)
            for problem, config, ms in rows:
                config_id = -1 if ";heuristic=" in config else 0  # as ktune export writes them
                f.write(f"d,gemm,{problem},{config},{config_id},ok,{ms},large\n")
        return subprocess.run([sys.executable, SCRIPT, path, *options], capture_output=True,
                              text=True, check=True).stdout


def run(*options, rows=ROWS):
    out = script_output(rows, *options)
    return {line.split(" | ")[0][2:]: line.split(" | ")[1:] for line in out.splitlines()
            if line.startswith("| ") and not line.startswith("| against") and "---" not in line
            and "×" not in line}


class PrecisionRatios(unittest.TestCase):
    def test_best_of_the_space_against_each_vendor(self):
        rows = run()
        # Best config 1 ms on both shapes; fastest vendor 2 and 2: ratios 2, 2.
        self.assertEqual(rows["fastest vendor"], ["2", "2.000", "2.000", "0 |"])
        self.assertEqual(rows["cublaslt"], ["1", "4.000", "4.000", "0 |"])

    def test_refusing_the_copies_drops_only_the_copied_shapes_wgmmatf32_rows(self):
        rows = run("--refuse-tf32-copies")
        # TN keeps wgmmatf32 (1 ms, ratio 2); NN's best is then mma at 4 ms against cuBLAS's 2:
        # 0.5. Geomean 1; time-weighted (2 + 2) / (1 + 4) = 0.8; one below 0.8x.
        self.assertEqual(rows["fastest vendor"], ["2", "1.000", "0.800", "1 |"])


    def test_cublaslt_answers_are_vendor_rows_not_configs(self):
        # cuBLASLt's answer #1 (0.5 ms, config_id -1) on TN is the fastest vendor there, not the
        # space's best: TN 0.5 / 1 = 0.5, NN 2 / 1 = 2; geomean 1, time-weighted 2.5 / 2.
        rows = run(rows=ROWS + [(TN, "cublaslt;heuristic=1", 0.5)])
        self.assertEqual(rows["fastest vendor"], ["2", "1.000", "1.250", "1 |"])

    def test_sixteen_bit_c_is_its_own_group(self):
        c16 = [(p + ";c16=1", c, ms / 2) for p, c, ms in ROWS if "wgmmatf32" not in c]
        out = script_output(ROWS + c16)
        self.assertIn("### large, tf32\n", out)
        self.assertIn("### large, tf32, C tf32\n", out)


if __name__ == "__main__":
    unittest.main()
