#!/usr/bin/env python3
"""scripts/multidevice_pick_check.sh on the committed two-planted-GPU header
(tests/deploy_multidevice/two-gpu-devices-k2.hpp, whose devices' best configs are swapped):
each device's selector in it agrees with that device's own single-device header on every
planted problem, and the other device's header is caught disagreeing.
  test_multidevice_pick_check.py SCRIPT KTUNE SOURCE_DIR"""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT, KTUNE, SOURCE = sys.argv[1:4]
del sys.argv[1:4]
DIR = os.path.join(SOURCE, "tests", "deploy_multidevice")
MULTI = os.path.join(DIR, "two-gpu-devices-k2.hpp")


def single_header(tmp, device):
    """The device's own selector, deployed with the multi header's recipe."""
    out = os.path.join(tmp, device)
    subprocess.run([KTUNE, "deploy", "--name", device.replace("-", "_"), "--data",
                    os.path.join(DIR, f"{device}.csv"), "--pruner", "topn", "--k", "2", "--norm",
                    "cutoff", "--selector", "tree-b", "--backends", "cuda", "-o", out],
                   check=True, capture_output=True)
    return os.path.join(out, "selectors", device, "gemm.hpp")


def check(index, header, data):
    return subprocess.run([SCRIPT, MULTI, str(index), header, os.path.join(DIR, data)],
                          capture_output=True, text=True)


class PickCheck(unittest.TestCase):
    def test_each_device_serves_its_own_selectors_picks(self):
        with tempfile.TemporaryDirectory() as tmp:
            a, b = single_header(tmp, "planted-gpu-a"), single_header(tmp, "planted-gpu-b")
            for index, header, data, slug in ((0, a, "planted-gpu-a.csv", "planted-gpu-a"),
                                              (1, b, "planted-gpu-b.csv", "planted-gpu-b")):
                r = check(index, header, data)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertIn(f"{slug}: 12 problems, 0 differ", r.stdout)
            wrong = check(0, b, "planted-gpu-a.csv")  # device A's picks against B's selector
            self.assertEqual(wrong.returncode, 1, wrong.stdout + wrong.stderr)
            self.assertIn("planted-gpu-a: 12 problems, 12 differ", wrong.stdout)

    def test_a_missing_file_is_named(self):
        r = check(0, "/nonexistent/gemm.hpp", "planted-gpu-a.csv")
        self.assertEqual(r.returncode, 2)
        self.assertIn("/nonexistent/gemm.hpp", r.stderr)


if __name__ == "__main__":
    unittest.main()
