#!/usr/bin/env python3
"""scripts/cpu_packedz_ab.sh with two fake ktune binaries (fake_ktune_packedz.py, which record
each call) on two hand-made workloads: per workload, shard i timed by before then after for even
i, after then before for odd i; each side's own store, exported by the after binary to
<workload>-<side>.csv.gz with every shape; the default configs, TIMING and THREADS, the OpenBLAS
variables unset; CONFIGS=pa1: the kind's 72 configs with pa = 1; the log's OpenBLAS core line;
too few arguments: the usage line, exit 2, nothing made; a failing bench or a missing binary: a
non-zero exit and no export.
  test_cpu_packedz_ab.py SCRIPT"""
import csv
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "cpu_packedz_ab.sh")
FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_ktune_packedz.py")

SHAPES = ["0,0,64,197,197,16", "1,0,768,197,512,1", "1,1,384,96,1536,2", "0,1,32,8,16,4"]


def problem(line):
    return ";".join(f"{k}={v}" for k, v in zip(("transa", "transb", "m", "n", "k", "batch"),
                                                line.split(",")))


class CpuPackedzAb(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.out, self.stores = os.path.join(d, "out"), os.path.join(d, "stores")
        os.makedirs(os.path.join(d, "bin"))
        self.bins = [os.path.join(d, "bin", side) for side in ("before", "after")]
        for b in self.bins:
            shutil.copy(FAKE, b)
            os.chmod(b, 0o755)
        self.calls_log = os.path.join(d, "calls.jsonl")
        self.workloads = []
        for name, shapes in (("vit", SHAPES), ("small", SHAPES[:1])):
            self.workloads.append(os.path.join(d, f"{name}.csv"))
            with open(self.workloads[-1], "w") as f:
                f.write("transa,transb,m,n,k,batch\n" + "".join(s + "\n" for s in shapes))

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self, *args, env=None):
        e = {k: v for k, v in os.environ.items() if k not in ("SHARDS", "CONFIGS", "TIMING",
                                                              "THREADS")}
        e.update(FAKE_KTUNE_LOG=self.calls_log, STORE_DIR=self.stores,
                 OPENBLAS_CORETYPE="Haswell", OPENBLAS_L2_SIZE="1048576", **(env or {}))
        return subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, env=e)

    def calls(self, command="bench"):
        if not os.path.exists(self.calls_log):
            return []
        with open(self.calls_log) as f:
            calls = [json.loads(line) for line in f]
        return [c for c in calls if c["args"][0] == command and "--help" not in c["args"]]

    def exports(self):
        return sorted(f for f in os.listdir(self.out) if f.endswith(".csv.gz")) \
            if os.path.isdir(self.out) else []

    @staticmethod
    def arg(call, name):
        return call["args"][call["args"].index(name) + 1]

    def test_shards_sides_stores_and_exports(self):
        r = self.run_script(self.out, *self.bins, *self.workloads)
        self.assertEqual(r.returncode, 0, r.stderr)
        benches = self.calls()
        got = [(os.path.basename(self.arg(c, "--workload")), self.arg(c, "--shard"), c["side"])
               for c in benches]
        want = []
        for w in ("vit.csv", "small.csv"):
            for i, sides in enumerate((("before", "after"), ("after", "before"),
                                       ("before", "after"))):
                want += [(w, f"{i}/3", s) for s in sides]
        self.assertEqual(got, want)
        for c in benches:
            name = os.path.basename(self.arg(c, "--workload"))[:-4]
            self.assertEqual(self.arg(c, "--store"),
                             os.path.join(self.stores, f"{name}-{c['side']}.sqlite"))
            self.assertEqual(c["args"][:5], ["bench", "--family", "gemm", "--device", "cpu"])
            self.assertEqual(self.arg(c, "--configs"), "kind:packedz")
            self.assertEqual(c["args"][-6:], "--warmups 0 --min-reps 2 --rep-budget-ms 10".split())
            self.assertEqual(c["omp"], "2")
            self.assertEqual(c["openblas_env"], [])  # OpenBLAS's native kernel
        self.assertEqual({c["side"] for c in self.calls("export")}, {"after"})
        self.assertEqual(self.exports(), ["small-after.csv.gz", "small-before.csv.gz",
                                          "vit-after.csv.gz", "vit-before.csv.gz"])
        for side in ("before", "after"):
            with gzip.open(os.path.join(self.out, f"vit-{side}.csv.gz"), "rt") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual({r["device"] for r in rows}, {side})  # this side's store only
            self.assertEqual(sorted(r["problem"] for r in rows), sorted(map(problem, SHAPES)))
        with open(os.path.join(self.out, "sweep.log")) as f:
            log = f.read()
        self.assertIn("# OpenBLAS Core: FakeCore; CPU: ", log)
        self.assertIn("vit shard 1/3 after, load ", log)

    def test_pa1_configs_and_env(self):
        r = self.run_script(self.out, *self.bins, self.workloads[1],
                            env={"CONFIGS": "pa1", "SHARDS": "1", "THREADS": "1",
                                 "TIMING": "--min-reps 5"})
        self.assertEqual(r.returncode, 0, r.stderr)
        benches = self.calls()
        self.assertEqual([c["side"] for c in benches], ["before", "after"])
        configs = self.arg(benches[0], "--configs").split(",")
        self.assertEqual(self.arg(benches[1], "--configs").split(","), configs)
        self.assertEqual(len(set(configs)), 72)
        self.assertEqual(len(configs), 72)
        for c in configs:
            kv = dict(x.split("=") for x in c.split(";"))
            self.assertEqual((kv["kind"], kv["pa"], kv["nc"]), ("packedz", "1", "3072"), c)
        tiles = {(kv["mr"], kv["nr"]) for kv in (dict(x.split("=") for x in c.split(";"))
                                                 for c in configs)}
        self.assertEqual(tiles, {("16", "12"), ("32", "6"), ("32", "8"), ("32", "12"),
                                 ("48", "8"), ("64", "6")})
        for c in benches:
            self.assertEqual(c["args"][-2:], ["--min-reps", "5"])
            self.assertEqual(c["omp"], "1")
        with open(os.path.join(self.out, "sweep.log")) as f:
            self.assertIn("configs pa1", f.readline())

    def test_too_few_arguments(self):
        r = self.run_script(self.out, *self.bins)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn("usage: ", r.stderr)
        self.assertFalse(os.path.exists(self.out))
        self.assertFalse(os.path.exists(self.stores))
        self.assertEqual(self.calls(), [])

    def test_failing_bench(self):
        r = self.run_script(self.out, *self.bins, *self.workloads,
                            env={"FAKE_KTUNE_FAIL": "after"})
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual([c["side"] for c in self.calls()], ["before", "after"])  # stops there
        self.assertEqual(self.exports(), [])
        with open(os.path.join(self.out, "sweep.log")) as f:
            self.assertIn("after: planted failure", f.read())  # the bench's last line

    def assert_refused_up_front(self, r, name):
        # One line naming the bad input, exit 2, before anything is run or written.
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn(name, r.stderr)
        self.assertEqual(self.calls(), [])
        self.assertFalse(os.path.exists(self.out))
        self.assertFalse(os.path.exists(self.stores))

    def test_missing_before_binary(self):
        missing = os.path.join(self.tmp.name, "no-such-ktune")
        r = self.run_script(self.out, missing, self.bins[1], *self.workloads)
        self.assert_refused_up_front(r, missing)
        self.assertIn("BEFORE_KTUNE", r.stderr)

    def test_missing_after_binary(self):
        missing = os.path.join(self.tmp.name, "no-such-ktune")
        r = self.run_script(self.out, self.bins[0], missing, *self.workloads)
        self.assert_refused_up_front(r, missing)
        self.assertIn("AFTER_KTUNE", r.stderr)

    def test_missing_workload(self):
        missing = os.path.join(self.tmp.name, "no-such-workload.csv")
        r = self.run_script(self.out, *self.bins, self.workloads[0], missing)
        self.assert_refused_up_front(r, missing)


if __name__ == "__main__":
    unittest.main()
