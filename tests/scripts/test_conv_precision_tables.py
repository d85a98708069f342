#!/usr/bin/env python3
"""scripts/conv_precision/tables.py on hand-made workloads, sweep, FP32 bench CSV and selector
header whose figures are worked out by hand: the header's pick served, a refused pick falling back
to the header's safe order, an unverified row never timed, count-weighted sums, a selector scored
on one network only, GFLOP/s turned into ms; a bad --selector is a one-line error; run_json.py's
manifest of such a directory. And header_picks.py reproduces the shipped FP32 CUDA library's picks
on every layer of its committed in-sample and held-out runs (the driver fills the features as
the library does). engine_picks.py on a hand-made networks layers.csv.
  test_conv_precision_tables.py SCRIPT"""
import csv
import gzip
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    ROOT, "scripts", "conv_precision", "tables.py")
sys.path.insert(0, os.path.dirname(os.path.abspath(SCRIPT)))
from header_picks import header_picks  # noqa: E402

VGG = "layer,h,w,c,k,r,s,stride,pad,count\na,8,8,8,8,3,3,1,1,2\n"
RESNET = "layer,h,w,c,k,r,s,stride,pad,count\nb,8,8,8,16,1,1,1,0,1\n"
# Config X for 3x3 layers, Y otherwise; safe order Y then X.
HEADER = """#pragma once
namespace ktune_selector {
inline constexpr int kNumConfigs = 2;
inline constexpr const char* kConfigs[kNumConfigs] = {"kind=x", "kind=y"};
inline constexpr int kBaseline = 1;
inline constexpr int kSafeOrder[kNumConfigs] = {1, 0};
struct Features {
  double n, h, w, c, k, r, s, stride, pad, precision, p, q, gemm_m, gemm_n, gemm_k, flops, bytes,
      intensity, log2_gemm_m, log2_gemm_n, log2_gemm_k, log2_flops, is_1x1, winograd;
};
inline int select(const Features& f) { return f.r == 3.0 ? 0 : 1; }
}
"""


def key(n, shape):
    return f"n={n};{shape};precision=2"


A, B = "h=8;w=8;c=8;k=8;r=3;s=3;stride=1;pad=1", "h=8;w=8;c=8;k=16;r=1;s=1;stride=1;pad=0"
# (problem, config, status, ms): a at batch 1 picks x (0.2) vs cudnn 0.1; a at batch 16: x
# refused, so y (0.5) vs 1.0; b at 1: y 0.1 vs 0.4 (oracle x 0.05); b at 16: y wrong.
SWEEP = [(key(1, A), "kind=x", "ok", 0.2), (key(1, A), "kind=y", "ok", 0.3),
         (key(1, A), "vendor=cudnn", "ok", 0.1),
         (key(16, A), "kind=x", "refused", ""), (key(16, A), "kind=y", "ok", 0.5),
         (key(16, A), "vendor=cudnn", "ok", 1.0),
         (key(1, B), "kind=x", "ok", 0.05), (key(1, B), "kind=y", "ok", 0.1),
         (key(1, B), "vendor=cudnn", "ok", 0.4),
         (key(16, B), "kind=y", "wrong", 0.01), (key(16, B), "vendor=cudnn", "ok", 0.4)]
FP32 = ("network,batch,n,h,w,c,k,r,s,stride,pad,oracle_gflops,deployed_gflops,vendor_gflops,"
        "layer,config,status,vendor_algo\n"
        "vgg16,1,1,8,8,8,8,3,3,1,1,10,9.437184,4.718592,a,kind=x,ok,cudnn engine=1\n")


class Tables(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.d = self.tmp.name
        os.makedirs(f"{d}/workloads")
        for name, text in (("workloads/conv2d-vgg16.csv", VGG),
                           ("workloads/conv2d-resnet50.csv", RESNET), ("h.hpp", HEADER),
                           ("fp32-deployed.csv", FP32)):
            with open(f"{d}/{name}", "w") as f:
                f.write(text)
        with gzip.open(f"{d}/sweep-bf16.csv.gz", "wt") as f:
            f.write("device,family,problem,config,config_id,status,median_ms,message\n")
            for p, c, st, ms in SWEEP:
                # batch-16 vendor rows as `ktune export` names them now ("cudnn"), batch 1 as
                # older exports did ("vendor=cudnn"): the script reads both.
                if c == "vendor=cudnn" and p.startswith("n=16;"):
                    c = "cudnn"
                f.write(f"d,conv2d,{p},{c},{-1 if 'cudnn' in c else 0},{st},{ms},"
                        f"{'cudnn bf16 engine=9 layout=NCHW' if 'cudnn' in c else ''}\n")

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self, *selectors, out="out.csv"):
        d = self.d
        return subprocess.run([sys.executable, SCRIPT, "--dir", d, "--workloads", f"{d}/workloads",
                               *[f"--selector={s}" for s in selectors], "--csv", f"{d}/{out}",
                               "--markdown", f"{d}/out.md"], capture_output=True, text=True)

    def test_figures(self):
        r = self.run_script(f"in={self.d}/h.hpp", f"out={self.d}/h.hpp@resnet50")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(f"{self.d}/out.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        get = {(x["precision"], x["ktune"], x["sample"], x["network"], x["n"]): x for x in rows}
        a1 = get[("bf16", "selector", "in", "vgg16", "1")]
        self.assertEqual((a1["ktune_config"], float(a1["ratio"])), ("kind=x", 0.5))
        self.assertIn("layout=NCHW", a1["vendor_algo"])
        a16 = get[("bf16", "selector", "in", "vgg16", "16")]
        self.assertEqual((a16["ktune_config"], float(a16["ratio"])), ("kind=y", 2.0))
        b16 = get[("bf16", "selector", "in", "resnet50", "16")]
        self.assertEqual((b16["status"], b16["ratio"]), ("ktune wrong, vendor ok", ""))
        self.assertEqual(float(get[("bf16", "oracle", "in-sample", "resnet50", "1")]["ratio"]), 8)
        self.assertEqual({x["network"] for x in rows if x["sample"] == "out"}, {"resnet50"})
        fp32 = get[("fp32", "deployed library", "in-sample", "vgg16", "1")]
        # 2 * 64 pixels * k 8 * c 8 * 9 taps = 73728 FLOP at 9.437184 GFLOP/s: 0.0078125 ms;
        # cuDNN at half the rate: ratio 2.
        self.assertAlmostEqual(float(fp32["ktune_ms"]), 0.0078125, places=9)
        self.assertAlmostEqual(float(fp32["ratio"]), 2.0)
        with open(f"{self.d}/out.md") as f:
            md = f.read()
        # in, all: a b1 (0.5, count 2), a b16 (2.0, count 2), b b1 (4.0); b b16 missing.
        # geomean (0.5 * 2 * 4)^(1/3) = 1.587; time-weighted (2*0.1 + 2*1.0 + 0.4) /
        # (2*0.2 + 2*0.5 + 0.1) = 2.6 / 1.5 = 1.733.
        line = next(x for x in md.splitlines() if x.startswith("| bf16 | selector | in | all |"))
        self.assertIn("| 4 (1 missing) | 1.587 | 1.733 | 1 |", line)
        self.assertIn("resnet50 b b16 (ktune wrong, vendor ok)", md)
        self.assertIn("| resnet50 b16 | 1 (1 missing) | — | — | 0 |", md)
        self.assertAlmostEqual(1.587, (0.5 * 2 * 4) ** (1 / 3), places=3)
        self.assertTrue(math.isclose(2.6 / 1.5, 1.7333, rel_tol=1e-4))

    def test_run_json(self):
        self.assertEqual(self.run_script(f"in={self.d}/h.hpp", out="per-layer.csv").returncode, 0)
        with open(f"{self.d}/nvidia-smi.txt", "w") as f:
            f.write("name, driver_version, memory.total [MiB]\n"
                    "NVIDIA H100 80GB HBM3, 580.1, 81559 MiB\n")
        run_json = os.path.join(os.path.dirname(os.path.abspath(SCRIPT)), "run_json.py")
        r = subprocess.run([sys.executable, run_json, self.d, "--commit", "abc", "--command", "x"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(f"{self.d}/run.json") as f:
            run = json.load(f)
        self.assertEqual(run["device"], "NVIDIA H100 80GB HBM3 (lent, driver 580.1, 81559 MiB)")
        self.assertIn("bf16 selector (in): 1.587 / 1.733 / 1 of 4, 1 not compared", run["measures"])
        self.assertIn("fp32 deployed library (in-sample): 2.000 / 2.000 / 0 of 1", run["measures"])
        self.assertIn("sweep-bf16.csv.gz", run["files"])
        self.assertNotIn("run.json", run["files"])

    def test_bad_selector_is_one_line(self):
        r = self.run_script(f"{self.d}/h.hpp")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("expected LABEL=HEADER", r.stderr)

    def test_picks_match_the_shipped_library(self):
        res = os.path.join(ROOT, "results", "h100-80gb-hbm3")
        sel = os.path.join(ROOT, "libraries", "conv2d", "selectors")
        for run, header in (("conv-deployed-cudnn-best/conv-deployed-vs-cudnn.csv",
                             "h100-80gb-hbm3-k8.hpp"),
                            ("conv-deployed-cudnn-best-heldout/conv-deployed-vs-cudnn-heldout.csv",
                             "h100-80gb-hbm3-resnet50-k8.hpp")):
            with open(os.path.join(res, run), newline="") as f:
                rows = list(csv.DictReader(f))
            keys = [";".join(f"{f}={r[f]}" for f in ("n", "h", "w", "c", "k", "r", "s", "stride",
                                                      "pad")) for r in rows]
            picks = header_picks(os.path.join(sel, header), keys)
            self.assertEqual([picks[k][0] for k in keys], [r["config"] for r in rows], run)


class EnginePicks(unittest.TestCase):
    """engine_picks.py: ratios cuDNN / gemm_ex from the pick notes, other rows ignored, a conv
    row without a note is a one-line error."""
    LAYERS = ("network,batch,backend,layer,name,kind,median_ms,choice\n"
              'n,1,ktune-tf32,0,c0,conv,1,"pick=cudnn (gemm_ex 0.4 ms, cudnn 0.1 ms at load)"\n'
              'n,1,ktune-tf32,1,c1,conv,1,"pick=gemm_ex (gemm_ex 0.1 ms, cudnn 0.4 ms at load)"\n'
              "n,1,ktune-tf32,2,p,max_pool,1,\n"
              'n,1,cudnn-tf32,0,c0,conv,1,"cudnn tf32 engine=1"\n')

    def run_on(self, text):
        script = os.path.join(os.path.dirname(os.path.abspath(SCRIPT)), "engine_picks.py")
        with tempfile.TemporaryDirectory() as d:
            with open(f"{d}/layers.csv", "w") as f:
                f.write(text)
            return subprocess.run([sys.executable, script, f"{d}/layers.csv"],
                                  capture_output=True, text=True)

    def test_ratios(self):
        r = self.run_on(self.LAYERS)
        self.assertEqual(r.returncode, 0, r.stderr)
        # 0.25 and 4: geomean 1; time-weighted 0.5 / 0.5 = 1; one below 0.8; one gemm_ex pick.
        self.assertIn("| ktune-tf32 | n | 1 | 2 | 1.000 | 1.000 | 1 | 1 | c0 0.250", r.stdout)
        self.assertNotIn("cudnn-tf32", r.stdout)

    def test_missing_note(self):
        r = self.run_on(self.LAYERS + "n,1,ktune-bf16,3,c3,conv,1,\n")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("ktune-bf16 n b1 c3", r.stderr)


if __name__ == "__main__":
    unittest.main()
