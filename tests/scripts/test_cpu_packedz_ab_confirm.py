#!/usr/bin/env python3
"""scripts/cpu_packedz_ab_confirm.py with two fake ktune binaries (fake_ktune_packedz.py, which
record each call) on a hand-made screening pair: per shape the union of each side's TOP fastest
ok packedz configs (ranked by time as a number; failed and vendor rows never picked; a shape of
the before run only gets the before configs), the same list timed by both binaries, the side going
first alternating from shape to shape and restarting per workload; the shape file's columns; each
side's store exported by the after binary to <workload>-NAME-<side>.csv.gz; THREADS, TIMING and
the OpenBLAS variables unset in the bench environment; a failing bench, a missing screening export
or binary: a non-zero exit and no confirm export.
  test_cpu_packedz_ab_confirm.py SCRIPT"""
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
    os.path.dirname(__file__), "..", "..", "scripts", "cpu_packedz_ab_confirm.py")
FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_ktune_packedz.py")

HEADER = "device,family,problem,config,config_id,status,median_ms\n"
# sorted order PA < PB < PC: the script's shape index i (side first: before when i is even)
PA = "transa=0;transb=0;m=64;n=197;k=197;batch=16"
PB = "transa=1;transb=0;m=768;n=197;k=512;batch=1"
PC = "transa=1;transb=1;m=384;n=96;k=1536;batch=2"  # only in the before screening
PD = "transa=0;transb=1;m=256;n=49;k=1024;batch=1"  # only in the after screening (one test)
C = [f"kind=packedz;mr={mr};nr=8;kc=256;mc=192;nc=3072;pa=1;pb=0" for mr in (16, 32, 48, 64, 96)]


def screening(rows):
    """(problem, config index or vendor name, ms[, status]) -> export text"""
    text = HEADER
    for problem, c, ms, *status in rows:
        config, cid = (C[c], c + 1) if isinstance(c, int) else (c, -1)
        text += f"d,gemm,{problem},{config},{cid},{status[0] if status else 'ok'},{ms}\n"
    return text


class CpuPackedzAbConfirm(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.out, self.stores, bins = (os.path.join(d, x) for x in ("out", "stores", "bin"))
        os.makedirs(self.out)
        os.makedirs(bins)
        self.bins = [os.path.join(bins, side) for side in ("before", "after")]
        for b in self.bins:
            shutil.copy(FAKE, b)
            os.chmod(b, 0o755)
        self.calls_log = os.path.join(d, "calls.jsonl")
        # vit, PA: before's top 2 by time C2 (2.0), C1 (9.0) -- not C0 ("10.0" sorts first as
        # text), not C3 (failed, faster), not oneDNN (a vendor row, fastest); after's C0, C2.
        # PB: before C0, C1; after C1, C3. PC: before C0, C1 only.
        self.write("vit-before", [(PA, 0, "10.0"), (PA, 1, "9.0"), (PA, 2, "2.0"),
                                  (PA, 3, "0.5", "wrong"), (PA, "onednn", "0.1"),
                                  (PB, 0, "1.0"), (PB, 1, "2.0"), (PB, 2, "3.0"),
                                  (PC, 0, "1.0"), (PC, 1, "2.0"), (PC, 2, "3.0")])
        self.write("vit-after", [(PA, 0, "1.0"), (PA, 2, "1.5"), (PA, 3, "3.0"),
                                 (PA, "openblas", "0.2"), (PB, 1, "1.0"), (PB, 3, "2.0"),
                                 (PB, 0, "4.0")])
        # small: one shape, five configs each side (the default top is 4: C4 left out)
        five = [(PB, c, f"{c + 1}.0") for c in range(5)]
        self.write("small-before", five)
        self.write("small-after", five)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, rows):
        with gzip.open(os.path.join(self.out, f"{name}.csv.gz"), "wt") as f:
            f.write(screening(rows))

    def run_script(self, *args, env=None, bins=None):
        e = dict(os.environ, FAKE_KTUNE_LOG=self.calls_log, STORE_DIR=self.stores,
                 OPENBLAS_CORETYPE="Haswell", OPENBLAS_L2_SIZE="1048576", **(env or {}))
        for k in ("TIMING", "THREADS"):
            if k not in (env or {}):
                e.pop(k, None)
        return subprocess.run([sys.executable, SCRIPT, self.out, *(bins or self.bins), *args],
                              capture_output=True, text=True, env=e)

    def calls(self):
        if not os.path.exists(self.calls_log):
            return []
        with open(self.calls_log) as f:
            return [json.loads(line) for line in f]

    @staticmethod
    def problem(workload_text):
        rows = list(csv.DictReader(workload_text.splitlines()))
        assert len(rows) == 1, workload_text
        return ";".join(f"{k}={rows[0][k]}" for k in ("transa", "transb", "m", "n", "k", "batch"))

    def exports(self, name):
        return [f for f in os.listdir(self.out) if f.startswith(f"vit-{name}-")]

    def test_picks_order_stores_and_exports(self):
        r = self.run_script("vit", "--top", "2", "--name", "q",
                            env={"TIMING": "--warmups 1 --min-reps 3", "THREADS": "3"})
        self.assertEqual(r.returncode, 0, r.stderr)
        calls = self.calls()
        benches = [c for c in calls if c["args"][0] == "bench"]
        got = [(c["side"], self.problem(c["workload"])) for c in benches]
        self.assertEqual(got, [("before", PA), ("after", PA), ("after", PB), ("before", PB),
                               ("before", PC), ("after", PC)])
        want = {PA: {C[2], C[1], C[0]}, PB: {C[0], C[1], C[3]}, PC: {C[0], C[1]}}
        for c, (side, problem) in zip(benches, got):
            a = c["args"]
            configs = a[a.index("--configs") + 1].split(",")
            self.assertEqual(len(configs), len(set(configs)), configs)  # the union: no repeats
            self.assertEqual(set(configs), want[problem], (side, problem))
            self.assertEqual(a[a.index("--store") + 1],
                             os.path.join(self.stores, f"vit-q-{side}.sqlite"))
            self.assertEqual(a[:5], ["bench", "--family", "gemm", "--device", "cpu"])
            self.assertEqual(a[-4:], ["--warmups", "1", "--min-reps", "3"])  # TIMING
            self.assertEqual(c["omp"], "3")  # THREADS
            self.assertEqual(c["openblas_env"], [])  # OpenBLAS's native kernel
        exports = [c for c in calls if c["args"][0] == "export"]
        self.assertEqual([c["side"] for c in exports], ["after", "after"])
        self.assertEqual(sorted(self.exports("q")), ["vit-q-after.csv.gz", "vit-q-before.csv.gz"])
        for side in ("before", "after"):
            with gzip.open(os.path.join(self.out, f"vit-q-{side}.csv.gz"), "rt") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual({r["device"] for r in rows}, {side})  # this side's store only
            self.assertEqual(len(rows), 3 + 3 + 2)
            self.assertEqual({r["problem"] for r in rows}, {PA, PB, PC})
        with open(os.path.join(self.out, "confirm.log")) as f:
            log = f.read()
        self.assertIn(f"vit {PB}: 3 configs, after first", log)
        self.assertIn(f"vit {PC}: 2 configs, before first", log)

    def test_defaults_and_workloads_apart(self):
        r = self.run_script("vit", "small")
        self.assertEqual(r.returncode, 0, r.stderr)
        benches = [c for c in self.calls() if c["args"][0] == "bench"]
        small = [c for c in benches
                 if "small-confirm-" in c["args"][c["args"].index("--store") + 1]]
        # the shape index restarts with each workload: small's one shape goes before first
        self.assertEqual([c["side"] for c in small], ["before", "after"])
        for c in small:
            a = c["args"]
            self.assertEqual(set(a[a.index("--configs") + 1].split(",")), set(C[:4]))  # top 4
            self.assertEqual(a[-6:], "--warmups 2 --min-reps 7 --rep-budget-ms 60".split())
            self.assertEqual(c["omp"], "2")
        self.assertEqual(len(benches), 6 + 2)
        self.assertEqual(sorted(f for f in os.listdir(self.out) if "-confirm-" in f),
                         ["small-confirm-after.csv.gz", "small-confirm-before.csv.gz",
                          "vit-confirm-after.csv.gz", "vit-confirm-before.csv.gz"])

    def assert_one_line_error(self, r, *names):
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)  # no traceback
        for name in names:
            self.assertIn(name, r.stderr)

    def test_failing_bench_stops_before_any_export(self):
        r = self.run_script("vit", env={"FAKE_KTUNE_FAIL": "before"})
        self.assert_one_line_error(r, "before bench failed", "planted failure")
        self.assertEqual([c["side"] for c in self.calls()], ["before"])  # nothing after it
        self.assertEqual(self.exports("confirm"), [])
        with open(os.path.join(self.out, "confirm.log")) as f:
            self.assertIn("planted failure", f.read())  # the bench's own reason kept

    def test_missing_screening_export(self):
        os.remove(os.path.join(self.out, "vit-after.csv.gz"))
        r = self.run_script("vit")
        self.assert_one_line_error(r, "vit-after.csv.gz")
        self.assertEqual(self.calls(), [])  # both sides read before any bench
        self.assertEqual(self.exports("confirm"), [])
        self.assertFalse(os.path.exists(os.path.join(self.out, "confirm.log")))
        self.assertFalse(os.path.exists(self.stores))

    def test_missing_binary(self):
        missing = os.path.join(self.tmp.name, "no-such-ktune")
        r = self.run_script("vit", bins=[missing, self.bins[1]])
        self.assert_one_line_error(r, missing, "BEFORE_KTUNE")
        self.assertEqual(self.exports("confirm"), [])
        self.assertFalse(os.path.exists(os.path.join(self.out, "confirm.log")))

    def test_a_shape_only_the_after_run_screened_is_timed(self):
        self.write("vit-after", [(PA, 0, "1.0"), (PD, 2, "1.0"), (PD, 1, "2.0")])
        self.write("vit-before", [(PA, 1, "1.0")])
        r = self.run_script("vit")
        self.assertEqual(r.returncode, 0, r.stderr)
        timed = {self.problem(c["workload"]) for c in self.calls() if c["args"][0] == "bench"}
        self.assertIn(PD, timed)


if __name__ == "__main__":
    unittest.main()
