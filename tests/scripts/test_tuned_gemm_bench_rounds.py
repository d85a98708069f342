#!/usr/bin/env python3
"""tuned_gemm_bench --rounds on the CPU (examples/tuned-gemm): per shape every library (the
deployed one and each vendor) runs once in each round, round r starts with library r (mod their
count) so that over as many rounds as libraries each runs once in every position, the CSV's time
of each side is the median of its round times, and a bad --rounds is refused naming it.
  test_tuned_gemm_bench_rounds.py TUNED_GEMM_BENCH"""
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import unittest

BENCH = sys.argv.pop(1) if len(sys.argv) > 1 else "build/bin/tuned_gemm_bench"
SHAPES = ["1,0,64,48,32,2", "0,1,33,17,9,1"]


class Rounds(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.workload = os.path.join(self.tmp.name, "w.csv")
        with open(self.workload, "w") as f:
            f.write("transa,transb,m,n,k,batch\n" + "\n".join(SHAPES) + "\n")

    def tearDown(self):
        self.tmp.cleanup()

    def bench(self, *args):
        return subprocess.run([BENCH, "--device", "cpu", "--workload", self.workload,
                               "--gap-ms", "1", "--min-reps", "3", "--max-reps", "3", *args],
                              capture_output=True, text=True, timeout=300)

    def test_every_library_in_every_position(self):
        out = os.path.join(self.tmp.name, "out.csv")
        rounds = os.path.join(self.tmp.name, "rounds.csv")
        r = self.bench("--out", out, "--rounds", "3", "--rounds-out", rounds)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(out) as f:
            rows = {row["problem"]: row for row in csv.DictReader(f)}
        with open(rounds) as f:
            times = list(csv.DictReader(f))
        self.assertEqual(len(rows), len(SHAPES))
        for problem, row in rows.items():
            self.assertEqual(row["status"], "ok", row)
            libs = ["deployed"] + [v for v in ("openblas", "onednn") if row[f"{v}_ms"]]
            mine = [t for t in times if t["problem"] == problem]
            self.assertEqual(len(mine), 3 * len(libs))
            for t in mine:  # round r's first library is library r (mod their count)
                at = (int(t["round"]) + int(t["position"])) % len(libs)
                self.assertEqual(t["library"], libs[at], t)
            for lib in libs:
                runs = [t for t in mine if t["library"] == lib]
                self.assertEqual(sorted(int(t["round"]) for t in runs), [0, 1, 2])
                if len(libs) == 3:
                    self.assertEqual(sorted(int(t["position"]) for t in runs), [0, 1, 2])
                median = statistics.median(float(t["ms"]) for t in runs)
                column = "deployed_ms" if lib == "deployed" else f"{lib}_ms"
                self.assertAlmostEqual(float(row[column]), median, delta=2e-6 + 1e-6 * median)

    def test_bad_rounds_is_refused(self):
        r = self.bench("--out", os.path.join(self.tmp.name, "o.csv"), "--rounds", "0")
        self.assertNotEqual(r.returncode, 0)
        # CLI11's line naming the option (then its usual "Run with --help" hint)
        self.assertIn("--rounds: Value 0 not in range", r.stderr.splitlines()[0], r.stderr)


if __name__ == "__main__":
    unittest.main()
