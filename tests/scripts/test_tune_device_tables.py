#!/usr/bin/env python3
"""scripts/tune_device_tables.py --deployed on small hand-made benches (own, multi) whose figures
are worked out by hand: the multi/own geomean, the faster vendor's drift between the two benches
(the same vendor calls in both) and multi/own divided by it; the TAG suffix; a missing file
refused in one line naming it.
  test_tune_device_tables.py SCRIPT"""
import os
import subprocess
import sys
import tempfile
import unittest

# tuned_gemm_bench's CSV columns (examples/tuned-gemm/tuned_gemm_bench.cpp).
COLUMNS = ["problem", "networks", "config", "status", "rel_error", "deployed_ms", "deployed_gflops",
           "vendor", "vendor_ms", "vendor_gflops"] + [
    f"{v}_{c}" for v in ("openblas", "onednn") for c in ("ms", "gflops", "kernel")] + ["message"]
SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "tune_device_tables.py")
SHAPES = ["transa=0;transb=1;m=10;n=10;k=10;batch=1", "transa=0;transb=1;m=20;n=20;k=20;batch=1"]


def write_bench(d, name, deployed, cublas, cublaslt):
    """deployed-NAME.csv and bench-NAME.log of two shapes, GFLOP/s per shape."""
    with open(os.path.join(d, f"deployed-{name}.csv"), "w") as f:
        f.write(",".join(COLUMNS) + "\n")
        for p, g, a, b in zip(SHAPES, deployed, cublas, cublaslt):
            v = max(a, b)
            f.write(f"{p},vgg,kind=tiled;bm=32,ok,1e-7,1,{g},cublas,1,{v},,,,,,,\n")
    with open(os.path.join(d, f"bench-{name}.log"), "w") as f:
        f.write("first call: the selector's first choice took 5.0 us (x), later choices 3 ns "
                "each (checksum 1)\n")
        for i, (p, g, a, b) in enumerate(zip(SHAPES, deployed, cublas, cublaslt), 1):
            f.write(f"[{i}/2] {p} kind=tiled;bm=32 ktune {g} cublas {a} cublaslt {b}\n")


class Deployed(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, name):
        with open(os.path.join(self.dir, name)) as f:
            return f.read()

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, "--deployed", self.dir, *args],
                              capture_output=True, text=True)

    def test_multi_over_own_and_the_vendor_drift(self):
        # multi/own per shape 0.5 and 2 -> geomean 1; the faster vendor (cuBLASLt on the first
        # shape, cuBLAS on the second) 8 -> 4 and 10 -> 10: drift 0.5 and 1, geomean sqrt(0.5);
        # divided: 1 and 2, geomean sqrt(2).
        write_bench(self.dir, "own", [4, 5], [2, 10], [8, 3])
        write_bench(self.dir, "multi", [2, 10], [1, 10], [4, 3])
        r = self.run_script()
        self.assertEqual(r.returncode, 0, r.stderr)
        md = self.read("deployed.md")
        self.assertIn("geomean **1.0000** over 2 shapes (min 0.500, max 2.000)", md)
        self.assertIn("in both benches: 0.7071", md)
        self.assertIn("divided by it: 1.4142", md)
        self.assertIn("- own: first call: the selector's first choice took 5.0 us", md)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "deployed.csv")))

    def test_tag_names_the_files_read_and_written(self):
        write_bench(self.dir, "own-turns", [4, 4], [4, 4], [4, 4])
        write_bench(self.dir, "multi-turns", [4, 4], [4, 4], [4, 4])
        r = self.run_script("-turns")
        self.assertEqual(r.returncode, 0, r.stderr)
        md = self.read("deployed-turns.md")
        self.assertIn("geomean **1.0000** over 2 shapes", md)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "deployed.md")))

    def test_a_missing_bench_is_refused_naming_it(self):
        write_bench(self.dir, "own", [4, 5], [2, 10], [8, 3])
        r = self.run_script()
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(r.stderr.strip(),
                         f"tune_device_tables: no file {os.path.join(self.dir, 'deployed-multi.csv')}")


if __name__ == "__main__":
    unittest.main()
