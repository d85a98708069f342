#!/usr/bin/env python3
"""scripts/conv_wgmma/kind_table.py on a hand-made sweep and workloads whose figures are worked out
by hand: per layer the fastest verified cuda_igemm_wgmma row (a faster wrong row, another kind's row
and an FP32 row ignored) against the cudnn vendor row, geomean and time-weighted ratios (layer
counts), cuDNN's engine / layout counts, refused layers listed, and a one-line error when no layer
can be compared.
  test_conv_wgmma_kind_table.py SCRIPT"""
import csv
import gzip
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "conv_wgmma", "kind_table.py")

VGG = "layer,h,w,c,k,r,s,stride,pad,count\nstem,8,8,3,64,3,3,1,1,1\na,8,8,64,64,3,3,1,1,1\n"
RESNET = "layer,h,w,c,k,r,s,stride,pad,count\nb,4,4,64,128,1,1,1,0,3\n"
STEM = "h=8;w=8;c=3;k=64;r=3;s=3;stride=1;pad=1"
A = "h=8;w=8;c=64;k=64;r=3;s=3;stride=1;pad=1"
B = "h=4;w=4;c=64;k=128;r=1;s=1;stride=1;pad=0"
WG = "kind=cuda_igemm_wgmma;tp={};tq=16;bn=128;st=4"


def problem(n, shape, precision=True):
    return f"n={n};{shape}" + (";precision=2" if precision else "")


ROWS = [  # problem, config, config_id, status, ms, message
    (problem(1, A), WG.format(8), 1, "ok", 0.2, ""),
    (problem(1, A), WG.format(4), 2, "ok", 0.4, ""),
    (problem(1, A), WG.format(16), 3, "wrong", 0.01, ""),
    (problem(1, A), "kind=cuda_igemm_mma;bm=64", 4, "ok", 0.001, ""),
    (problem(1, A, False), WG.format(8), 1, "ok", 0.0001, ""),
    (problem(1, A), "cudnn", -1, "ok", 0.1, "cudnn bf16 engine=62 config=A#1 layout=NHWC"),
    (problem(16, A), WG.format(8), 1, "ok", 1.0, ""),
    (problem(16, A), "cudnn", -1, "ok", 2.0, "cudnn bf16 engine=58 config=B#0 layout=NHWC"),
    (problem(1, B), WG.format(8), 1, "ok", 0.1, ""),
    (problem(1, B), "cudnn", -1, "ok", 0.1, "cudnn bf16 engine=62 config=A#2 layout=NHWC"),
    (problem(16, B), WG.format(8), 1, "ok", 0.5, ""),
    (problem(16, B), "cudnn", -1, "ok", 0.25, "cudnn bf16 engine=62 config=A#3 layout=NCHW"),
] + [(problem(n, STEM), WG.format(8), 1, "refused",
      "", WG.format(8) + ": cuda_igemm_wgmma needs c % 64 == 0 (c=3)") for n in (1, 16)] + [
    (problem(n, STEM), "cudnn", -1, "ok", 0.3, "cudnn bf16 engine=28 layout=NCHW") for n in (1, 16)]


def write(tmp, rows):
    work = os.path.join(tmp, "workloads")
    os.makedirs(work, exist_ok=True)
    for name, text in (("conv2d-vgg16.csv", VGG), ("conv2d-resnet50.csv", RESNET)):
        with open(os.path.join(work, name), "w") as f:
            f.write(text)
    sweep = os.path.join(tmp, "sweep.csv.gz")
    with gzip.open(sweep, "wt", newline="") as f:
        w = csv.writer(f)
        w.writerow(["device", "family", "problem", "config", "config_id", "status", "median_ms",
                    "message"])
        for p, c, cid, st, ms, msg in rows:
            w.writerow(["d", "conv2d", p, c, cid, st, ms, msg])
    return work, sweep


class KindTable(unittest.TestCase):
    def run_table(self, tmp, rows):
        work, sweep = write(tmp, rows)
        out_csv, out_md = os.path.join(tmp, "t.csv"), os.path.join(tmp, "t.md")
        r = subprocess.run([sys.executable, SCRIPT, sweep, "--csv", out_csv, "--markdown", out_md,
                            "--workloads", work, "--worst", "2"], capture_output=True, text=True)
        return r, out_csv, out_md

    def test_figures_by_hand(self):
        with tempfile.TemporaryDirectory() as tmp:
            r, out_csv, out_md = self.run_table(tmp, ROWS)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out_csv, newline="") as f:
                rows = {(x["network"], x["layer"], x["n"]): x for x in csv.DictReader(f)}
            a1 = rows[("vgg16", "a", "1")]
            self.assertEqual(a1["kind_config"], "tp=8;tq=16;bn=128;st=4")
            self.assertAlmostEqual(float(a1["ratio"]), 0.5)
            self.assertAlmostEqual(float(rows[("vgg16", "a", "16")]["ratio"]), 2.0)
            self.assertAlmostEqual(float(rows[("resnet50", "b", "16")]["ratio"]), 0.5)
            self.assertIn("c % 64", rows[("vgg16", "stem", "1")]["kind_status"])
            self.assertEqual(rows[("vgg16", "stem", "1")]["ratio"], "")
            with open(out_md) as f:
                md = f.read()
            # geomean (0.5 * 2 * 1 * 0.5)^(1/4) = 0.841; time-weighted (0.1 + 2 + 3 * 0.1 +
            # 3 * 0.25) / (0.2 + 1 + 3 * 0.1 + 3 * 0.5) = 3.15 / 3.0; 2 layers below 1.
            self.assertIn("| all | 4 | 0.841 | 1.050 | 2 | 3.000 | 3.150 |", md)
            self.assertIn("| resnet50 b16 | 1 | 0.500 | 0.500 | 1 | 1.500 | 0.750 |", md)
            self.assertIn("engine 62 NHWC x2, engine 58 NHWC x1, engine 62 NCHW x1", md)
            self.assertIn("Not compared: vgg16 stem n=1 (refused: cuda_igemm_wgmma needs c % 64",
                          md)
            worst = [line for line in md.splitlines() if line.startswith("| 0.500 |")]
            self.assertEqual(len(worst), 2)

    def test_nothing_to_compare_is_a_one_line_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            r, _, _ = self.run_table(tmp, [x for x in ROWS if x[1] != "cudnn"])
            self.assertNotEqual(r.returncode, 0)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn("no layer", r.stderr)


if __name__ == "__main__":
    unittest.main()
