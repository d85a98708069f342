#!/usr/bin/env python3
"""scripts/host_call_cost_summary.py on hand-made tuned_gemm_bench --host-call-cost logs whose
figures are worked out by hand: medians over runs, the three differences, the steps table; a
missing log, a log without the lines and a line with a figure that is no number are one-line
errors.
  test_host_call_cost_summary.py SCRIPT"""
import os
import random
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "host_call_cost_summary.py")


def call_line(config, s15, steps, bare, null=False):
    return (f"host call cost bf16 128x128x128 NN{' null stream' if null else ''} (us per call, "
            f"median of 21 x 100, in turns): gemm_ex_config {config}; gemm_ex (vendor=cublaslt) "
            f"{config}; s15 steps {s15}; steps {steps}; plan {bare}; cublasLtMatmul {bare};\n")


def step_line(device, capture):
    return (f"host step cost (ns per call, created stream, median of 21 x 1000, in turns): "
            f"cudaGetDevice {device}; cudaStreamIsCapturing {capture};\n")


def run(*logs):
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, text in enumerate(logs):
            paths.append(os.path.join(tmp, f"run{i}.log"))
            if text is not None:
                with open(paths[-1], "w") as f:
                    f.write("first call cost: other lines are ignored\n" + text)
        p = subprocess.run([sys.executable, SCRIPT, *paths], capture_output=True, text=True)
    rows = [r.strip("|").split(" | ") for r in p.stdout.splitlines() if r.startswith("| ")]
    return p, [[c.strip() for c in r] for r in rows]


class HostCallCostSummary(unittest.TestCase):
    def test_medians_and_differences(self):
        # Three runs, created stream: config 10, 11, 12 -> 11; s15 9.5, 9.9, 9.7 -> 9.7;
        # steps 9.0, 9.2, 9.1 -> 9.1; bare 8.8, 8.9, 9.0 -> 8.9. Library - bare 2.1,
        # s15 - new steps 0.6, library - steps 1.9.
        p, rows = run(call_line(10, 9.5, 9.0, 8.8) + step_line(20, 300),
                      call_line(11, 9.9, 9.2, 8.9) + step_line(30, 200),
                      call_line(12, 9.7, 9.1, 9.0) + call_line(9, 8, 7, 6, null=True) +
                      step_line(25, 100))
        self.assertEqual(p.returncode, 0, p.stderr)
        created = next(r for r in rows if r[:3] == ["bf16", "128x128x128 NN", "created"])
        self.assertEqual(created[3:], ["11.000", "11.000", "9.700", "9.100", "8.900", "8.900",
                                       "2.100", "0.600", "1.900"])
        null = next(r for r in rows if r[2] == "null")
        self.assertEqual(null[3:], ["9.000", "9.000", "8.000", "7.000", "6.000", "6.000",
                                    "3.000", "1.000", "2.000"])
        self.assertIn(["cudaGetDevice", "25.000"], rows)
        self.assertIn(["cudaStreamIsCapturing", "200.000"], rows)

    def test_missing_log(self):
        p, _ = run(call_line(1, 1, 1, 1), None)
        self.assertEqual(p.returncode, 1)
        self.assertIn("cannot read", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1)

    def test_no_lines(self):
        p, _ = run("nothing here\n")
        self.assertEqual(p.returncode, 1)
        self.assertIn("no 'host call cost' line", p.stderr)

    def test_figure_not_a_number(self):
        p, _ = run(call_line("x", 1, 1, 1))
        self.assertEqual(p.returncode, 1)
        self.assertIn("unreadable line", p.stderr)

    def test_fuzzed_lines(self):
        # Mangled copies of real lines: a summary or a one-line error, never a traceback.
        rng = random.Random(7)
        good = call_line(10, 9.5, 9.0, 8.8) + step_line(20, 300)
        for _ in range(40):
            chars = list(good)
            for _ in range(rng.randint(1, 12)):
                chars[rng.randrange(len(chars))] = rng.choice("x;:()| 0.-\n")
            p, _ = run("".join(chars))
            self.assertIn(p.returncode, (0, 1), p.stderr)
            self.assertNotIn("Traceback", p.stderr)
            if p.returncode:
                self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)


if __name__ == "__main__":
    unittest.main()
