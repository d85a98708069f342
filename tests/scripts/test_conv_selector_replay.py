#!/usr/bin/env python3
"""scripts/conv_selector_replay.py on a hand-made conv2d selector header and sweep whose figures are
worked out by hand: the header always picks "kind=w", which the sweep refuses on a 3-channel layer
(served by kSafeOrder's "kind=a" there, as the deployed library does).
  test_conv_selector_replay.py SCRIPT"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "conv_selector_replay.py")

NAMES = ("n h w c k r s stride pad p q gemm_m gemm_n gemm_k flops bytes intensity log2_gemm_m "
         "log2_gemm_n log2_gemm_k log2_flops is_1x1 winograd").split()
HEADER = """#pragma once
namespace ktune_selector {
inline constexpr int kNumConfigs = 2;
inline constexpr const char* kConfigs[kNumConfigs] = {"kind=a", "kind=w"};
inline constexpr int kSafeOrder[kNumConfigs] = {0, 1};
struct Features { FIELDS };
inline int select(const Features&) { return 1; }
}  // namespace ktune_selector
""".replace("FIELDS", " ".join(f"double {n};" for n in NAMES))


def layer(n, c):
    return f"n={n};h=8;w=8;c={c};k=16;r=3;s=3;stride=1;pad=1"


ROWS = [  # problem, config, status, median ms, tag
    (layer(1, 3), "kind=a", "ok", 2.0, "vgg16"), (layer(1, 3), "kind=w", "refused", 0, "vgg16"),
    (layer(1, 3), "onednn", "ok", 1.0, "vgg16"),
    (layer(1, 64), "kind=a", "ok", 4.0, "vgg16"), (layer(1, 64), "kind=w", "ok", 1.0, "vgg16"),
    (layer(1, 64), "onednn", "ok", 2.0, "vgg16"),
    (layer(1, 64), "onednn_winograd", "ok", 1.5, "vgg16"),
    (layer(16, 64), "kind=w", "ok", 2.0, "resnet50"),
    (layer(16, 64), "onednn", "ok", 2.0, "resnet50"),
]


def replay(header_text, rows, *args):
    """The script on a header and CSV rows (problem, config, status, median ms, tag)."""
    csv_text = "device,family,problem,config,config_id,status,median_ms,tags\n" + "".join(
        f"d,conv2d,{key},{config},0,{status},{ms},{tag}\n" for key, config, status, ms, tag in rows)
    with tempfile.TemporaryDirectory() as tmp:
        paths = [os.path.join(tmp, name) for name in ("s.hpp", "d.csv")]
        for path, text in zip(paths, (header_text, csv_text)):
            with open(path, "w") as f:
                f.write(text)
        return subprocess.run([sys.executable, SCRIPT, *paths, *args], capture_output=True,
                              text=True)


def table(out):
    return {tuple(c.strip() for c in line.split("|")[1:3]): [c.strip() for c in line.split("|")[3:7]]
            for line in out.splitlines() if line.startswith("| ") and "---" not in line}


class ConvSelectorReplay(unittest.TestCase):
    @unittest.skipUnless(shutil.which("c++"), "no c++ compiler on PATH")
    def test_scores_with_the_fallback(self):
        result = replay(HEADER, ROWS)
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = table(result.stdout)
        # vgg16 b1: c=3 refuses w, served a: 1 / 2 = 0.5; c=64 w 1 against oneDNN's best 1.5:
        # 1.5. Geomean sqrt(0.75) = 0.866, time-weighted (1 + 1.5) / (2 + 1) = 0.833, one below.
        self.assertEqual(rows[("vgg16", "1")], ["2", "0.866", "0.833", "1"])
        self.assertEqual(rows[("resnet50", "16")], ["1", "1.000", "1.000", "0"])
        # all: 0.75^(1/3) = 0.909, (1 + 1.5 + 2) / (2 + 1 + 2) = 0.900.
        self.assertEqual(rows[("all", "")], ["3", "0.909", "0.900", "1"])
        self.assertIn("kind=a", result.stdout)  # the worst layer names what served it

    @unittest.skipUnless(shutil.which("c++"), "no c++ compiler on PATH")
    def test_a_vendor_pick_is_scored_by_its_row_and_not_counted_as_own(self):
        header = HEADER.replace('"kind=w"', '"vendor=onednn_winograd"')
        result = replay(header, ROWS, "--tags", "vgg16")
        self.assertEqual(result.returncode, 0, result.stderr)
        line = next(x for x in result.stdout.splitlines() if x.startswith("| vgg16 "))
        cells = [c.strip() for c in line.split("|")[1:-1]]
        # c=3: no onednn_winograd row, served kind=a (own): 1 / 2; c=64: oneDNN's Winograd 1.5
        # against its own best 1.5. Geomean sqrt(0.5) = 0.707, time (1 + 1.5) / (2 + 1.5) = 0.714;
        # own kernels 1 of 2 layers, 2 of the 3.5 ms served: 57 %.
        self.assertEqual(cells[2:8], ["2", "0.707", "0.714", "1", "1/2", "57%"])

    @unittest.skipUnless(shutil.which("c++"), "no c++ compiler on PATH")
    def test_bad_input_is_one_line(self):
        for result, what in ((replay("not a header", ROWS), "does not compile"),
                             (replay(HEADER, []), "no ok rows")):
            self.assertNotEqual(result.returncode, 0)
            self.assertIn(what, result.stderr)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        missing = subprocess.run([sys.executable, SCRIPT, "/nonexistent.hpp", "/nonexistent.csv"],
                                 capture_output=True, text=True)
        self.assertNotEqual(missing.returncode, 0)
        self.assertIn("no such file: /nonexistent.hpp", missing.stderr)


if __name__ == "__main__":
    unittest.main()
