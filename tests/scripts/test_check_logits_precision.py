#!/usr/bin/env python3
"""scripts/networks/check_logits.py --precision on hand-made logits: the PyTorch reference of
the named precision replaces FP32 (its own row `pytorch-bf16`, the last column naming it), a
candidate within the tolerance of both references passes, one beyond it fails with exit 1, and
a reference file without that precision's logits is refused naming it.
  test_check_logits_precision.py SCRIPT"""
import array
import csv
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "networks", "check_logits.py")
sys.path.insert(0, os.path.dirname(os.path.abspath(SCRIPT)))
import safetensors_io  # noqa: E402

FP64 = [10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]


def f32(values):
    return ("F32", [1, len(values)], array.array("f", values))


class CheckLogitsPrecision(unittest.TestCase):
    def run_check(self, tmp, tensors, candidate, tolerance):
        ref, cand = os.path.join(tmp, "ref.safetensors"), os.path.join(tmp, "cand.safetensors")
        safetensors_io.write(ref, tensors)
        safetensors_io.write(cand, {"logits": f32(candidate)})
        out = os.path.join(tmp, "agreement.csv")
        done = subprocess.run([sys.executable, SCRIPT, "--network", "tiny", "--input", "1",
                               "--reference", ref, "--candidate", f"cudnn-bf16={cand}",
                               "--precision", "bf16", "--tolerance", str(tolerance), "--csv", out],
                              capture_output=True, text=True)
        rows = list(csv.DictReader(open(out))) if os.path.exists(out) else []
        return done, rows

    def test_bf16_reference_replaces_fp32(self):
        # PyTorch bf16 is 0.05 off float64 on the top logit; the candidate equals PyTorch bf16,
        # so it passes with 1e-2 of max |logit| against both only because 0.05 / 10 = 5e-3.
        bf16 = [10.05] + FP64[1:]
        tensors = {"fp64": ("F64", [1, 10], array.array("d", FP64)), "fp32": f32(FP64),
                   "bf16": f32(bf16)}
        with tempfile.TemporaryDirectory() as tmp:
            done, rows = self.run_check(tmp, tensors, bf16, 1e-2)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            self.assertEqual([r["backend"] for r in rows], ["pytorch-bf16", "cudnn-bf16"])
            self.assertTrue(all(r["pytorch_precision"] == "bf16" for r in rows))
            self.assertEqual(float(rows[1]["rel_err_vs_pytorch_fp32"]), 0.0)  # vs PyTorch bf16
            self.assertAlmostEqual(float(rows[1]["rel_err_vs_fp64"]), 5e-3, places=6)
            # Beyond the tolerance: the candidate fails, exit 1.
            done, rows = self.run_check(tmp, tensors, [10.5] + FP64[1:], 1e-2)
            self.assertEqual(done.returncode, 1)
            self.assertEqual(rows[-1]["pass"], "0")

    def test_reference_without_that_precision_is_refused(self):
        tensors = {"fp64": ("F64", [1, 10], array.array("d", FP64)), "fp32": f32(FP64)}
        with tempfile.TemporaryDirectory() as tmp:
            done, _ = self.run_check(tmp, tensors, FP64, 1e-2)
            self.assertNotEqual(done.returncode, 0)
            self.assertIn("no 'bf16' logits", done.stderr)


if __name__ == "__main__":
    unittest.main()
