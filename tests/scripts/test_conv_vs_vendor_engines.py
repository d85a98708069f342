#!/usr/bin/env python3
"""kernels/conv2d/conv_vs_vendor.py --engines on hand-made files: each layer's vendor is the
faster of the deployed run's cudnn column and the engine search's fastest fp32 row (either
layout; tf32 rows ignored), and the CSV names which won and its algorithm.
  test_conv_vs_vendor_engines.py SCRIPT"""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "kernels", "conv2d", "conv_vs_vendor.py")
sys.path.insert(0, os.path.dirname(os.path.abspath(SCRIPT)))
from conv_vs_vendor import FEATURES, key_of, layers  # noqa: E402


class Engines(unittest.TestCase):
    def test_faster_of_legacy_and_engines_wins_per_layer(self):
        all_layers = layers()
        first = key_of(all_layers[0][2])
        with tempfile.TemporaryDirectory() as tmp:
            data, dep, eng = (os.path.join(tmp, n) for n in ("data.csv", "dep.csv", "eng.csv"))
            with open(data, "w") as f:
                f.write("problem,config,config_id,status,perf\n")
                for _, _, feat in all_layers:
                    f.write(f"{key_of(feat)},kind=x,0,ok,100\n{key_of(feat)},cudnn,-1,ok,10\n")
            with open(dep, "w") as f:
                f.write(",".join(FEATURES) + ",deployed_gflops,vendor_gflops,vendor_algo\n")
                for _, _, feat in all_layers:
                    f.write(",".join(str(feat[n]) for n in FEATURES) + ",50,40,cudnn algo=GEMM\n")
            with open(eng, "w") as f:
                f.write(",".join(FEATURES) + ",precision,layout,gflops,kernels\n")
                for _, _, feat in all_layers:
                    fast = key_of(feat) == first
                    row = ",".join(str(feat[n]) for n in FEATURES)
                    f.write(f"{row},fp32,nchw,{80 if fast else 20},k_nchw;t\n")
                    f.write(f"{row},fp32,nhwc,{60 if fast else 30},k_nhwc\n")
                    f.write(f"{row},tf32,nhwc,1000,k_tf32\n")
            out_csv, out_md = os.path.join(tmp, "o.csv"), os.path.join(tmp, "o.md")
            subprocess.run([sys.executable, SCRIPT, "--data", data, "--vendor", "cudnn",
                            "--deployed", dep, "--engines", eng, "--peak-gflops", "1",
                            "--bandwidth-gbs", "1", "--csv", out_csv, "--markdown", out_md],
                           check=True, capture_output=True)
            with open(out_csv) as f:
                rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), len(all_layers))
        won = [r for r in rows if r["vendor_source"] == "cudnn-engines"]
        self.assertEqual(len(won), sum(key_of(feat) == first for _, _, feat in all_layers))
        self.assertEqual((won[0]["vendor_gflops"], won[0]["vendor_algo"]), ("80.000", "NCHW k_nchw"))
        rest = [r for r in rows if r["vendor_source"] == "cudnn"]
        self.assertEqual(len(rest) + len(won), len(rows))
        self.assertTrue(all(r["vendor_gflops"] == "40.000" and r["vendor_algo"] == "cudnn algo=GEMM"
                            for r in rest))


if __name__ == "__main__":
    unittest.main()
