#!/usr/bin/env python3
"""scripts/gpu_remember_runjson.py on a hand-made run directory of scripts/gpu_remember_vit.sh
whose figures are worked out by hand: per precision the plain, remembered and plain-again
geomean / time-weighted ratios, the config each remembered shape served (the cache's answer, not
the bench's pick column), the cache's rows as CSV (the cache then removed), the first-call lines,
the GPU from nvidia-smi.txt; and one-line refusals of an incomplete run.
  test_gpu_remember_runjson.py SCRIPT"""
import csv
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gpu_remember_runjson.py")
HEADER = ("problem,networks,config,status,rel_error,deployed_ms,deployed_gflops,vendor,vendor_ms,"
          "vendor_gflops,openblas_ms,openblas_gflops,openblas_kernel,onednn_ms,onednn_gflops,"
          "onednn_kernel,message")


def key(m):
    return f"transa=0;transb=0;m={m};n=10;k=10;batch=1;precision=2"


def row(problem, config, deployed, vendor):
    return f"{problem},,{config},ok,1e-3,1,{deployed},cublas,1,{vendor},,,,,,,"


class RunJson(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        # plain: key(10) (2000 FLOP) at 0.5, key(20) (4000 FLOP) at 1.0: geomean 0.707,
        # time-weighted (2000/2 + 4000/2) / (2000/1 + 4000/2) = 3000 / 4000 = 0.75.
        plain = [HEADER, row(key(10), "kind=mma;st=3", 1, 2), row(key(20), "vendor=cublas", 2, 2)]
        # remembered: key(10) served vendor=cublas (the cache's answer; the bench's column says
        # the pick) at 1.0, key(20) (sure: not in the cache) at 1.0.
        remembered = [HEADER, row(key(10), "kind=mma;st=3", 2, 2),
                      row(key(20), "vendor=cublas", 2, 2)]
        for name, lines in (("plain-bf16.csv", plain), ("fill-bf16.csv", remembered),
                            ("remember-bf16.csv", remembered), ("plain2-bf16.csv", plain)):
            self.write(name, lines)
        for phase in ("plain", "fill", "remember", "plain2"):
            self.write(f"{phase}-bf16.log", ["ok"])
        db = sqlite3.connect(os.path.join(self.dir, "remember-bf16.sqlite"))
        db.executescript(
            "CREATE TABLE answers(device TEXT, library TEXT, problem TEXT, family TEXT, config TEXT,"
            " created_at TEXT); CREATE TABLE timings(device TEXT, library TEXT, problem TEXT,"
            " family TEXT, config TEXT, median_ms REAL, min_ms REAL, max_ms REAL, mad_ms REAL,"
            " reps INTEGER, created_at TEXT);")
        db.execute("INSERT INTO answers VALUES('gpu', 'gemm/cuda-bf16/x', ?, 'gemm',"
                   " 'vendor=cublas', '')", (key(10),))
        for config, ms in (("kind=mma;st=3", 0.02), ("vendor=cublas", 0.01)):
            db.execute("INSERT INTO timings VALUES('gpu', 'gemm/cuda-bf16/x', ?, 'gemm', ?, ?, ?,"
                       " ?, 0, 7, '')", (key(10), config, ms, ms, ms))
        db.commit()
        db.close()
        self.write("overhead.csv", ["measure,precision,shape,value,unit,detail",
                                    "first,bf16,768x197x768,4.500,ms,budget 100 ms; 3 candidates"])
        self.write("overhead.log", [""])
        self.write("phases.log", ["== 12:00:00 done"])
        self.write("ktune_gpu_vendor_tc_tests.log", ["[  PASSED  ] 41 tests."])
        self.write("nvidia-smi.txt", [
            "| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: 13.0 |",
            "|   0  NVIDIA H200                    On  |   00000000:00:00.0 Off |   0 |"])

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, lines):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write("\n".join(lines) + "\n")

    def run_script(self):
        return subprocess.run([sys.executable, SCRIPT, self.dir, "--command", "cmd", "--commit",
                               "abc"], capture_output=True, text=True)

    def test_figures_served_configs_and_files(self):
        r = self.run_script()
        self.assertEqual(r.returncode, 0, r.stderr)
        run = json.load(open(os.path.join(self.dir, "run.json")))
        self.assertEqual(run["device"], "NVIDIA H200 (driver 580.159.04)")
        self.assertFalse(run["in_sample"])
        bf16 = run["per_precision"]["bf16"]
        self.assertEqual((bf16["plain"]["geomean"], bf16["plain"]["time_weighted"]), (0.707, 0.75))
        self.assertEqual(bf16["plain"]["below_0.8"], 1)
        self.assertEqual((bf16["remember"]["geomean"], bf16["remember"]["time_weighted"]),
                         (1.0, 1.0))
        self.assertEqual(bf16["plain2"]["geomean"], 0.707)
        self.assertEqual(bf16["remembered_shapes"], 1)
        self.assertEqual(bf16["remembered_on_ktune_kernels"], 0)
        self.assertIn("bf16: plain 0.707 / 0.75", run["measures"])
        self.assertIn("first bf16 768x197x768 4.500 ms", run["measures"])
        self.assertIn("ktune_gpu_vendor_tc_tests 41 passed, 0 failed", run["measures"])
        self.assertIn("ktune_gpu_vendor_tc_tests.log", run["files"])
        served = {r["problem"]: r["config"] for r in
                  csv.DictReader(open(os.path.join(self.dir, "remember-bf16-served.csv")))}
        self.assertEqual(served, {key(10): "vendor=cublas", key(20): "vendor=cublas"})
        rows = list(csv.DictReader(open(os.path.join(self.dir, "remembered-bf16.csv"))))
        self.assertEqual([(r["config"], r["winner"]) for r in rows],
                         [("vendor=cublas", "1"), ("kind=mma;st=3", "0")])
        self.assertFalse(os.path.exists(os.path.join(self.dir, "remember-bf16.sqlite")))
        for name in run["files"]:
            self.assertTrue(os.path.exists(os.path.join(self.dir, name)), name)
        self.assertIn("deployed-tables.md", run["files"])
        self.assertIn("remember-bf16-served.csv", run["files"])

    def test_a_rerun_reads_the_cache_it_wrote_out(self):
        # The first run writes the cache out as remembered-bf16.csv and removes it; a second run
        # (the tables or text fixed) must serve the same answers, not the bench's pick column.
        self.assertEqual(self.run_script().returncode, 0)
        first = json.load(open(os.path.join(self.dir, "run.json")))
        r = self.run_script()
        self.assertEqual(r.returncode, 0, r.stderr)
        again = json.load(open(os.path.join(self.dir, "run.json")))
        self.assertEqual(again["per_precision"], first["per_precision"])
        self.assertEqual(again["per_precision"]["bf16"]["remembered_shapes"], 1)
        served = {r["problem"]: r["config"] for r in
                  csv.DictReader(open(os.path.join(self.dir, "remember-bf16-served.csv")))}
        self.assertEqual(served[key(10)], "vendor=cublas")

    def test_an_incomplete_run_is_refused_in_one_line(self):
        os.remove(os.path.join(self.dir, "plain2-bf16.csv"))
        r = self.run_script()
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(r.stderr.strip().count("\n"), 0, r.stderr)
        self.assertIn("plain2-bf16.csv is missing", r.stderr)

    def test_a_directory_of_another_run_is_refused(self):
        for name in os.listdir(self.dir):
            if name.startswith("remember-"):
                os.remove(os.path.join(self.dir, name))
        r = self.run_script()
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not a run of scripts/gpu_remember_vit.sh", r.stderr)


if __name__ == "__main__":
    unittest.main()
