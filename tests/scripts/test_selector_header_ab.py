#!/usr/bin/env python3
"""scripts/selector_header_ab.py (two selector headers' picks; side b's full CSVs after the run).
picks: hand-made headers whose picks differ on the shapes with 100 < m <= 200 (and an index out
of range that must become kBaseline); one header as both sides (its #pragma once must not hide
the second copy): no shape differs; the shipped bf16 header against the all-kinds one on vit (19
of 36 differ, as in results/h200/tc-bf16-allkinds-deployed); problems from a workload file in
the TransposeLHS layout and from a CSV's problem column (its precision, its #tags); a header
whose select() takes other arguments than the precision's is refused. merge: side b's rows on
differing shapes, side a's elsewhere, `networks` from a; a planted wrong config on either side,
a b row where the picks agree and a missing differing file each fail, naming the row.
  test_selector_header_ab.py SCRIPT"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "selector_header_ab.py"))
ROOT = os.path.dirname(os.path.dirname(SCRIPT))
SELECTORS = os.path.join(ROOT, "libraries", "gemm", "selectors")


def header(limit, args=7, bad_index_m=None):
    """select(): config 0 up to m = limit, config 1 above; -1 (out of range) at m = bad_index_m."""
    params = ", ".join(["long long ta", "long long tb", "long long m", "long long n",
                        "long long k", "long long batch", "long long precision",
                        "long long c16"][:args])
    bad = f"if (m == {bad_index_m}) return -1;" if bad_index_m else ""
    return f"""// hand-made
#pragma once
namespace ktune_selector {{
inline constexpr int kNumConfigs = 3;
inline constexpr const char* kConfigs[kNumConfigs] = {{"kind=mma;bm=64", "vendor=cublaslt",
                                                      "kind=wgmma;bm=128"}};
inline constexpr int kBaseline = 2;
inline int select({params}) {{
  {bad}
  return m <= {limit} ? 0 : 1;
}}
}}  // namespace ktune_selector
"""


SHAPES = [(1, 0, 64, 197, 64, 1), (1, 0, 150, 197, 64, 1), (0, 1, 200, 8, 8, 2),
          (0, 0, 300, 8, 8, 1), (1, 1, 180, 16, 16, 1)]


def key(shape, precision=2):
    text = ";".join(f"{f}={v}" for f, v in zip(("transa", "transb", "m", "n", "k", "batch"), shape))
    return text + (f";precision={precision}" if precision else "")


@unittest.skipUnless(shutil.which(os.environ.get("CXX", "c++")), "no C++ compiler")
class SelectorHeaderAb(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        self.out = os.path.join(self.d, "picks")
        self.a = self.write("a.hpp", header(100))
        self.b = self.write("b.hpp", header(200, bad_index_m=300))
        # The TransposeLHS layout, true / false, padding, a comment and a repeated shape.
        self.work = self.write("w.csv", "# a workload\nTransposeLHS, TransposeRHS, M, N, K, "
                               "lda, ldb, ldc, batch\n" + "".join(
                                   f"{'true' if s[0] else 'false'}, {'true' if s[1] else 'false'}"
                                   f", {s[2]}, {s[3]}, {s[4]}, 1, 1, 1, {s[5]}\n"
                                   for s in SHAPES + SHAPES[:1]))

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.d, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_tool(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def picks(self, *workloads, a=None, b=None, precision="bf16"):
        return self.run_tool("picks", "--a", f"new={a or self.a}", "--b", f"old={b or self.b}",
                             "--precision", precision, "--out", self.out, *workloads)

    def read(self, name):
        with open(os.path.join(self.out, name), newline="") as f:
            return list(csv.DictReader(f))

    def differing(self, w):
        return [tuple(int(r[f]) for f in ("transa", "transb", "m", "n", "k", "batch"))
                for r in self.read(f"differing-{w}.csv")]

    def test_picks_and_differing_shapes(self):
        r = self.picks(f"w={self.work}")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "w: picks differ on 4 of 5 shapes\n")
        rows = self.read("picks.csv")
        self.assertEqual([(r["workload"], r["m"], r["precision"], r["new_pick"], r["old_pick"])
                          for r in rows], [
            ("w", "64", "bf16", "kind=mma;bm=64", "kind=mma;bm=64"),
            ("w", "150", "bf16", "vendor=cublaslt", "kind=mma;bm=64"),
            ("w", "200", "bf16", "vendor=cublaslt", "kind=mma;bm=64"),
            ("w", "300", "bf16", "vendor=cublaslt", "kind=wgmma;bm=128"),  # -1: kBaseline
            ("w", "180", "bf16", "vendor=cublaslt", "kind=mma;bm=64")])
        self.assertEqual(self.differing("w"), SHAPES[1:])

    def test_one_header_both_sides(self):
        r = self.picks(f"w={self.work}", b=self.a)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "w: picks differ on 0 of 5 shapes\n")
        self.assertEqual(self.differing("w"), [])
        with open(os.path.join(self.out, "differing-w.csv")) as f:
            self.assertEqual(f.read(), "transa,transb,m,n,k,batch\n")

    def test_committed_bf16_headers_on_vit(self):
        r = self.picks(f"vit={os.path.join(ROOT, 'workloads', 'gemm', 'vit.csv')}",
                       a=os.path.join(SELECTORS, "h200-bf16-all-vendors-lt8-boxall-k16.hpp"),
                       b=os.path.join(SELECTORS, "h200-bf16-vendors-lt8-k16.hpp"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "vit: picks differ on 19 of 36 shapes\n")
        self.assertEqual(len(self.differing("vit")), 19)

    def test_problem_column_precision_and_tags(self):
        sweep = self.write("sweep.csv", "device,problem,config,tags\n" + "".join(
            f'd,{key(s, p)},c,"{t}"\n' for s, p, t in [
                (SHAPES[0], 2, "resnet"), (SHAPES[0], 2, "resnet"), (SHAPES[1], 2, "vgg;resnet"),
                (SHAPES[2], 3, "resnet"), (SHAPES[3], 2, "llm"), (SHAPES[4], 0, "resnet")]))
        r = self.picks(f"dnn={sweep}#resnet,mobilenet", f"all={sweep}")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.read("picks.csv")
        self.assertEqual([(r["workload"], int(r["m"])) for r in rows],
                         [("dnn", 64), ("dnn", 150), ("all", 64), ("all", 150), ("all", 300)])
        r = self.picks(f"w={sweep}#nothing")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no problem of that precision", r.stderr)

    def test_select_arguments_per_precision(self):
        fp32_a, fp32_b = self.write("f.hpp", header(100, 6)), self.write("g.hpp", header(200, 6))
        r = self.picks(f"w={self.work}", a=fp32_a, b=fp32_b, precision="fp32")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual({r["precision"] for r in self.read("picks.csv")}, {"fp32"})
        r = self.picks(f"w={self.work}", b=fp32_b)  # an FP32 selector as the bf16 one
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(f"{fp32_b}: select() takes 6 arguments; a bf16 selector takes 7", r.stderr)
        r = self.picks(f"w={self.work}", precision="fp32")
        self.assertIn("select() takes 7 arguments; a fp32 selector takes 6", r.stderr)
        c16 = self.write("c.hpp", header(100, 8))
        r = self.picks(f"w={self.work}", a=c16, b=c16, precision="bf16-c16")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_bad_input(self):
        r = self.picks(f"w={self.work}", b=os.path.join(self.d, "none.hpp"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no such header: " + os.path.join(self.d, "none.hpp"), r.stderr)
        r = self.picks("w=" + os.path.join(self.d, "none.csv"))
        self.assertIn("no such workload source", r.stderr)
        self.assertFalse(os.path.exists(self.out))

    # merge: a run of side new on every shape, side old on the differing ones.
    def make_run(self, wrong_old=None, wrong_new=None, extra_old=None):
        """The run's CSVs of workloads w and v; what is planted goes into w's only."""
        self.assertEqual(self.picks(f"w={self.work}", f"v={self.work}").returncode, 0)
        run = os.path.join(self.d, "run")
        os.makedirs(run)
        picks = {(r["workload"], int(r["m"])): (r["new_pick"], r["old_pick"])
                 for r in self.read("picks.csv")}
        head = "problem,networks,config,status,deployed_ms\n"
        for w in ("w", "v"):
            if w == "v":
                wrong_old = wrong_new = extra_old = None
            with open(os.path.join(run, f"new-{w}.csv"), "w") as f:
                f.write(head + "".join(
                    f"{key(s)},net{s[2]},{(s[2] == 150 and wrong_new) or picks[w, s[2]][0]}"
                    f",ok,1.{s[2]}\n" for s in SHAPES))
            with open(os.path.join(run, f"old-differing-{w}.csv"), "w") as f:
                f.write(head + "".join(
                    f"{key(s)},,{(s[2] == 200 and wrong_old) or picks[w, s[2]][1]},ok,"
                    f"2.{s[2]}\n" for s in SHAPES[1:] + ([extra_old] if extra_old else [])))
        return run

    def merge(self, run, *workloads):
        return self.run_tool("merge", "--picks", os.path.join(self.out, "picks.csv"), "--a",
                             "new", "--b", "old", "--run", run, *workloads)

    def test_merge(self):
        run = self.make_run()
        r = self.merge(run)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("w: 5 shapes, 1 with the same pick (new's rows), 4 differing (old's own)",
                      r.stdout)
        with open(os.path.join(run, "old-w.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([(r["networks"], r["config"], r["deployed_ms"]) for r in rows], [
            ("net64", "kind=mma;bm=64", "1.64"), ("net150", "kind=mma;bm=64", "2.150"),
            ("net200", "kind=mma;bm=64", "2.200"), ("net300", "kind=wgmma;bm=128", "2.300"),
            ("net180", "kind=mma;bm=64", "2.180")])
        self.assertTrue(os.path.exists(os.path.join(run, "old-v.csv")))

    def test_merge_same_picks_without_old_rows(self):
        self.assertEqual(self.picks(f"w={self.work}", b=self.a).returncode, 0)
        run = os.path.join(self.d, "run")
        os.makedirs(run)
        with open(os.path.join(run, "new-w.csv"), "w") as f:
            f.write("problem,networks,config\n" + "".join(
                f"{key(s)},,{'kind=mma;bm=64' if s[2] <= 100 else 'vendor=cublaslt'}\n"
                for s in SHAPES))
        r = self.merge(run)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(run, "old-w.csv")) as f, open(os.path.join(run, "new-w.csv")) as g:
            self.assertEqual(f.read(), g.read())

    def assert_merge_fails(self, run, *needles):
        r = self.merge(run, "w")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        for n in needles:
            self.assertIn(n, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(run, "old-w.csv")))

    def test_merge_planted_wrong_config(self):
        run = self.make_run(wrong_old="kind=mma;bm=128")
        self.assert_merge_fails(run, f"w: old row {key(SHAPES[2])}: config kind=mma;bm=128, "
                                     "its header picks kind=mma;bm=64")
        r = self.merge(run, "v")  # the other workload is fine alone
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_merge_wrong_config_on_side_a(self):
        self.assert_merge_fails(self.make_run(wrong_new="kind=mma;bm=64"),
                                f"new row {key(SHAPES[1])}: config kind=mma;bm=64")

    def test_merge_row_where_picks_agree(self):
        self.assert_merge_fails(self.make_run(extra_old=SHAPES[0]),
                                f"old row {key(SHAPES[0])}: picks agree")

    def test_merge_missing_rows(self):
        run = self.make_run()
        os.remove(os.path.join(run, "old-differing-w.csv"))
        self.assert_merge_fails(run, "old-differing-w.csv (4 shapes differ)")
        with open(os.path.join(run, "new-w.csv")) as f:
            lines = f.readlines()
        with open(os.path.join(run, "new-w.csv"), "w") as f:
            f.writelines(lines[:-1])
        with open(os.path.join(run, "old-differing-w.csv"), "w") as f:
            f.write("problem,networks,config\n")
        self.assert_merge_fails(run, "new: 4 of the 5 shapes", "old rows of")


if __name__ == "__main__":
    unittest.main()
