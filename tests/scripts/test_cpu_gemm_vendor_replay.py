#!/usr/bin/env python3
"""scripts/cpu_gemm_vendor_replay.py's scoring on hand-made picks whose figures are worked out by
hand: ratios against the faster CPU vendor, a vendor pick read from its vendor row, time-weighted
ratio, counts below 0.9x / 0.8x, own-kernel shares, an untimed pick counted apart; a GPU sweep's
rows of one precision with their workload tags.
  test_cpu_gemm_vendor_replay.py SCRIPT"""
import importlib.util
import os
import sys
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "cpu_gemm_vendor_replay.py")
spec = importlib.util.spec_from_file_location("replay", SCRIPT)
replay = importlib.util.module_from_spec(spec)
spec.loader.exec_module(replay)


def key(m):
    return f"transa=0;transb=0;m={m};n=10;k=10;batch=1"  # 2000 m FLOPs


PERF = {  # GFLOP/s-like perf per config; openblas and onednn are the vendor rows
    key(1): {"kind=a": 4.0, "openblas": 2.0, "onednn": 1.0},  # kernel 2x the faster vendor
    key(2): {"kind=a": 1.0, "openblas": 2.0, "onednn": 4.0},  # served onednn: 1x
    key(3): {"kind=a": 3.0, "openblas": 2.0, "onednn": 4.0},  # kernel 0.75x
    key(4): {"openblas": 2.0, "onednn": 1.0},  # the pick kind=a was not timed
}


class Replay(unittest.TestCase):
    def test_scores_against_the_faster_vendor(self):
        problems = [key(m) for m in (1, 2, 3, 4)]
        rows, unmeasured = replay.served(PERF, problems,
                                         ["kind=a", "vendor=onednn", "kind=a", "kind=a"])
        self.assertEqual(unmeasured, 1)
        self.assertEqual([r[0] for r in rows], [2.0, 1.0, 0.75])
        s = replay.score(rows, 4, unmeasured)
        self.assertEqual((s["shapes"], s["scored"], s["unmeasured"]), (4, 3, 1))
        self.assertAlmostEqual(s["geomean"], 1.5 ** (1 / 3))
        # FLOPs 2000 m: vendor times 1000 + 1000 + 1500 = 3500, served 500 + 1000 + 2000 = 3500.
        self.assertAlmostEqual(s["time_weighted"], 1.0)
        self.assertEqual((s["below_0.9"], s["below_0.8"]), (1, 1))
        self.assertEqual(s["worst"], 0.75)
        self.assertAlmostEqual(s["own_shapes"], 2 / 3)
        self.assertAlmostEqual(s["own_time"], 2500 / 3500)
        self.assertEqual(s["worst_shapes"][0], (0.75, key(3), "kind=a"))

    def test_gpu_sweeps_keep_one_precision_and_read_workload_tags(self):
        import gzip
        import tempfile
        header = "device,family,problem,config,config_id,status,median_ms,perf,tags"
        lines = [header,
                 f"d,gemm,{key(1)};precision=2,kind=a,1,ok,1,4.0,large",
                 f"d,gemm,{key(1)};precision=2,cublas,-1,ok,1,2.0,large",
                 f"d,gemm,{key(2)};precision=2,cublaslt,-1,ok,1,3.0,resnet;vgg",
                 f"d,gemm,{key(2)};precision=3,cublaslt,-1,ok,1,9.0,llm"]
        with tempfile.TemporaryDirectory() as tmp:
            path = f"{tmp}/data.csv.gz"
            with gzip.open(path, "wt") as f:
                f.write("\n".join(lines) + "\n")
            _, rows, perf, tags = replay.load(path, "2")
        self.assertEqual(sorted(perf), [f"{key(1)};precision=2", f"{key(2)};precision=2"])
        self.assertEqual(perf[f"{key(2)};precision=2"], {"cublaslt": 3.0})  # not fp16's 9.0
        self.assertEqual(tags[f"{key(2)};precision=2"], {"resnet", "vgg"})
        # A shape of two networks counts in the first listed; the next takes none of it.
        groups = {"vgg": replay.tagged(perf, tags, "vgg", {})}
        self.assertEqual(groups["vgg"], {f"{key(2)};precision=2"})
        self.assertEqual(replay.tagged(perf, tags, "resnet", groups), set())
        self.assertEqual(replay.tagged(perf, tags, "resnet", {}), {f"{key(2)};precision=2"})
        # The GPU vendors: a cublaslt pick against the faster of cublas and cublaslt.
        scored, _ = replay.served(perf, [f"{key(1)};precision=2"], ["vendor=cublas"],
                                  ("cublas", "cublaslt"))
        self.assertEqual(scored[0][0], 1.0)

    def test_c16_keeps_the_16_bit_c_rows_and_passes_c16_to_a_selector_that_takes_it(self):
        import gzip
        import shutil
        import tempfile
        header = "device,family,problem,config,config_id,status,median_ms,perf,tags"
        lines = [header,
                 f"d,gemm,{key(1)};precision=2,cublas,-1,ok,1,2.0,large",
                 f"d,gemm,{key(1)};precision=2;c16=1,cublas,-1,ok,1,5.0,large"]
        with tempfile.TemporaryDirectory() as tmp:
            path = f"{tmp}/data.csv.gz"
            with gzip.open(path, "wt") as f:
                f.write("\n".join(lines) + "\n")
            _, _, perf16, _ = replay.load(path, "2", True)
            _, _, perf32, _ = replay.load(path, "2")
            self.assertEqual(perf16, {f"{key(1)};precision=2;c16=1": {"cublas": 5.0}})
            self.assertEqual(perf32, {f"{key(1)};precision=2": {"cublas": 2.0}})
            if not shutil.which("c++"):
                return
            # A c16 header answers by its eighth argument; an FP32-C header (seven) still runs.
            for args, pick in (("long long p, long long c16", "c16 ? 1 : 0"),
                               ("long long p", "p == 2 ? 0 : 1")):
                hpp = f"{tmp}/h.hpp"
                with open(hpp, "w") as f:
                    f.write("namespace ktune_selector {\n"
                            'inline constexpr const char* kConfigs[2] = {"a", "b"};\n'
                            "inline int select(long long, long long, long long, long long, "
                            f"long long, long long, {args}) {{ return {pick}; }}\n}}\n")
                got = replay.picks(hpp, [f"{key(1)};precision=2;c16=1"], tmp, "2", True)
                self.assertEqual(got, ["b" if "c16" in args else "a"])

    def test_nothing_scored_is_nan_not_an_error(self):
        s = replay.score([], 1, 1)
        self.assertNotEqual(s["geomean"], s["geomean"])
        self.assertEqual(s["below_0.8"], 0)


if __name__ == "__main__":
    unittest.main()
