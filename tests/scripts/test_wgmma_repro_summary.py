#!/usr/bin/env python3
"""scripts/wgmma_big/repro_summary.py on hand-made exports whose figures are worked out by hand:
the best ok ktune config per transpose (a faster `wrong` row ignored), the fastest of the three
vendor rows, ratios and their geomean; one-line errors for a missing export and a missing vendor row.
  test_wgmma_repro_summary.py SCRIPT"""
import gzip
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "wgmma_big", "repro_summary.py")
HEAD = "device,family,problem,config,config_id,status,median_ms,perf\n"


def export(rows):
    text = HEAD
    for ta, tb, config, cid, status, perf in rows:
        problem = f"transa={ta};transb={tb};m=8192;n=8192;k=8192;batch=1;precision=2"
        text += f'h100,gemm,{problem},"{config}",{cid},{status},1.0,{perf}\n'
    return text


def shape_rows(ta, tb, own, cublas, lt, top8):
    return [(ta, tb, "kind=wgmma;a", 1, "ok", own), (ta, tb, "kind=wgmma;b", 2, "ok", own / 2),
            (ta, tb, "kind=wgmma;c", 3, "wrong", own * 9), (ta, tb, "cublas", -1, "ok", cublas),
            (ta, tb, "cublaslt", -1, "ok", lt), (ta, tb, "cublaslt-top8", -1, "ok", top8)]


class ReproSummary(unittest.TestCase):
    def write(self, d, run, rows):
        with gzip.open(os.path.join(d, f"gemm-wgmma-big-{run}.csv.gz"), "wt") as f:
            f.write(export(rows))

    def run_script(self, d):
        return subprocess.run([sys.executable, SCRIPT, d], capture_output=True, text=True)

    def test_ratios_and_geomean(self):
        with tempfile.TemporaryDirectory() as d:
            # NN: 800 / max(1000, 900, 950) = 0.8; NT: 900 / 900 = 1.0; TN: 1000 / 800 = 1.25.
            rows = (shape_rows(0, 0, 800e3, 1000e3, 900e3, 950e3) + shape_rows(0, 1, 900e3, 900e3, 800e3, 850e3)
                    + shape_rows(1, 0, 1000e3, 800e3, 700e3, 750e3))
            self.write(d, "run2", rows)
            self.write(d, "run3", rows)
            out = self.run_script(d)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("| run2 | bf16 | NN | kind=wgmma;a (1) | 800 | 1000 | 900 | 950 | 0.800 | 0.800 |", out.stdout)
            self.assertIn("| run2 | bf16 | TN | kind=wgmma;a (1) | 1000 | 800 | 700 | 750 | 1.250 | 1.250 |", out.stdout)
            self.assertIn("| run3 | bf16 | **1.000** | 1.000 |", out.stdout)  # (0.8 * 1.0 * 1.25)^(1/3)

    def test_missing_export_and_vendor_row(self):
        with tempfile.TemporaryDirectory() as d:
            out = self.run_script(d)
            self.assertNotEqual(out.returncode, 0)
            self.assertEqual(out.stderr.strip().count("\n"), 0)
            self.assertIn("gemm-wgmma-big-run2.csv.gz", out.stderr)
            rows = [r for r in shape_rows(0, 0, 1.0, 1.0, 1.0, 1.0) if r[2] != "cublaslt-top8"]
            self.write(d, "run2", rows)
            self.write(d, "run3", rows)
            out = self.run_script(d)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn("has no cublaslt-top8 row", out.stderr)


if __name__ == "__main__":
    unittest.main()
