#!/usr/bin/env python3
"""scripts/conv_wgmma/out16_summary.py on a hand-made bench-out CSV and ncu table whose figures are
worked out by hand: each epilogue's time over the FP32 store's (geomean, time-weighted, range),
the quad / 4-byte comparisons of the plain and the fused store, the slowest layers, the profile's medians; one-line errors for a
missing file, a row that is not ok and a file without ncu's table.
  test_conv_wgmma_out16_summary.py SCRIPT"""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "conv_wgmma", "out16_summary.py")

HEAD = "network,layer,n,h,w,c,k,r,s,stride,pad,config,epilogue,median_us,status\n"


def bench(rows):
    return HEAD + "".join(f'resnet50,{layer},1,56,56,64,64,1,1,1,0,"fp16:ht=8",{epi},{us},{st}\n'
                          for layer, epi, us, st in rows)


BENCH = bench([("a", "f32", 10, "ok"), ("a", "out16plain", 11, "ok"), ("a", "out16word", 12, "ok"),
               ("b", "f32", 20, "ok"), ("b", "out16plain", 18, "ok"), ("b", "out16word", 24, "ok"),
               ("a", "out16fused", 12, "ok"), ("a", "out16fusedword", 16, "ok"),
               ("b", "out16fused", 25, "ok"), ("b", "out16fusedword", 25, "ok")])

METRICS = ["gpu__time_duration.sum", "smsp__inst_executed.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum",
           "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio", "launch__grid_size"]


def ncu(kernels):
    cols = ['"ID"', '"Kernel Name"'] + [f'"{m}"' for m in METRICS]
    lines = ["==PROF== Connected", ",".join(cols),
             ",".join(['""', '""', '"ns"', '"inst"', '"sector"', '"sector"', '""', '""'])]
    for i, (epi, ns, inst, drain) in enumerate(kernels):
        name = f"void ktune_conv2d_wgmma<8, 16, 1, 64, 6, 3, {epi}, 0>(KtuneTmaMap, Params)"
        lines.append(",".join(f'"{v}"' for v in [i, name, f"{ns:,}", f"{inst:,}", 100, 100, drain,
                                                  28]))
    return "\n".join(lines) + "\n"


class Summary(unittest.TestCase):
    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def write(self, name, text):
        path = os.path.join(tempfile.mkdtemp(), name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_figures(self):
        out = self.run_script(self.write("bench-out.csv", BENCH))
        self.assertEqual(out.returncode, 0, out.stderr)
        # out16plain / f32: 1.1 and 0.9 -> geomean sqrt(0.99) = 0.995, (11 + 18) / 30 = 0.967.
        self.assertIn("| out16plain | KtuneConvWgOut16Plain: quad-exchanged whole-sector stores "
                      "| 2 | 0.995 | 0.967 | 0.900 | 1.100 |", out.stdout)
        # out16word / f32: 1.2 and 1.2.
        self.assertIn("| 2 | 1.200 | 1.200 | 1.200 | 1.200 |", out.stdout)
        # out16plain / out16word: 11 / 12 and 18 / 24 -> sqrt(0.6875) = 0.829, 29 / 36 = 0.806.
        self.assertIn("(out16plain / out16word, 2 pairs): geomean 0.829, time-weighted 0.806, "
                      "range 0.750-0.917.", out.stdout)
        self.assertIn("- resnet50 a b1 fp16:ht=8: 1.100 (11.00 vs 10.00 us)", out.stdout)
        # out16fused / out16fusedword: 12 / 16 and 25 / 25 -> sqrt(0.75) = 0.866, 37 / 41 = 0.902.
        self.assertIn("Fused bias + ReLU, block-pair against 4-byte stores (out16fused / "
                      "out16fusedword, 2 pairs): geomean 0.866, time-weighted 0.902, range "
                      "0.750-1.000.", out.stdout)
        self.assertNotIn("out16fusedres /", out.stdout)  # not measured: no line
        self.assertIn("(fp16 input and 16-bit output)", out.stdout)

    def test_ncu(self):
        path = self.write("ncu.csv", ncu([("KtuneConvWgOutF32", 4000, 100, 0.4),
                                          ("KtuneConvWgOutF32", 4200, 102, 0.5),
                                          ("KtuneConvWgOutF32", 9000, 101, 0.3),
                                          ("KtuneConvWgOut16Plain<3>", 4800, 110, 1.5)]))
        out = self.run_script("--ncu", path, "--caption", "hand-made")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("hand-made", out.stdout)
        # The median of 4000, 4200, 9000 ns is 4.20 us; of 100, 102, 101 instructions 101.
        self.assertIn("| 28 | 8x16x1 bn=64 | f32 | 3 | 4.20 | 101 | 100 | 100 | 0.40 |",
                      out.stdout)
        self.assertIn("| 28 | 8x16x1 bn=64 | out16plain | 1 | 4.80 | 110 | 100 | 100 | 1.50 |",
                      out.stdout)

    def test_errors(self):
        out = self.run_script("/nonexistent/bench-out.csv")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("out16_summary: cannot read /nonexistent/bench-out.csv", out.stderr)
        self.assertEqual(len(out.stderr.strip().splitlines()), 1)
        wrong = self.write("b.csv", bench([("a", "f32", 10, "ok"), ("a", "out16plain", 9, "wrong")]))
        out = self.run_script(wrong)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("a fp16:ht=8 out16plain: status wrong", out.stderr)
        out = self.run_script("--ncu", self.write("n.csv", "not a profile\n"))
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("no ncu --csv --page raw table", out.stderr)
        out = self.run_script()
        self.assertNotEqual(out.returncode, 0)


if __name__ == "__main__":
    unittest.main()
