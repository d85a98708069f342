#!/usr/bin/env python3
"""scripts/gemm_turns_probe.py on hand-made --turns-probe lines whose ratios are worked out by
hand, a failed call among them.
  test_gemm_turns_probe.py SCRIPT"""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gemm_turns_probe.py")

LOG = """first call: noise the script must skip
turns-probe transa=0;transb=0;m=64;n=64;k=64;batch=1;precision=2 kind=mma;bm=64 lib-after-lib 1.000000 lib-after-lt 2.000000 lt-after-lt 1.000000 lt-after-lib 1.000000
turns-probe transa=0;transb=0;m=64;n=64;k=64;batch=2;precision=2 kind=mma;bm=64 lib-after-lib 3.000000 lt-after-lt 1.000000 lt-after-lib 1.000000
turns-probe transa=0;transb=0;m=64;n=64;k=64;batch=3;precision=2 kind=mma;bm=64 lib-after-lib 3.000000 lib-after-lt 1.500000 lt-after-lt 4.000000 lt-after-lib 2.000000
turns-probe transa=0;transb=0;m=64;n=64;k=64;batch=4;precision=2 vendor=cublaslt lib-after-lib 1.000000 lib-after-lt 1.000000 lt-after-lt 1.000000 lt-after-lib 1.000000
turns-probe transa=0;transb=0;m=64;n=64;k=64;batch=5;precision=2 kind=mma;bm=64 lib-after-lib 1.000000 lib-after-lt failed lt-after-lt 1.000000 lt-after-lib 1.000000
"""


class TurnsProbe(unittest.TestCase):
    def test_ratios_per_kind_of_pick(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "probe.log")
            with open(log, "w") as f:
                f.write(LOG)
            out = subprocess.run([sys.executable, SCRIPT, log], capture_output=True, text=True,
                                 check=True).stdout
        rows = {line.split(" | ")[1]: line.split(" | ")[2:] for line in out.splitlines()
                if line.startswith(f"| {log} |")}
        # own kernels: shapes 1 and 3 (2 lacks a field, 5 failed). library 2/1 and 1.5/3:
        # geomean sqrt(2 * 0.5) = 1, time-weighted 3.5 / 4 = 0.875; cuBLASLt 1/1 and 2/4:
        # sqrt(0.5) = 0.707, (1 + 2) / (1 + 4) = 0.6.
        self.assertEqual(rows["own kernels"], ["2", "1.000", "0.875", "0.707", "0.600 |"])
        self.assertEqual(rows["vendor calls"], ["1", "1.000", "1.000", "1.000", "1.000 |"])
        self.assertIn("1 shapes left out", out)


if __name__ == "__main__":
    unittest.main()
