#!/usr/bin/env python3
"""scripts/gemm_lt_heuristic_rows.py on a hand-made sweep CSV: each top-8 row won by answer #i >= 1
adds one vendor row "cublaslt;heuristic=<i>" with the same timing; #0 adds nothing; every input
row passes through; a top-8 row naming no index, an index past 7, or a non-sweep input is a
one-line error and a non-zero exit.
  test_gemm_lt_heuristic_rows.py SCRIPT"""
import csv
import io
import os
import subprocess
import sys
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gemm_lt_heuristic_rows.py")

HEADER = "device,family,problem,config,config_id,status,median_ms,perf,message,tags\n"
P1, P2 = "transa=0;transb=0;m=8;n=8;k=8;batch=1;precision=1", "transa=0;transb=0;m=9;n=8;k=8;batch=1;precision=1"


def row(problem, config, config_id, status, ms, message, tags="large"):
    return f'd,gemm,{problem},{config},{config_id},{status},{ms},{1 / ms if ms else 0},"{message}",{tags}\n'


def run(text):
    return subprocess.run([sys.executable, SCRIPT], input=text, capture_output=True, text=True)


class LtHeuristicRows(unittest.TestCase):
    def test_adds_one_row_per_winner_past_the_first(self):
        text = (HEADER + row(P1, "kind=mma", 5, "ok", 2.0, "") +
                row(P1, "cublaslt", -1, "ok", 1.0, "") +
                row(P1, "cublaslt-top8", -1, "ok", 0.5, "heuristic #3: algo 1, tile 2 (fastest of 8 tried)") +
                row(P2, "cublaslt", -1, "ok", 1.0, "") +
                row(P2, "cublaslt-top8", -1, "ok", 1.0, "heuristic #0: algo 1 (fastest of 8 tried)") +
                row(P2, "cublaslt-top8", -1, "failed", 0, "no algorithm"))
        out = run(text)
        self.assertEqual(out.returncode, 0, out.stderr)
        rows = list(csv.DictReader(io.StringIO(out.stdout)))
        self.assertEqual(len(rows), 7)  # the six input rows and one added
        added = [r for r in rows if r["config"].startswith("cublaslt;")]
        self.assertEqual(len(added), 1)
        self.assertEqual(added[0]["config"], "cublaslt;heuristic=3")
        self.assertEqual(added[0]["config_id"], "-1")
        self.assertEqual(added[0]["problem"], P1)
        self.assertEqual(added[0]["median_ms"], "0.5")
        self.assertIn("1 cuBLASLt heuristic rows added", out.stderr)

    def test_a_sweep_with_each_answers_row_gains_nothing(self):
        text = (HEADER + row(P1, "cublaslt", -1, "ok", 1.0, "heuristic #0: algo 1") +
                row(P1, "cublaslt;heuristic=3", -1, "ok", 0.5, "heuristic #3: algo 1") +
                row(P1, "cublaslt-top8", -1, "ok", 0.5, "heuristic #3: algo 1 (fastest of 8 tried)"))
        out = run(text)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(list(csv.DictReader(io.StringIO(out.stdout))),
                         list(csv.DictReader(io.StringIO(text))))
        self.assertIn("0 cuBLASLt heuristic rows added", out.stderr)

    def test_bad_input_is_a_one_line_error(self):
        for text, expected in [
                (HEADER + row(P1, "cublaslt-top8", -1, "ok", 1.0, "fastest of 8"), "names no heuristic index"),
                (HEADER + row(P1, "cublaslt-top8", -1, "ok", 1.0, "heuristic #8: algo 1"), "outside 0..7"),
                ("a,b\n1,2\n", "not a sweep CSV"),
                ("", "not a sweep CSV")]:
            out = run(text)
            self.assertNotEqual(out.returncode, 0, text)
            self.assertIn(expected, out.stderr)
            self.assertEqual(len(out.stderr.strip().splitlines()), 1, out.stderr)


if __name__ == "__main__":
    unittest.main()
