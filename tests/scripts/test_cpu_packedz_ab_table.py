#!/usr/bin/env python3
"""scripts/cpu_packedz_ab_table.py on a hand-made before / after pair of exports whose figures are
worked out by hand: two shapes, each side's packedz oracle (the fastest ok packedz row; a faster
failed row ignored) against its own run's oneDNN and the faster of OpenBLAS and oneDNN; the
summary's geomean, time-weighted ratio and counts below 0.8x / 0.9x; a shape missing from the
after run left out; --csv one row per shape.
  test_cpu_packedz_ab_table.py SCRIPT"""
import csv
import gzip
import math
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "cpu_packedz_ab_table.py")

HEADER = "device,family,problem,config,config_id,status,median_ms\n"
P1 = "transa=1;transb=0;m=768;n=197;k=768;batch=1"
P2 = "transa=0;transb=0;m=64;n=197;k=197;batch=16"
P3 = "transa=1;transb=0;m=384;n=197;k=1536;batch=1"  # only in the before run
Z1 = "kind=packedz;mr=48;nr=8;kc=256;mc=192;nc=3072;pa=1;pb=1"
Z2 = "kind=packedz;mr=64;nr=6;kc=512;mc=192;nc=3072;pa=1;pb=0"


def rows(problem, packedz, onednn, openblas, failed_faster=False):
    text = f"d,gemm,{problem},{Z1},1,ok,{packedz[0]}\n" + f"d,gemm,{problem},{Z2},2,ok,{packedz[1]}\n"
    if failed_faster:  # a failed row, faster than any: never the oracle
        text += f"d,gemm,{problem},{Z1},1,wrong,0.001\n"
    return (text + f"d,gemm,{problem},onednn,-1,ok,{onednn}\n"
            + f"d,gemm,{problem},openblas,-1,ok,{openblas}\n")


class CpuPackedzAbTable(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        # before: P1 own 2.0 (oneDNN 1.0: 0.5x; OpenBLAS 1.5), P2 own 1.0 (oneDNN 1.0, OpenBLAS 0.8)
        with gzip.open(os.path.join(d, "vit-before.csv.gz"), "wt") as f:
            f.write(HEADER + rows(P1, (2.5, 2.0), 1.0, 1.5, failed_faster=True)
                    + rows(P2, (1.0, 1.2), 1.0, 0.8) + rows(P3, (1.0, 1.0), 1.0, 1.0))
        # after: P1 own 1.0 (oneDNN 1.1, OpenBLAS 1.2), P2 own 0.9 (oneDNN 0.9, OpenBLAS 0.72)
        with gzip.open(os.path.join(d, "vit-after.csv.gz"), "wt") as f:
            f.write(HEADER + rows(P1, (1.0, 1.4), 1.1, 1.2) + rows(P2, (0.95, 0.9), 0.9, 0.72))

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self, *extra):
        out = subprocess.run([sys.executable, SCRIPT, self.tmp.name, "vit", *extra],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        return out.stdout

    def test_per_shape_ratios_and_left_out_shape(self):
        path = os.path.join(self.tmp.name, "rows.csv")
        self.run_script("--csv", path)
        with open(path) as f:
            got = {r["problem"]: r for r in csv.DictReader(f)}
        self.assertEqual(set(got), {P1, P2})  # P3 is in no after run
        r1, r2 = got[P1], got[P2]
        self.assertAlmostEqual(float(r1["before_packedz_ms"]), 2.0)  # not the failed 0.001
        self.assertEqual(r1["before_config"], Z2)
        self.assertAlmostEqual(float(r1["before_vs_onednn"]), 0.5)
        self.assertAlmostEqual(float(r1["before_vs_faster"]), 0.5)
        self.assertAlmostEqual(float(r1["after_vs_onednn"]), 1.1)
        self.assertAlmostEqual(float(r1["after_over_before"]), 2.0)
        self.assertAlmostEqual(float(r2["before_vs_faster"]), 0.8)  # OpenBLAS the faster
        self.assertAlmostEqual(float(r2["after_vs_faster"]), 0.8)
        self.assertEqual(r2["after_config"], Z2)

    def test_summary_rows(self):
        out = self.run_script()
        lines = {tuple(c.strip() for c in line.split("|")[1:3]): line for line in out.splitlines()
                 if line.startswith("| vit | before") or line.startswith("| vit | after")}
        before = lines[("vit", "before")].split("|")
        # vs oneDNN: ratios 0.5 and 1.0 -> geomean sqrt(0.5); time-weighted (1 + 1) / (2 + 1)
        self.assertEqual(before[4].strip(),
                         f"{math.sqrt(0.5):.3f} / {2 / 3:.3f} / 1 / 1 / 0.50")
        # vs the faster vendor: 0.5 and 0.8 -> sqrt(0.4); (1 + 0.8) / 3; both below 0.9x
        self.assertEqual(before[5].strip(),
                         f"{math.sqrt(0.4):.3f} / {1.8 / 3:.3f} / 1 / 2 / 0.50")
        after = lines[("vit", "after")].split("|")
        # vs oneDNN: 1.1 and 1.0 -> sqrt(1.1); (1.1 + 0.9) / (1.0 + 0.9)
        self.assertEqual(after[4].strip(),
                         f"{math.sqrt(1.1):.3f} / {2.0 / 1.9:.3f} / 0 / 0 / 1.00")


if __name__ == "__main__":
    unittest.main()
