#!/usr/bin/env python3
"""scripts/conv_igemm/tables.py on a hand-made sweep, cuDNN CSV and frontend CSV whose figures
are worked out by hand: the fastest verified config per layer (a faster failed row and an FP32
row ignored), ratios cuDNN / ktune, geomean and time-weighted sums, the faster frontend layout,
and a one-line error for a layer the sweep lacks.
  test_conv_igemm_tables.py SCRIPT"""
import csv
import gzip
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "conv_igemm", "tables.py")

LAYERS = """network,layer,n,h,w,c,k,r,s,stride,pad
vgg16,a,1,8,8,8,8,3,3,1,1
vgg16,b,1,8,8,8,16,1,1,1,0
"""
A = "n=1;h=8;w=8;c=8;k=8;r=3;s=3;stride=1;pad=1"
B = "n=1;h=8;w=8;c=8;k=16;r=1;s=1;stride=1;pad=0"
HEADER = "device,family,problem,config,config_id,status,median_ms,perf\n"
SWEEP = HEADER + "".join(f"d,conv2d,{p},kind=cuda_igemm_mma;bm={bm},0,{st},{ms},1\n" for p, bm, st, ms in [
    (A + ";precision=2", 64, "ok", 0.4), (A + ";precision=2", 128, "ok", 0.2),
    (A + ";precision=2", 32, "wrong", 0.01), (A, 64, "ok", 0.001),
    (B + ";precision=2", 64, "ok", 0.1)])
CUDNN = """network,layer,n,h,w,c,k,r,s,stride,pad,precision,algo,math,workspace_mb,median_ms
vgg16,a,1,8,8,8,8,3,3,1,1,bf16,1,tensor_op,0,0.1
vgg16,b,1,8,8,8,16,1,1,1,0,bf16,0,default,0,0.4
"""
FRONTEND = """network,layer,n,h,w,c,k,r,s,stride,pad,precision,layout,median_ms
vgg16,a,1,8,8,8,8,3,3,1,1,bf16,nchw,0.3
vgg16,a,1,8,8,8,8,3,3,1,1,bf16,nhwc,0.05
vgg16,a,1,8,8,8,8,3,3,1,1,fp32,nhwc,0.001
vgg16,b,1,8,8,8,16,1,1,1,0,bf16,nhwc,0.1
"""


class Tables(unittest.TestCase):
    def run_tables(self, tmp, layers=LAYERS):
        paths = {}
        for name, text in [("layers.csv", layers), ("cudnn.csv", CUDNN),
                           ("frontend.csv", FRONTEND)]:
            paths[name] = os.path.join(tmp, name)
            with open(paths[name], "w") as f:
                f.write(text)
        sweep = os.path.join(tmp, "sweep.csv.gz")
        with gzip.open(sweep, "wt") as f:
            f.write(SWEEP)
        out_csv, out_md = os.path.join(tmp, "rows.csv"), os.path.join(tmp, "sum.md")
        result = subprocess.run(
            [sys.executable, SCRIPT, "--layers", paths["layers.csv"], "--sweep", sweep,
             "--cudnn", paths["cudnn.csv"], "--frontend", paths["frontend.csv"],
             "--csv", out_csv, "--markdown", out_md], capture_output=True, text=True)
        return result, out_csv, out_md

    def test_hand_worked_figures(self):
        with tempfile.TemporaryDirectory() as tmp:
            result, out_csv, out_md = self.run_tables(tmp)
            self.assertEqual(result.returncode, 0, result.stderr)
            rows = list(csv.DictReader(open(out_csv)))
            md = open(out_md).read()
        self.assertEqual([r["ktune_config"] for r in rows],
                         ["kind=cuda_igemm_mma;bm=128", "kind=cuda_igemm_mma;bm=64"])
        # a: 0.1 / 0.2 = 0.5, b: 0.4 / 0.1 = 4; geomean sqrt(2) = 1.414; time-weighted
        # (0.1 + 0.4) / (0.2 + 0.1) = 1.667; one layer below 0.8x.
        self.assertEqual([r["ratio"] for r in rows], ["0.5000", "4.0000"])
        self.assertIn("| all | 2 | 1.414 | 1.667 | 1 | 0.300 | 0.500 |", md)
        # frontend: a's faster layout nhwc 0.05 -> 0.25, b 0.1 -> 1; geomean 0.5, time-weighted
        # 0.15 / 0.3 = 0.5.
        self.assertEqual([(r["frontend_layout"], r["frontend_ratio"]) for r in rows],
                         [("nhwc", "0.2500"), ("nhwc", "1.0000")])
        self.assertIn("| all | 2 | 0.500 | 0.500 | 1 | 0.300 | 0.150 |", md)

    def test_missing_layer_is_a_one_line_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            result, _, _ = self.run_tables(tmp, LAYERS + "vgg16,c,2,8,8,8,8,3,3,1,1\n")
        self.assertNotEqual(result.returncode, 0)
        self.assertEqual(result.stderr.strip().count("\n"), 0, result.stderr)
        self.assertIn("vgg16 c n=2: no verified sweep result", result.stderr)


if __name__ == "__main__":
    unittest.main()
