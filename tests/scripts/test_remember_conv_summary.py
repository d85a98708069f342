#!/usr/bin/env python3
"""scripts/conv_deploy/remember_conv_summary.py on a hand-made run directory of
scripts/conv_deploy/gpu_remember_conv.sh whose figures are worked out by hand: the passes' table
rows copied, layers below 0.9x / 0.8x, the layers on ktune's kernels (remembered: the cache's
answer, not the bench's pick column), the layers the cache changed, the first-call costs, the GPU
tests' count, the GPU from nvidia-smi.txt; a missing pair or pass is said, not filled in.
  test_remember_conv_summary.py SCRIPT"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "conv_deploy", "remember_conv_summary.py")
HEADER = "network,batch,n,h,w,c,k,r,s,stride,pad,deployed_gflops,vendor_gflops,layer,config"
OWN = "kind=cuda_igemm_mma;bm=64"


def row(layer, h, deployed, vendor, config):
    return f"resnet50,1,1,{h},{h},64,64,3,3,1,1,{deployed},{vendor},{layer},{config}"


def md(geo, tw):
    return ("| network | batch | layers | a | b | worst |\n|---|---|---|---|---|---|\n"
            f"| all | 0 | 3 | {geo} | {tw} | conv3 0.700 |\n")


class Summary(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        # The pick column: conv1 own (1.0x), conv2 cuDNN (0.85x), conv3 cuDNN (0.7x).
        plain = [HEADER, row("conv1", 8, 100, 100, OWN), row("conv2", 10, 85, 100, "vendor=cudnn"),
                 row("conv3", 12, 70, 100, "vendor=cudnn")]
        # Remembered: the cache serves conv3 on ktune's kernel (now 0.95x); conv2 not in it.
        remembered = [HEADER, row("conv1", 8, 100, 100, OWN),
                      row("conv2", 10, 85, 100, "vendor=cudnn"),
                      row("conv3", 12, 95, 100, "vendor=cudnn")]
        for name, lines in (("plain", plain), ("remembered", remembered)):
            self.write(f"{name}-bf16-trained-vgg16.csv", lines)
        self.write("plain-bf16-trained-vgg16.md", [md("0.843", "0.800")])
        self.write("remembered-bf16-trained-vgg16.md", [md("0.931", "0.900")])
        self.write("fill-bf16-trained-vgg16.log",
                   ["remember first call: n=1;h=8: 10.0 ms", "remember first call: n=1;h=10: 30.0 ms",
                    "remember first call: n=1;h=12: 20.0 ms", "other line"])
        self.write("gpu-tests.log", ["[  PASSED  ] 6 tests.", "[  PASSED  ] 4 tests."])
        self.write("nvidia-smi.txt", ["name, driver_version, memory.total",
                                      "NVIDIA H200, 580.1, 143771 MiB"])
        db = sqlite3.connect(os.path.join(self.dir, "remember-bf16-trained-vgg16.sqlite"))
        db.executescript(
            "CREATE TABLE answers(device TEXT, library TEXT, problem TEXT, family TEXT, config TEXT,"
            " created_at TEXT); CREATE TABLE timings(device TEXT, library TEXT, problem TEXT,"
            " family TEXT, config TEXT, median_ms REAL, min_ms REAL, max_ms REAL, mad_ms REAL,"
            " reps INTEGER, created_at TEXT);")
        key = "n=1;h={0};w={0};c=64;k=64;r=3;s=3;stride=1;pad=1;precision=2;out16=1"
        db.execute("INSERT INTO answers VALUES('gpu', 'conv2d/cuda-bf16/x', ?, 'conv2d', ?, '')",
                   (key.format(12), OWN))
        db.execute("INSERT INTO answers VALUES('gpu', 'conv2d/cuda-bf16/x', ?, 'conv2d', ?, '')",
                   (key.format(8), OWN))
        for h, config, ms in ((12, OWN, 0.01), (12, "vendor=cudnn", 0.02), (8, OWN, 0.01)):
            db.execute("INSERT INTO timings VALUES('gpu', 'conv2d/cuda-bf16/x', ?, 'conv2d', ?, ?,"
                       " ?, ?, 0, 5, '')", (key.format(h), config, ms, ms, ms))
        db.commit()
        db.close()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, lines):
        with open(os.path.join(self.dir, name), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")

    def run_script(self):
        return subprocess.run([sys.executable, SCRIPT, self.dir, "--commit", "abc1234",
                               "--seconds", "300"], capture_output=True, text=True, check=True)

    def test_tables(self):
        self.run_script()
        with open(os.path.join(self.dir, "summary.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("NVIDIA H200 (lent, driver 580.1, 143771 MiB)", text)
        self.assertIn("10 passed, 0 failed", text)  # the conv and the GEMM programs
        self.assertIn("- plain: 3 layers: **0.843 geomean, 0.800 time-weighted**; below 0.9x 2, "
                      "below 0.8x 1; on ktune's kernels 1 of 3; worst resnet50 conv3 b1 0.700",
                      text)
        self.assertIn("- remembered (steady state): 3 layers: **0.931 geomean, 0.900 "
                      "time-weighted**; below 0.9x 1, below 0.8x 0; on ktune's kernels 2 of 3",
                      text)
        self.assertIn("- plain again: missing (no table)", text)
        self.assertIn("serves another config than the selector's pick: 1 of 3", text)
        self.assertIn("empty cache (candidates timed): 3 layers: median 20.0 ms, min 10.0, "
                      "max 30.0", text)
        self.assertIn("answer in the cache: none logged", text)
        # The other pair ran nothing: said, not filled in.
        self.assertIn("## bf16, trained on resnet50, run on vgg16 (held out)\n\n- the cache: "
                      "missing", text)

    def test_cache_becomes_csv_and_a_rerun_reads_it(self):
        self.run_script()
        self.assertFalse(os.path.exists(os.path.join(self.dir,
                                                     "remember-bf16-trained-vgg16.sqlite")))
        with open(os.path.join(self.dir, "remember-bf16-trained-vgg16.csv"), encoding="utf-8") as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "problem,config,median_ms,reps,winner")
        self.assertEqual(len(lines), 4)  # conv1's row, conv3's two
        self.assertIn(",vendor=cudnn,0.020000,5,0", "\n".join(lines))
        self.run_script()
        with open(os.path.join(self.dir, "summary.md"), encoding="utf-8") as f:
            self.assertIn("on ktune's kernels 2 of 3", f.read())

    def test_run_json(self):
        self.run_script()
        with open(os.path.join(self.dir, "run.json"), encoding="utf-8") as f:
            run = json.load(f)
        self.assertEqual(run["commit"], "abc1234")
        self.assertFalse(run["in_sample"])
        self.assertIn("0.931 geomean", run["measures"])
        self.assertIn("gpu-tests.log", run["files"])
        self.assertNotIn("run.json", run["files"])


if __name__ == "__main__":
    unittest.main()
