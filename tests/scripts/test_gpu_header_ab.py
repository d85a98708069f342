#!/usr/bin/env python3
"""scripts/gpu_header_ab.sh with stand-in builds and programs (fake_gpu_build_remote.py, in a copy
of the script's tree) and a stand-in nvidia-smi: the two builds (B started once A runs ninja,
each with the common CMAKE_ARGS and its own header for SELECTOR_OPTION), the GPU tests on build
A, the benches per workload A on every shape then B on the differing file with the workload's
@suffix (none where no shape differs), the files each side writes, the deadline cut, a failing
build, and bad input refused up front with one line naming it.
  test_gpu_header_ab.py SCRIPT"""
import os
import subprocess
import sys
import tempfile
import unittest

from gpu_stand_ins import logged_calls, stand_in_tree

SCRIPT = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gpu_header_ab.sh"))
OPTION = "KTUNE_CUDA_BF16_SELECTOR"
COMMON = "-DKTUNE_CUDA_SELECTOR=/x/fp32.hpp -DKTUNE_CUDA_TF32_SELECTOR=/x/tf32.hpp"


class GpuHeaderAb(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.repo, self.path = stand_in_tree(d, SCRIPT)
        sel = os.path.join(self.repo, "selectors")
        os.makedirs(sel)
        for h in ("a.hpp", "b.hpp"):
            open(os.path.join(sel, h), "w").close()
        self.diff = os.path.join(self.repo, ".carry", "picks")
        os.makedirs(self.diff)
        for w, shapes in (("vit", ["1,0,64,197,64,1", "1,0,128,197,64,1"]),
                          ("dnn", ["0,0,64,3136,576,1"]), ("same", [])):
            with open(os.path.join(self.diff, f"differing-{w}.csv"), "w") as f:
                f.write("transa,transb,m,n,k,batch\n" + "".join(s + "\n" for s in shapes))
        with open(os.path.join(self.repo, "vit.csv"), "w") as f:
            f.write("transa,transb,m,n,k,batch\n1,0,64,197,64,1\n1,0,128,197,64,1\n"
                    "1,0,256,197,64,1\n")
        self.out, self.builds = os.path.join(d, "out"), os.path.join(d, "builds")
        os.makedirs(self.builds)
        self.log = os.path.join(d, "calls.jsonl")
        with open(os.path.join(d, "sysroot.tar.gz"), "w") as f:
            f.write("not a tarball: the stand-in build does not unpack it")

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self, **env):
        e = {k: v for k, v in os.environ.items()
             if k not in ("TESTS_FILTER", "BENCH_ARGS", "DEADLINE_S", "CMAKE_ARGS", "EXAMPLES")}
        e.update(PATH=self.path + os.pathsep + os.environ["PATH"],
                 FAKE_GPU_LOG=self.log, SYSROOT=os.path.join(self.tmp.name, "sysroot.tar.gz"),
                 OUT_DIR=self.out, SELECTOR_OPTION=OPTION, HEADER_A="selectors/a.hpp",
                 HEADER_B="selectors/b.hpp", DIFF_DIR=".carry/picks", NAME_A="allkinds",
                 NAME_B="shipped", BUILD_A=os.path.join(self.builds, "ba"),
                 BUILD_B=os.path.join(self.builds, "bb"), CMAKE_ARGS=COMMON,
                 KTUNE_CACHE_DIR=os.path.join(self.tmp.name, "kc"),
                 WORKLOADS="vit=vit.csv@bf16 dnn=dnn@bf16 same=vit.csv@bf16")
        e.update(env)
        return subprocess.run(["bash", os.path.join(self.repo, "scripts", "gpu_header_ab.sh")],
                              capture_output=True, text=True, env=e, cwd=self.tmp.name)

    def calls(self, program=None):
        return logged_calls(self.log, program)

    def benches(self):
        return [(c["build"], c["args"][c["args"].index("--workload") + 1],
                 os.path.basename(c["args"][c["args"].index("--out") + 1]))
                for c in self.calls("tuned_gemm_bench")]

    def test_builds_tests_and_benches_in_order(self):
        r = self.run_script(TESTS_FILTER="TunedGemmEx*")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        sel = os.path.join(os.path.realpath(self.repo), "selectors")
        builds = self.calls("gpu_build_remote.sh")
        self.assertEqual([(b["build"], b["args"][1:]) for b in builds],
                         [("ba", ["tuned_gemm_bench", "ktune_gpu_tests"]),
                          ("bb", ["tuned_gemm_bench"])])
        self.assertEqual(builds[0]["cmake_args"], f"{COMMON} -D{OPTION}={sel}/a.hpp")
        self.assertEqual(builds[1]["cmake_args"], f"{COMMON} -D{OPTION}={sel}/b.hpp")
        self.assertEqual([b["examples"] for b in builds], ["ON", "ON"])
        self.assertEqual(builds[0]["ninja_started"], [])
        self.assertEqual(builds[1]["ninja_started"], ["ba"])  # B once A runs ninja
        self.assertLess(builds[1]["time"], builds[0]["time"] + 0.3 + 1.5)  # side by side
        tests = self.calls("ktune_gpu_tests")
        self.assertEqual([(t["build"], t["args"]) for t in tests],
                         [("ba", ["--gtest_filter=TunedGemmEx*"])])
        self.assertEqual(self.benches(), [
            ("ba", "vit.csv@bf16", "allkinds-vit.csv"),
            ("bb", ".carry/picks/differing-vit.csv@bf16", "shipped-differing-vit.csv"),
            ("ba", "dnn@bf16", "allkinds-dnn.csv"),
            ("bb", ".carry/picks/differing-dnn.csv@bf16", "shipped-differing-dnn.csv"),
            ("ba", "vit.csv@bf16", "allkinds-same.csv")])
        for c in self.calls("tuned_gemm_bench"):
            self.assertEqual(c["args"][-6:], "--lt-top 0 --rep-budget-ms 10 --rounds 3".split())
            self.assertEqual(c["args"][:2], ["--device", "cuda"])
            self.assertEqual(c["cache"], os.path.join(self.tmp.name, "kc"))
            self.assertEqual(c["env"], "ba")  # the build's env file sourced
        self.assertIn("shipped same: no differing shape, not run", r.stdout)
        self.assertIn("allkinds-vit exit 0 (", r.stdout)
        self.assertIn("3 shapes", r.stdout)
        self.assertEqual(sorted(os.listdir(self.out)), sorted([
            "allkinds-dnn.csv", "allkinds-dnn.log", "allkinds-same.csv", "allkinds-same.log",
            "allkinds-vit.csv", "allkinds-vit.log", "build-allkinds.log", "build-shipped.log",
            "gpu-tests.log", "nvidia-smi.txt", "shipped-differing-dnn.csv",
            "shipped-differing-dnn.log", "shipped-differing-vit.csv",
            "shipped-differing-vit.log"]))
        with open(os.path.join(self.out, "shipped-differing-vit.csv")) as f:
            self.assertEqual(len(f.read().splitlines()), 3)  # the two differing shapes

    def test_deadline_cuts_benches(self):
        # Each bench takes 4 s: with 16 - 5 s and more than 3 s needed to start, two start (at
        # about 1 and 5 s, 10 and 6 s left) and the third (about 2 s left) is skipped.
        r = self.run_script(DEADLINE_S="16", MIN_BENCH_S="3", FAKE_BENCH_SECONDS="4",
                            BENCH_ARGS="--rounds 1")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual([b[2] for b in self.benches()],
                         ["allkinds-vit.csv", "shipped-differing-vit.csv"])
        for c in self.calls("tuned_gemm_bench"):
            self.assertEqual(c["args"][-2:], ["--rounds", "1"])
        self.assertIn("skipped allkinds allkinds-dnn (time)", r.stdout)
        self.assertIn("skipped shipped shipped-differing-dnn (time)", r.stdout)
        self.assertIn("skipped allkinds allkinds-same (time)", r.stdout)

    def test_failed_build_a_stops(self):
        r = self.run_script(FAKE_BUILD_FAIL="ba")
        self.assertEqual(r.returncode, 1)
        self.assertIn("build allkinds exit 1", r.stdout)
        self.assertIn("planted build failure", r.stdout)  # the build log's tail
        self.assertEqual(self.benches(), [])

    def test_failed_build_b_leaves_a_run(self):
        r = self.run_script(FAKE_BUILD_FAIL="bb")
        self.assertEqual(r.returncode, 1)
        self.assertEqual([b[0] for b in self.benches()], ["ba", "ba", "ba"])

    def assert_refused(self, r, *names):
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        for name in names:
            self.assertIn(name, r.stderr)
        self.assertEqual(self.calls(), [])
        self.assertFalse(os.path.exists(self.out))

    def test_missing_header(self):
        self.assert_refused(self.run_script(HEADER_B="selectors/no-such.hpp"), "HEADER_B",
                            "selectors/no-such.hpp")
        self.assert_refused(self.run_script(HEADER_A=""), "HEADER_A")

    def test_missing_differing_file(self):
        self.assert_refused(self.run_script(WORKLOADS="vit=vit.csv@bf16 llm=llm@bf16"),
                            ".carry/picks/differing-llm.csv")
        self.assert_refused(self.run_script(DIFF_DIR=".carry/none"),
                            ".carry/none/differing-vit.csv")

    def test_other_bad_input(self):
        self.assert_refused(self.run_script(SELECTOR_OPTION="KTUNE_CUDA_BF17_SELECTOR"),
                            "KTUNE_CUDA_BF17_SELECTOR")
        self.assert_refused(self.run_script(CMAKE_ARGS=f"{COMMON} -D{OPTION}=/x/c.hpp"),
                            f"CMAKE_ARGS sets {OPTION}")
        self.assert_refused(self.run_script(SYSROOT="/no/such/sysroot.tar.gz"),
                            "/no/such/sysroot.tar.gz")
        self.assert_refused(self.run_script(WORKLOADS="vit"), "'vit'")
        self.assert_refused(self.run_script(NAME_B="allkinds"), "NAME_A and NAME_B")
        self.assert_refused(self.run_script(OUT_DIR=""), "OUT_DIR")


if __name__ == "__main__":
    unittest.main()
