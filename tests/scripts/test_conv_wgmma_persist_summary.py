#!/usr/bin/env python3
"""scripts/conv_wgmma/persist_summary.py on a hand-made bench.csv whose figures are worked out by
hand: per layer the fastest ok row of each kind (a faster `wrong` row ignored), count-weighted sums,
ratio and geomean, the worst layer first; a layer with one kind only left out; a one-line error for
a missing file.
  test_conv_wgmma_persist_summary.py SCRIPT"""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "conv_wgmma", "persist_summary.py")

HEAD = ("network,layer,count,n,h,w,c,k,r,s,stride,pad,config,status,median_ms,tflops,"
        "sample_bad,worst_err_over_bound\n")
BENCH = HEAD + "".join(f'vgg16,{layer},{count},16,8,8,64,64,3,3,1,1,"{cfg}",{status},{ms},1,0,0.1\n'
                       for layer, count, cfg, status, ms in [
                           ("a", 1, "x1", "ok", 0.4), ("a", 1, "x2", "ok", 0.2),
                           ("a", 1, "x1;persist=1", "ok", 0.1),
                           ("a", 1, "x2;persist=1", "wrong", 0.01),
                           ("b", 2, "x1", "ok", 0.1), ("b", 2, "x1;persist=1", "ok", 0.2),
                           ("c", 1, "x1", "ok", 0.3)])


class Summary(unittest.TestCase):
    def run_script(self, path):
        return subprocess.run([sys.executable, SCRIPT, path], capture_output=True, text=True)

    def test_figures(self):
        d = tempfile.mkdtemp()
        with open(os.path.join(d, "bench.csv"), "w") as f:
            f.write(BENCH)
        out = self.run_script(os.path.join(d, "bench.csv"))
        self.assertEqual(out.returncode, 0, out.stderr)
        # a: 0.2 / 0.1 = 2.0; b: 0.1 / 0.2 = 0.5 (count 2); sums 0.2 + 0.2, 0.1 + 0.4.
        self.assertIn("| vgg16 | 16 | 2 | 0.400 | 0.500 | 0.800 | 1.000 | b 0.500, a 2.000 |",
                      out.stdout)
        self.assertNotIn("| c |", out.stdout)

    def test_missing_file(self):
        out = self.run_script("/nonexistent/bench.csv")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("cannot read /nonexistent/bench.csv", out.stderr)


if __name__ == "__main__":
    unittest.main()
