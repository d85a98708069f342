#!/usr/bin/env python3
"""scripts/conv_deploy/callmatch_summary.py on a hand-made run directory: the in-sample table's
all-layers row and served / per-half lines are copied, a held-out bench cut short is summarized
from its log's per-layer lines (geomeans worked out by hand), a missing one says "not run", the
deployed searches and the GPU tests are counted, and run.json has the keys results/ requires.
  test_callmatch_summary.py SCRIPT"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "conv_deploy", "callmatch_summary.py")

TABLE = """Device `h200`, bf16: ...

| network | batch | layers | deployed / vendor (geomean) | deployed / vendor (time-weighted) | worst layer (deployed / vendor) | oracle / vendor (geomean) | deployed % of oracle (geomean) |
|---|---:|---:|---:|---:|---|---:|---:|
| all | 0 | 66 | 1.118 | 1.043 | conv4_5 0.610 | – | – |
| vgg16 | 1 | 9 | 0.900 | 0.800 | conv2_1 0.700 | – | – |

Served by ktune's own kernels (the selector's pick is not a vendor call): 28 of 66 layers, 5.3 % of the deployed time (each layer times its count).
Own-kernel layers (measured on both sides): 28, deployed / vendor 1.202 (geomean), 1.100 (time-weighted).
Vendor-served layers (the deployed vendor call) (measured on both sides): 38, deployed / vendor 0.950 (geomean), 0.990 (time-weighted).
"""
# Two own-kernel layers at 2.0 and 0.5 (geomean 1.0), one vendor layer at 0.25.
LOG = """resnet50 conv2_1 n=1: deployed 200.0 (kind=cuda_igemm_wgmma;tp=8) vendor 100.0 oracle 0.0 GFLOP/s [x]
resnet50 conv2_2 n=1: deployed 50.0 (kind=cuda_igemm_mma;bm=64) vendor 100.0 oracle 0.0 GFLOP/s [x]
resnet50 conv2_3 n=1: deployed 25.0 (vendor=cudnn) vendor 100.0 oracle 0.0 GFLOP/s [x]
"""
SEARCH = """ktune::conv2d_ex cudnn n=1 56x56 c=64 k=64 3x3/1 pad=1 align=16: legacy 0.1 ms; engines 0.05 ms; fp32-output engines -1.0000 ms none ran; kept 16-bit-output engine=58 config=B#1 (workspace 0 B)
ktune::conv2d_ex cudnn n=1 7x7 c=512 k=512 3x3/1 pad=1 align=16: legacy 0.1 ms; engines 0.2 ms; fp32-output engines -1.0000 ms none ran; kept legacy algo=1 (workspace 0 B)
ktune::conv2d_ex cudnn n=1 14x14 c=256 k=256 3x3/1 pad=1 align=16: legacy 0.1 ms; engines 0.2 ms; fp32-output engines 0.05 ms; kept fp32-output engine=7 config=A#0 (workspace 0 B)
"""
TESTS = "[  PASSED  ] 9 tests.\n[  FAILED  ] Conv2dCudnn.X\n[  FAILED  ] Conv2dCudnn.X\n"
SMI = ("name, driver_version, memory.total [MiB], clocks.current.sm [MHz], clocks.max.sm [MHz]\n"
       "NVIDIA H200, 580.1, 143771 MiB, 1980 MHz, 1980 MHz\n")


class CallmatchSummary(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        files = {"conv-deployed-bf16-vs-cudnn.md": TABLE, "bench-heldout-trained-vgg16.log": LOG,
                 "cudnn-search.log": SEARCH, "gpu-tests.log": TESTS, "nvidia-smi.txt": SMI}
        for name, text in files.items():
            with open(os.path.join(self.dir, name), "w", encoding="utf-8") as f:
                f.write(text)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_summary_and_run_json(self):
        out = subprocess.run([sys.executable, SCRIPT, "--dir", self.dir, "--commit", "abc1234",
                              "--seconds", "150"], capture_output=True, text=True, check=True).stdout
        self.assertIn("66 layers: deployed / cuDNN 1.118 geomean, 1.043 time-weighted, worst "
                      "conv4_5 0.610", out)
        self.assertIn("Vendor-served layers (the deployed vendor call) (measured on both sides): "
                      "38, deployed / vendor 0.950 (geomean), 0.990 (time-weighted).", out)
        self.assertIn("PARTIAL", out)
        self.assertIn("3 layers: deployed / cuDNN 0.630; own-kernel layers 2: 1.000; "
                      "vendor-served layers 1: 0.250", out)
        self.assertIn("held out: trained on ResNet-50, run on VGG16: not run", out)
        self.assertIn("3 deployed cuDNN searches: backend engine kept on 2 (FP32 output on 1), "
                      "legacy Find on 1, none on 0", out)
        self.assertIn("GPU tests: 9 passed, 1 failed: Conv2dCudnn.X", out)
        with open(os.path.join(self.dir, "run.json"), encoding="utf-8") as f:
            run = json.load(f)
        for key in ("command", "commit", "date", "device", "measures", "files", "in_sample"):
            self.assertIn(key, run)
        self.assertEqual(run["commit"], "abc1234")
        self.assertTrue(run["device"].startswith("NVIDIA H200 (lent"))
        self.assertIn("1.118 geomean", run["measures"])
        self.assertIn("nvidia-smi.txt", run["files"])
        self.assertNotIn("run.json", run["files"])
        self.assertIsNone(run["in_sample"])


# --output bf16: one vendor-served layer (1x56x56x64 -> 64, 3x3, 231.2 MFLOP) at 1000 GFLOP/s
# (231.2 us) whose bf16-output search kept an engine at 0.2 ms (200 us): 31.2 us more; the
# bench's cuDNN NHWC alone at 2000 GFLOP/s (115.6 us); its FP32 search line and an own-kernel layer
# are left out.
CSV = ("network,batch,n,h,w,c,k,r,s,stride,pad,oracle_gflops,deployed_gflops,vendor_gflops,layer,"
       "config,status,vendor_algo,output,fp32_output_gflops,engine_alone_gflops\n"
       "vgg16,1,1,56,56,64,64,3,3,1,1,,1000.000,1100.000,conv3_1,vendor=cudnn,ok,x,bf16,900.000,"
       "2000.000\n"
       "vgg16,1,1,28,28,64,64,3,3,1,1,,500.000,400.000,conv4_1,kind=cuda_igemm_mma,ok,x,bf16,"
       "450.000,\n")
SEARCH16 = ("ktune::conv2d_ex cudnn n=1 56x56 c=64 k=64 3x3/1 pad=1 align=16 output=bf16: legacy "
            "0.3 ms; engines 0.2000 ms; fp32-output engines -1.0000 ms (16-bit output: not "
            "searched); kept 16-bit-output engine=58 config=B#1 (workspace 0 B)\n"
            "ktune::conv2d_ex cudnn n=1 56x56 c=64 k=64 3x3/1 pad=1 align=16 output=fp32: legacy "
            "0.3 ms; engines 0.1000 ms; fp32-output engines -1.0000 ms none ran; kept "
            "16-bit-output engine=58 config=B#1 (workspace 0 B)\n")


class CallmatchSummaryBf16Output(unittest.TestCase):
    def test_call_against_its_kept_engine(self):
        directory = tempfile.mkdtemp()
        try:
            files = {"conv-deployed-bf16-vs-cudnn.csv": CSV, "cudnn-search.log": SEARCH16,
                     "nvidia-smi.txt": SMI}
            for name, text in files.items():
                with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
                    f.write(text)
            out = subprocess.run([sys.executable, SCRIPT, "--dir", directory, "--commit", "abc",
                                  "--seconds", "9", "--output", "bf16"], capture_output=True,
                                 text=True, check=True).stdout
            self.assertIn("Deployed output bf16", out)
            self.assertIn("1 vendor-served layers: the deployed bf16-output call's median took "
                          "31.2 us more", out)
            with open(os.path.join(directory, "call-vs-engine.md"), encoding="utf-8") as f:
                self.assertIn("| vgg16 | conv3_1 | 1 | 231.2 | 115.6 | 200.0 | 31.2 |", f.read())
            with open(os.path.join(directory, "run.json"), encoding="utf-8") as f:
                self.assertIn("gpu_bf16_output.sh", json.load(f)["command"])
        finally:
            shutil.rmtree(directory)


if __name__ == "__main__":
    unittest.main()
