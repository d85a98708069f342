#!/usr/bin/env python3
"""scripts/gpu_config_ab.sh with stand-in builds and programs (fake_gpu_build_remote.py, in a copy
of the script's tree) and a stand-in nvidia-smi: the new build (this tree, with EXAMPLES and
CMAKE_ARGS, ktune_gpu_tests only with TESTS_FILTER) before the old one (OLD_SRC, neither), the GPU
tests on the new build only, then per set and round the old build's `ktune bench` before the new
one's, each with its own binary and NVRTC cache, the set's CONFIGS_<set> override, no vendor
rows, every round exported under OUT_DIR; rounds past DEADLINE_S skipped and said; a failed old
build and missing input stop it.
  test_gpu_config_ab.py SCRIPT"""
import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

from gpu_stand_ins import logged_calls, stand_in_tree

SCRIPT = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gpu_config_ab.sh"))


class GpuConfigAb(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.repo, self.path = stand_in_tree(d, SCRIPT)
        self.out, self.builds = os.path.join(d, "out"), os.path.join(d, "builds")
        self.work = os.path.join(d, "work")
        os.makedirs(self.builds)
        os.makedirs(self.work)
        self.log = os.path.join(d, "calls.jsonl")

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self, **env):
        e = {k: v for k, v in os.environ.items()
             if k not in ("TESTS_FILTER", "BENCH_ARGS", "DEADLINE_S", "CMAKE_ARGS", "EXAMPLES",
                          "ROUNDS", "CONFIGS")}
        e.update(PATH=self.path + os.pathsep + os.environ["PATH"],
                 FAKE_GPU_LOG=self.log, SYSROOT="sys.tar.gz", OLD_SRC="old-src.tar.gz",
                 OUT_DIR=self.out, SETS="large=large.csv@bf16 tf=dnn@tf32",
                 CONFIGS="kind=wgmma;bm=128", CONFIGS_tf="kind=mma;bm=64",
                 BUILD_NEW=os.path.join(self.builds, "new"),
                 BUILD_OLD=os.path.join(self.builds, "old"), AB_WORK=self.work)
        e.update(env)
        return subprocess.run(["bash", os.path.join(self.repo, "scripts", "gpu_config_ab.sh")],
                              capture_output=True, text=True, env=e, cwd=self.tmp.name)

    def calls(self, program=None):
        return logged_calls(self.log, program)

    def benches(self):
        def opt(c, name):
            return c["args"][c["args"].index(name) + 1]
        return [(c["build"], opt(c, "--workload"), opt(c, "--configs"),
                 os.path.basename(opt(c, "--store")), os.path.basename(c["cache"]))
                for c in self.calls("ktune") if c["args"][0] == "bench"]

    def test_builds_tests_and_rounds_in_order(self):
        r = self.run_script(TESTS_FILTER="Wgmma*", EXAMPLES="ON", CMAKE_ARGS="-DX=1")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        builds = self.calls("gpu_build_remote.sh")
        self.assertEqual([(b["build"], b["args"][1:], b["examples"], b["cmake_args"], b["src"])
                          for b in builds],
                         [("new", ["ktune", "ktune_gpu_tests"], "ON", "-DX=1", ""),
                          ("old", ["ktune"], "", "", "old-src.tar.gz")])
        self.assertEqual(builds[1]["ninja_started"], ["new"])  # old starts after new is built
        self.assertEqual([(t["build"], t["args"]) for t in self.calls("ktune_gpu_tests")],
                         [("new", ["--gtest_filter=Wgmma*"])])
        expected = []
        for s, workload, configs in (("large", "large.csv@bf16", "kind=wgmma;bm=128"),
                                     ("tf", "dnn@tf32", "kind=mma;bm=64")):
            for rnd in (1, 2):
                for side in ("old", "new"):
                    expected.append((side, workload, configs, f"ab-{s}-{side}-{rnd}.sqlite",
                                     f"ab-kc-{side}"))
        self.assertEqual(self.benches(), expected)
        for c in self.calls("ktune"):
            if c["args"][0] == "bench":
                self.assertIn("--no-vendors", c["args"])
                self.assertEqual(c["args"][c["args"].index("--device") + 1], "cuda:0")
                self.assertEqual(c["env"], "new")  # the new build's env file sourced
            else:  # every round exported by the new build's ktune
                self.assertEqual((c["args"][0], c["build"]), ("export", "new"))
        for s in ("large", "tf"):
            for rnd in (1, 2):
                for side in ("old", "new"):
                    path = os.path.join(self.out, f"sweep-{s}-{side}-{rnd}.csv.gz")
                    with gzip.open(path, "rt") as f:
                        self.assertEqual(json.load(f)["build"], side)  # that side's binary
        self.assertEqual([f for f in os.listdir(self.work) if f.endswith(".sqlite")], [])

    def test_rounds_past_the_deadline_are_skipped_and_said(self):
        # Rounds start while more than 15 s are left: a 10 s window, benches of 3 s.
        r = self.run_script(ROUNDS="3", DEADLINE_S="25", FAKE_BENCH_SECONDS="3",
                            SETS="large=large.csv@bf16")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        ran = self.benches()
        self.assertGreater(len(ran), 0)
        self.assertLess(len(ran), 6)
        self.assertIn("skipped large", r.stdout)
        skipped = [line for line in r.stdout.splitlines() if line.startswith("skipped large")]
        self.assertEqual(len(ran) + len(skipped), 6)

    def test_a_failed_old_build_stops_before_any_bench(self):
        r = self.run_script(FAKE_BUILD_FAIL="old")
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(self.benches(), [])

    def test_missing_input_is_named(self):
        for var in ("SYSROOT", "OLD_SRC", "OUT_DIR", "SETS"):
            r = self.run_script(**{var: ""})
            self.assertNotEqual(r.returncode, 0, var)
            self.assertIn(var, r.stderr)
            self.assertEqual(self.calls(), [], var)


if __name__ == "__main__":
    unittest.main()
