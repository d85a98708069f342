#!/usr/bin/env python3
"""scripts/cpu_gemm_quiet_runjson.py on a hand-made run directory whose figures are worked out by
hand: per set the geomean, time-weighted ratio, shapes below 0.8x / 0.9x and own-kernel share of
the tuned_gemm_bench CSV, the per-round pairing and spread of the rounds CSV, in_sample per set
(null when mixed), the vendors that ran, and one-line refusals of bad input.
  test_cpu_gemm_quiet_runjson.py SCRIPT"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "cpu_gemm_quiet_runjson.py")
HEADER = ("problem,networks,config,status,rel_error,deployed_ms,deployed_gflops,vendor,vendor_ms,"
          "vendor_gflops,openblas_ms,openblas_gflops,openblas_kernel,onednn_ms,onednn_gflops,"
          "onednn_kernel,message")


def key(m):
    return f"transa=0;transb=0;m={m};n=10;k=10;batch=1"


def row(problem, config, deployed, openblas, onednn):
    best, name = max((openblas, "openblas"), (onednn, "onednn"))
    return (f"{problem},,{config},ok,1e-7,1,{deployed},{name},1,{best},1,{openblas},Cooperlake,"
            f"1,{onednn},brg:avx512_core,")


class RunJson(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        # vit (held out): key(10) (2000 FLOP) at 0.5 on an own kernel, key(20) (4000 FLOP) at 1.0
        # on vendor=onednn: geomean 0.707; time-weighted (2000/4 + 4000/2) / (2000/2 + 4000/2) =
        # 2500 / 3000 = 0.833; own kernels 1000 of the 3000 deployed time units (33 %).
        self.write("deployed-cpu-lib-vit.csv", [
            HEADER, row(key(10), "kind=packedz;mr=32", 2, 1, 4),
            row(key(20), "vendor=onednn", 2, 1, 2)])
        # Rounds of key(10): per round vendor-best / deployed = 0.5, 0.25, 0.5 (median 0.5);
        # deployed 1, 1, 2 ms (spread 2). key(20): 1, 1, 1 (median 1), deployed 1, 1.5, 1 (1.5).
        self.write("rounds-cpu-lib-vit.csv", ["problem,round,position,library,ms"] + [
            f"{key(10)},{r},{p},{lib},{ms}" for r, p, lib, ms in [
                (0, 0, "deployed", 1), (0, 1, "openblas", 2), (0, 2, "onednn", 0.5),
                (1, 0, "openblas", 2), (1, 1, "onednn", 0.25), (1, 2, "deployed", 1),
                (2, 0, "onednn", 1), (2, 1, "deployed", 2), (2, 2, "openblas", 2)]] + [
            f"{key(20)},{r},0,{lib},{ms}" for r, lib, ms in [
                (0, "deployed", 1), (0, "onednn", 1), (1, "deployed", 1.5), (1, "onednn", 1.5),
                (2, "deployed", 1), (2, "onednn", 1)]])
        # dnn-sample (in-sample): one shape at 0.85 of the vendor, no rounds file.
        self.write("deployed-cpu-lib-dnn-sample.csv", [HEADER, row(key(30), "kind=x", 17, 20, 10)])

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, lines):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write("\n".join(lines) + "\n")

    def run_json(self):
        with open(os.path.join(self.dir, "run.json")) as f:
            return json.load(f)

    def run_script(self, *sets):
        return subprocess.run([sys.executable, SCRIPT, self.dir, "--command", "cmd x",
                               *[a for s in sets for a in ("--set", s)]],
                              capture_output=True, text=True)

    def test_figures_per_set(self):
        r = self.run_script("lib-vit=held-out", "lib-dnn-sample=in-sample")
        self.assertEqual(r.returncode, 0, r.stderr)
        run = self.run_json()
        self.assertEqual(run["command"], "cmd x")
        self.assertIsNone(run["in_sample"])  # mixed
        self.assertEqual(run["in_sample_per_set"], {"lib-vit": False, "lib-dnn-sample": True})
        m = run["measures"]
        self.assertIn("lib-vit (held-out): 2 shapes, 0.707 geomean / 0.833 time-weighted, "
                      "1 below 0.8x, 1 below 0.9x (50 %), worst 0.500", m)
        self.assertIn("own kernels on 1 of 2 shapes (33 % of the time)", m)
        self.assertIn("per-round pairing: 0.707 geomean, 1 below 0.9x, 1 below 0.8x over 3 rounds, "
                      "deployed round times max/min median 2.00, largest 2.00", m)
        self.assertIn("lib-dnn-sample (in-sample): 1 shapes, 0.850 geomean / 0.850 time-weighted, "
                      "0 below 0.8x, 1 below 0.9x (100 %)", m)
        self.assertIn("OpenBLAS core Cooperlake, oneDNN brg:avx512_core", run["vendors"])
        self.assertEqual(run["files"], sorted(f for f in os.listdir(self.dir) if f != "run.json"))
        self.assertRegex(run["date"], r"^\d{4}-\d{2}-\d{2}$")

    def test_one_kind_is_a_boolean(self):
        self.assertEqual(self.run_script("lib-vit=held-out").returncode, 0)
        self.assertIs(self.run_json()["in_sample"], False)

    def test_bad_input_is_one_line(self):
        for sets, words in [(["lib-vit=maybe"], "expected NAME=held-out|in-sample"),
                            (["nothing=held-out"], "no file")]:
            r = self.run_script(*sets)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn(words, r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)


if __name__ == "__main__":
    unittest.main()
