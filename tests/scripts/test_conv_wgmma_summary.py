#!/usr/bin/env python3
"""scripts/conv_wgmma/summarize.py on a hand-made run whose figures are worked out by hand: the
fastest ok config per layer (a faster `wrong` row ignored), the faster cuDNN layout, ratios cuDNN /
wgmma, geomean and count-weighted sums, a refused layer listed but not scored, and a one-line error
for a missing file.
  test_conv_wgmma_summary.py SCRIPT"""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "conv_wgmma", "summarize.py")

BENCH = """network,layer,count,n,h,w,c,k,r,s,stride,pad,config,status,median_ms,tflops,sample_bad,worst_err_over_bound
vgg16,a,1,1,8,8,64,64,3,3,1,1,"x1",ok,0.2,1,0,0.1
vgg16,a,1,1,8,8,64,64,3,3,1,1,"x2",ok,0.1,1,0,0.1
vgg16,a,1,1,8,8,64,64,3,3,1,1,"x3",wrong,0.01,1,5,9
vgg16,b,2,1,8,8,64,64,1,1,1,0,"x1",ok,0.5,1,0,0.1
vgg16,c,1,1,8,8,3,64,3,3,1,1,"x1",refused: c % 64 != 0,,,,
"""
CUDNN = """network,layer,n,h,w,c,k,r,s,stride,pad,precision,layout,median_ms,gflops,kernels
vgg16,a,1,8,8,64,64,3,3,1,1,bf16,nchw,0.3,1,k
vgg16,a,1,8,8,64,64,3,3,1,1,bf16,nhwc,0.2,1,k
vgg16,b,1,8,8,64,64,1,1,1,0,bf16,nhwc,0.25,1,k
vgg16,c,1,8,8,3,64,3,3,1,1,bf16,nhwc,0.1,1,k
"""
COMMITTED_HEADER = ("precision,ktune,sample,network,layer,count,h,w,c,k,r,s,stride,pad,n,"
                    "ktune_config,ktune_ms,vendor_algo,vendor_ms,status,ratio,torch_ms,torch_layout\n")
COMMITTED = COMMITTED_HEADER + "".join(
    f"bf16,oracle,in-sample,vgg16,{l},{cnt},8,8,{c},64,3,3,1,1,1,cfg,{km},algo,{vm},ok,1,,\n"
    for l, cnt, c, km, vm in [("a", 1, 64, 0.4, 0.15), ("b", 2, 64, 1.0, 0.5), ("c", 1, 3, 0.1, 0.1)])


class Summary(unittest.TestCase):
    def run_script(self, files, *extra):
        d = tempfile.mkdtemp()
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        return d, subprocess.run([sys.executable, SCRIPT, d, os.path.join(d, "committed.csv"),
                                  *extra], capture_output=True, text=True)

    def test_figures(self):
        d, r = self.run_script({"bench.csv": BENCH, "cudnn-torch.csv": CUDNN,
                                "committed.csv": COMMITTED})
        self.assertEqual(r.returncode, 0, r.stderr)
        # a: 0.2 / 0.1 = 2; b: 0.25 / 0.5 = 0.5; geomean 1; weighted (0.2 + 2·0.25) / (0.1 + 2·0.5).
        self.assertIn("layers run: 2 (refused: 1", r.stdout)
        self.assertIn("geomean cuDNN/wgmma (>1: wgmma faster): 1.000", r.stdout)
        self.assertIn(f"time-weighted (sum count*cudnn / sum count*wgmma): {0.7 / 1.1:.3f}",
                      r.stdout)
        # Against min(torch, committed row): a min(0.2, 0.15) / 0.1 = 1.5, b 0.5: sqrt(0.75).
        self.assertIn(f"committed ktune cuDNN row): {0.75 ** 0.5:.3f}", r.stdout)
        rows = {row["layer"]: row for row in csv.DictReader(open(os.path.join(d, "per-layer.csv")))}
        self.assertEqual(rows["a"]["wgmma_config"], "x2")
        self.assertEqual(rows["a"]["cudnn_layout"], "nhwc")
        self.assertEqual(rows["b"]["ratio"], "0.5000")
        self.assertTrue(rows["c"]["wgmma_config"].startswith("refused"))

    def test_missing_file(self):
        _, r = self.run_script({"bench.csv": BENCH, "committed.csv": COMMITTED})
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cannot read", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
