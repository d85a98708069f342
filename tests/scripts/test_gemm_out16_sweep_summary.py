#!/usr/bin/env python3
"""scripts/gemm_out16_sweep_summary.py on a hand-made run directory: rows per kind and status
(cuBLASLt's answer rows under cublaslt), a refusal message per kind, and run.json.draft with the
fastest-vendor line of ratios.md, the device of nvidia-smi.txt, the files and the wrong count.
  test_gemm_out16_sweep_summary.py SCRIPT"""
import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gemm_out16_sweep_summary.py")

P = "transa=0;transb=0;m=64;n=64;k=64;batch=1;precision=2;c16=1"
ROWS = [  # config, status, message
    ("kind=mma;bm=64", "ok", ""), ("kind=mma;bm=128", "wrong", "error 0.5"),
    ("kind=wgmmats;bm=128", "refused", "kind wgmmats does not store bf16 C (c16)"),
    ("cublas", "ok", ""), ("cublaslt;heuristic=1", "refused", "offers 1"), ("cublaslt", "ok", ""),
]
RATIOS = """### large, bf16, C bf16

| against | shapes | geomean | time-weighted | below 0.8× |
|---|---:|---:|---:|---:|
| cublas | 1 | 1.100 | 1.100 | 0 |
| fastest vendor | 1 | 0.950 | 0.940 | 0 |
"""


class Out16SweepSummary(unittest.TestCase):
    def test_counts_refusals_and_draft(self):
        with tempfile.TemporaryDirectory() as d:
            with gzip.open(os.path.join(d, "gemm-out16-sweep.csv.gz"), "wt") as f:
                f.write("device,family,problem,config,config_id,status,median_ms,message\n")
                for config, status, message in ROWS:
                    f.write(f'h200,gemm,{P},"{config}",0,{status},1,"{message}"\n')
            with open(os.path.join(d, "ratios.md"), "w") as f:
                f.write(RATIOS)
            with open(os.path.join(d, "nvidia-smi.txt"), "w") as f:
                f.write("name, driver_version, memory.total [MiB]\nNVIDIA H200, 580.1, 143771 MiB\n")
            out = subprocess.run([sys.executable, SCRIPT, d, "abc1234", "kind:mma",
                                  "large@bf16:c=bf16"], capture_output=True, text=True,
                                 check=True).stdout
            draft = json.load(open(os.path.join(d, "run.json.draft")))
        self.assertIn("| mma | 1 | 0 | 0 | 1 | 0 |", out)
        self.assertIn("| cublaslt | 1 | 1 | 0 | 0 | 0 |", out)
        self.assertIn("- wgmmats: kind wgmmats does not store bf16 C (c16)", out)
        self.assertEqual(draft["commit"], "abc1234")
        self.assertEqual(draft["device"], "NVIDIA H200 (driver 580.1, 143771 MiB)")
        self.assertIn("(1 wrong)", draft["measures"])
        self.assertIn("large, bf16, C bf16: 1 shapes, geomean 0.950, time-weighted 0.940, 0 below "
                      "0.8x", draft["measures"])
        self.assertEqual(draft["files"], ["gemm-out16-sweep.csv.gz", "nvidia-smi.txt", "ratios.md"])


if __name__ == "__main__":
    unittest.main()
