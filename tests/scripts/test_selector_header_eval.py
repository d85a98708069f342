#!/usr/bin/env python3
"""scripts/selector_header_eval.py on a hand-made header and sweep whose figures are worked out by
hand: the header picks a kernel for m <= 100 and cuBLASLt above; the scores per set (in-sample,
held-out llm) against the faster vendor and the oracle, and the counts below 0.8x / 0.9x.
  test_selector_header_eval.py SCRIPT"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "selector_header_eval.py")

HEADER = """#pragma once
namespace ktune_selector {
inline constexpr const char* kConfigs[2] = {"kind=mma;bm=64", "vendor=cublaslt"};
inline int select(long long, long long, long long m, long long, long long, long long, long long) {
  return m <= 100 ? 0 : 1;
}
}  // namespace ktune_selector
"""
ROWS = [  # problem m, config, perf, tag
    (64, "kind=mma;bm=64", 4.0, "resnet"), (64, "cublas", 2.0, "resnet"),
    (64, "cublaslt", 1.0, "resnet"), (64, "cublaslt-top8", 9.0, "resnet"),
    (80, "kind=mma;bm=64", 7.0, "vgg"), (80, "cublas", 10.0, "vgg"), (80, "cublaslt", 1.0, "vgg"),
    (200, "kind=mma;bm=64", 8.0, "llm"), (200, "cublas", 2.0, "llm"),
    (200, "cublaslt", 4.0, "llm"),
]


def problem(m, precision=2):
    return f"transa=0;transb=0;m={m};n=8;k=8;batch=1;precision={precision}"


def evaluate(header_text, rows, *runs):
    """The script on a header and CSV rows (key, config, perf, tag), once per argument list."""
    with tempfile.TemporaryDirectory() as tmp:
        header, data = os.path.join(tmp, "s.hpp"), os.path.join(tmp, "d.csv")
        with open(header, "w") as f:
            f.write(header_text)
        with open(data, "w") as f:
            f.write("device,family,problem,config,config_id,status,perf,tags\n")
            for key, config, perf, tag in rows:
                f.write(f"d,gemm,{key},{config},0,ok,{perf},{tag}\n")
        return [subprocess.run([sys.executable, SCRIPT, header, data, *args], capture_output=True,
                               text=True) for args in runs]


class SelectorHeaderEval(unittest.TestCase):
    @unittest.skipUnless(shutil.which("c++"), "no c++ compiler on PATH")
    def test_scores_per_set(self):
        rows = [(problem(m), config, perf, tag) for m, config, perf, tag in ROWS]
        rows.append((problem(64, 3), "cublas", 1.0, "resnet"))  # another precision
        good, bad = evaluate(HEADER, rows, ["2", "--list"], ["1"])
        self.assertEqual(good.returncode, 0, good.stderr)
        out = good.stdout
        rows = {line.split(" | ")[0][2:]: line.split(" | ")[1:] for line in out.splitlines()
                if line.startswith("| in-sample |") or line.startswith("| held-out-llm |")}
        # in-sample: m=64 mma 4 vs faster vendor 2 (2.0x, oracle 4: 1.0; the top-8 row is no
        # oracle), m=80 mma 7 vs 10 (0.7x, oracle 10: 0.7): geomean sqrt(1.4) = 1.183, % of
        # oracle 100 sqrt(0.7) = 83.7, one below 0.8x and 0.9x, two own-kernel picks.
        self.assertEqual(rows["in-sample"], ["2", "2", "1.183", "83.7", "1", "1", "2 |"])
        # held out: m=200 cuBLASLt 4 against the faster vendor 4 (1.0), oracle 8 (50 %).
        self.assertEqual(rows["held-out-llm"], ["1", "1", "1.000", "50.0", "0", "0", "0 |"])
        self.assertIn("m=80;n=8;k=8;batch=1;precision=2 | `kind=mma;bm=64` | 0.700", out)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("no problem of precision 1", bad.stderr)

    @unittest.skipUnless(shutil.which("c++"), "no c++ compiler on PATH")
    def test_fp32_keys_name_no_precision(self):
        header_fp32 = HEADER.replace("long long, long long, long long m, long long, long long, "
                                     "long long, long long", "long long, long long, long long m, "
                                     "long long, long long, long long")
        self.assertNotEqual(header_fp32, HEADER)
        rows = [(problem(m).replace(";precision=2", ""), config, perf, tag)
                for m, config, perf, tag in ROWS[:7]]
        rows.append((problem(64), "cublas", 1.0, "resnet"))  # a bf16 key: left out
        (result,) = evaluate(header_fp32, rows, ["fp32"])
        self.assertEqual(result.returncode, 0, result.stderr)
        out = result.stdout
        rows = {line.split(" | ")[0][2:]: line.split(" | ")[1:] for line in out.splitlines()
                if line.startswith("| in-sample |")}
        # The in-sample rows of the test above, without their precision field: the same scores.
        self.assertEqual(rows["in-sample"], ["2", "2", "1.183", "83.7", "1", "1", "2 |"])


if __name__ == "__main__":
    unittest.main()
