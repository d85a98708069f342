#!/usr/bin/env python3
"""scripts/cpu_conv_tables.py on hand-made tuned_conv_bench CSVs: the summary's geomean,
time-weighted ratio, layers below 0.8x and worst layers match figures worked out by hand; bad
files (missing, no rows, a missing column, a non-number, a layer without times) give one line and
exit status 1; random corruptions of a valid file never end in a traceback.
  test_cpu_conv_tables.py SCRIPT"""
import os
import random
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "cpu_conv_tables.py")
HEADER = ("network,batch,n,h,w,c,k,r,s,stride,pad,oracle_gflops,deployed_gflops,vendor_gflops,"
          "layer,config,status,vendor_algo\n")


def row(net, layer, c, deployed, vendor, status="ok", config="kind=cpu_plan"):
    # 1x1 on an 8x8 map, k = 8: 2·64·8·c FLOP
    return f"{net},1,1,8,8,{c},8,1,1,1,0,,{deployed},{vendor},{layer},{config},{status},auto:x\n"


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class Tables(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def write(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_summary_figures(self):
        # ratios 2.0, 0.5 (c = 1 and c = 3: three times the FLOP), 0.7
        inside = self.write("in.csv", HEADER + row("resnet50", "a", 1, 20, 10)
                            + row("resnet50", "b", 3, 5, 10) + row("resnet50", "c", 1, 7, 10))
        held = self.write("out.csv", HEADER + row("vgg16", "d", 1, 9, 10))
        r = run("dev", "--in-sample", inside, "--held-out", held)
        self.assertEqual(r.returncode, 0, r.stderr)
        line = next(x for x in r.stdout.splitlines() if x.startswith("| | resnet50 | 1 |"))
        cells = [x.strip() for x in line.split("|")]
        geomean = (2.0 * 0.5 * 0.7) ** (1 / 3)
        flop = [1, 3, 1]  # units of 2·64·8 FLOP; ms ∝ FLOP / GFLOP/s
        deployed = flop[0] / 20 + flop[1] / 5 + flop[2] / 7
        vendor = sum(flop) / 10
        self.assertEqual(cells[5], f"**{geomean:.3f}**")
        self.assertEqual(cells[6], f"{vendor / deployed:.3f}")
        self.assertEqual(cells[7], "2")
        self.assertEqual(cells[8], "b 0.50, c 0.70, a 2.00")
        self.assertIn("| | vgg16 | 1 | 1 | **0.900** | 0.900 | 0 | d 0.90 |", r.stdout)

    def test_own_share_columns(self):
        # a (c = 1, own, 20 GFLOP/s) and b (c = 3, oneDNN's call, 10 GFLOP/s): own kernels 1 of 2
        # layers, deployed time 1/20 of 1/20 + 3/10 = 14 %.
        inside = self.write("in.csv", HEADER + row("resnet50", "a", 1, 20, 10)
                            + row("resnet50", "b", 3, 10, 10, config="vendor=onednn"))
        held = self.write("out.csv", HEADER + row("vgg16", "d", 1, 9, 10))
        r = run("dev", "--in-sample", inside, "--held-out", held, "--own-share")
        self.assertEqual(r.returncode, 0, r.stderr)
        line = next(x for x in r.stdout.splitlines() if x.startswith("| | resnet50 | 1 |"))
        self.assertEqual([x.strip() for x in line.split("|")][8:10], ["1/2", "14%"])
        self.assertIn("own kernels: layers | own kernels: time", r.stdout)
        plain = run("dev", "--in-sample", inside, "--held-out", held)
        self.assertNotIn("own kernels", plain.stdout)

    def test_conv_small_row(self):
        # conv-small names resnet50 a and c (ratios 2.0 and 0.7), not b; vgg16 d is held out.
        inside = self.write("in.csv", HEADER + row("resnet50", "a", 1, 20, 10)
                            + row("resnet50", "b", 3, 5, 10) + row("resnet50", "c", 1, 7, 10))
        held = self.write("out.csv", HEADER + row("vgg16", "d", 1, 9, 10))
        small = self.write("small.csv", "# comment\nnetwork,layer,n,h,w,c,k,r,s,stride,pad\n"
                           "resnet50,a,1,8,8,1,8,1,1,1,0\nresnet50,c,1,8,8,1,8,1,1,1,0\n"
                           "vgg16,d,1,8,8,1,8,1,1,1,0\n")
        r = run("dev", "--in-sample", inside, "--held-out", held, "--conv-small", small)
        self.assertEqual(r.returncode, 0, r.stderr)
        geomean = (2.0 * 0.7) ** 0.5
        tw = (1 / 10 + 1 / 10) / (1 / 20 + 1 / 7)
        self.assertIn(f"| | conv-small | 1 | 2 | **{geomean:.3f}** | {tw:.3f} | 1 | "
                      "c 0.70, a 2.00 |", r.stdout)
        self.assertNotIn("conv-small", run("dev", "--in-sample", inside, "--held-out",
                                           held).stdout)
        bad = run("dev", "--in-sample", inside, "--held-out", held, "--conv-small",
                  self.write("bad.csv", "x,y\n1,2\n"))
        self.assertEqual(bad.returncode, 1)
        self.assertEqual(len(bad.stderr.strip().splitlines()), 1, bad.stderr)

    def test_bad_files_give_one_line(self):
        good = self.write("good.csv", HEADER + row("vgg16", "d", 1, 9, 10))
        cases = {
            "missing": os.path.join(self.tmp.name, "nope.csv"),
            "empty": self.write("empty.csv", HEADER),
            "column": self.write("col.csv", HEADER.replace("vendor_gflops,", "") + "x\n"),
            "number": self.write("num.csv", HEADER + row("vgg16", "d", "x", 9, 10)),
            "status": self.write("st.csv", HEADER + row("vgg16", "d", 1, 9, 10, "wrong")),
            "zero": self.write("zero.csv", HEADER + row("vgg16", "d", 1, 9, "")),
            "stride": self.write("stride.csv", HEADER + row("vgg16", "d", 1, 9, 10).replace(
                ",1,1,1,0,,", ",1,1,0,0,,")),
            "inf": self.write("inf.csv", HEADER + row("vgg16", "d", 1, "inf", 10)),
        }
        for what, path in cases.items():
            r = run("dev", "--in-sample", path, "--held-out", good)
            self.assertEqual(r.returncode, 1, what)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, (what, r.stderr))
            self.assertTrue(r.stderr.startswith("cpu_conv_tables: "), (what, r.stderr))

    def test_corrupted_files_never_crash(self):
        text = HEADER + row("resnet50", "a", 1, 20, 10) + row("vgg16", "b", 3, 5, 10)
        good = self.write("good.csv", text)
        rng = random.Random(30)
        for i in range(40):
            chars = list(text)
            for _ in range(rng.randint(1, 6)):
                at = rng.randrange(len(chars))
                chars[at] = rng.choice([",", "\n", "", "x", "-", "0", '"', "9"])
            path = self.write(f"fuzz{i}.csv", "".join(chars))
            r = run("dev", "--in-sample", path, "--held-out", good)
            self.assertIn(r.returncode, (0, 1), r.stderr)
            self.assertNotIn("Traceback", r.stderr)
            if r.returncode:
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)


if __name__ == "__main__":
    unittest.main()
