#!/usr/bin/env python3
"""scripts/wgmma_big/cross_run.py on hand-made exports whose ratios are worked out by hand: a row
against the mean of the earlier runs that hold it ('—' where one does not), `wrong` rows ignored,
the medians of the ktune and of the vendor rows; a one-line error for a missing export.
  test_wgmma_cross_run.py SCRIPT"""
import gzip
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "wgmma_big", "cross_run.py")
HEAD = "device,family,problem,config,config_id,status,median_ms,perf\n"
NN = "transa=0;transb=0;m=8192;n=8192;k=8192;batch=1;precision=2"


def export(d, name, rows):
    path = os.path.join(d, name)
    with gzip.open(path, "wt") as f:
        f.write(HEAD + "".join(f'h100,gemm,{NN},"{c}",{i},{s},1.0,{p}\n' for c, i, s, p in rows))
    return path


class CrossRun(unittest.TestCase):
    def test_ratios_and_medians(self):
        with tempfile.TemporaryDirectory() as d:
            new = export(d, "new.csv.gz", [("kind=wgmma;a", 7, "ok", 900e3), ("cublas", -1, "ok", 800e3),
                                           ("kind=wgmma;b", 8, "ok", 500e3), ("kind=wgmma;c", 9, "wrong", 1e9)])
            one = export(d, "one.csv.gz", [("kind=wgmma;a", 7, "ok", 1000e3), ("cublas", -1, "ok", 1000e3)])
            two = export(d, "two.csv.gz", [("kind=wgmma;a", 7, "ok", 800e3), ("kind=wgmma;b", 8, "ok", 1000e3)])
            out = subprocess.run([sys.executable, SCRIPT, new, one, two], capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            # a: 900 / mean(1000, 800) = 1.0; b: 500 / 1000 = 0.5 (absent from `one`); cublas 0.8.
            self.assertIn("| bf16 | NN | kind=wgmma;a (7) | 900 | 1000 | 800 | 1.000 |", out.stdout)
            self.assertIn("| bf16 | NN | kind=wgmma;b (8) | 500 | — | 1000 | 0.500 |", out.stdout)
            self.assertIn("| bf16 | NN | cublas | 800 | 1000 | — | 0.800 |", out.stdout)
            self.assertNotIn("kind=wgmma;c", out.stdout)
            self.assertIn("ktune rows: 0.750 (2 rows)", out.stdout)
            self.assertIn("vendor rows: 0.800 (1 rows)", out.stdout)

    def test_missing_export(self):
        out = subprocess.run([sys.executable, SCRIPT, "/nonexistent/new.csv.gz", "/nonexistent/old.csv.gz"],
                             capture_output=True, text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("/nonexistent/new.csv.gz", out.stderr)
        self.assertEqual(out.stderr.strip().count("\n"), 0)


if __name__ == "__main__":
    unittest.main()
