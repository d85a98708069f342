#!/usr/bin/env python3
"""scripts/conv_deploy/selector_replay.py on a hand-made selector header and sweep whose figures are
worked out by hand: the header answers by the precision feature the harness passes (each problem's
own precision= code: 3 here picks "kind=w", anything else "vendor=cudnn"), "kind=w" is refused on
the 3-channel layer (served by kSafeOrder's next, "kind=a"), and the summary's geomean,
time-weighted ratio, below-0.8x and 0.9x counts, own-kernel share and % of the oracle (the fastest
swept row) follow from the planted medians.
  test_conv_deploy_selector_replay.py SCRIPT"""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    ROOT, "scripts", "conv_deploy", "selector_replay.py")

NAMES = ("n h w c k r s stride pad precision p q gemm_m gemm_n gemm_k flops bytes intensity "
         "log2_gemm_m log2_gemm_n log2_gemm_k log2_flops is_1x1 winograd").split()
HEADER = """#pragma once
namespace ktune_selector {
inline constexpr int kNumConfigs = 3;
inline constexpr const char* kConfigs[kNumConfigs] = {"vendor=cudnn", "kind=w", "kind=a"};
inline constexpr int kSafeOrder[kNumConfigs] = {1, 2, 0};
struct Features { FIELDS };
inline int select(const Features& f) { return f.precision == 3 ? 1 : 0; }
}  // namespace ktune_selector
""".replace("FIELDS", " ".join(f"double {n};" for n in NAMES))

STEM = "n=1;h=224;w=224;c=3;k=64;r=3;s=3;stride=1;pad=1;precision=3"  # VGG16 conv1_1
C512 = "n=16;h=14;w=14;c=512;k=512;r=3;s=3;stride=1;pad=1;precision=3"  # VGG16 conv5_x (count 3)
R50 = "n=1;h=56;w=56;c=64;k=64;r=1;s=1;stride=1;pad=0;precision=3"  # ResNet-50 conv2_2
ROWS = [  # problem, config, status, median ms, tag
    (STEM, "kind=w", "refused", 0, "vgg16"), (STEM, "kind=a", "ok", 2.0, "vgg16"),
    (STEM, "cudnn", "ok", 1.0, "vgg16"),
    (C512, "kind=w", "ok", 1.0, "vgg16"), (C512, "cudnn", "ok", 2.0, "vgg16"),
    (R50, "kind=w", "ok", 4.0, "resnet50"), (R50, "cudnn", "ok", 4.0, "resnet50"),
]


class SelectorReplay(unittest.TestCase):
    def run_replay(self, rows, *headers):
        with tempfile.TemporaryDirectory() as tmp:
            header, sweep = os.path.join(tmp, "s.hpp"), os.path.join(tmp, "sweep.csv")
            out_csv, out_md = os.path.join(tmp, "picks.csv"), os.path.join(tmp, "r.md")
            with open(header, "w") as f:
                f.write(HEADER)
            with open(sweep, "w") as f:
                f.write("device,family,problem,config,config_id,status,median_ms,tags\n")
                f.writelines(f"d,conv2d,{p},{c},0,{st},{ms},{t}\n" for p, c, st, ms, t in rows)
            done = subprocess.run(
                [sys.executable, SCRIPT, "--sweep", sweep, "--csv", out_csv, "--md", out_md,
                 *[header + h for h in headers]], cwd=ROOT, capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(out_csv) as f:
                picks = {(r["layers"], r["problem"]): r for r in csv.DictReader(f)}
            with open(out_md) as f:
                md = f.read()
            return done.stdout, picks, md

    def test_precision_refusal_and_figures(self):
        out, picks, md = self.run_replay(ROWS, "", ":resnet50")
        # precision 3 reached the header (else every pick would be cuDNN); the refused pick fell
        # back along kSafeOrder to kind=a.
        self.assertEqual(picks[("all", STEM)]["pick"], "kind=a")
        self.assertEqual(picks[("all", C512)]["pick"], "kind=w")
        self.assertEqual(picks[("all", C512)]["count"], "3")
        # ratios cuDNN / pick: 0.5, 2, 1 -> geomean 1; time-weighted (1 + 3*2 + 4) / (2 + 3*1 + 4)
        line = out.splitlines()[0]
        self.assertIn("on all: 3 layers, geomean 1.000, time-weighted 1.222", line)
        self.assertIn("worst 0.500 (vgg16 n=1 224x224 c=3 k=64 3x3/1), below 0.8x 1", line)
        self.assertIn("ktune's kernels 3 (100.0 % of the time)", line)
        self.assertIn("on resnet50: 1 layers, geomean 1.000, time-weighted 1.000", out)
        self.assertIn("| s.hpp | all | 3 | 1.000 | 1.222 |", md)

    def test_a_vendor_pick_is_not_own_kernel_time(self):
        rows = [(p.replace("precision=3", "precision=2"), c, st, ms, t) for p, c, st, ms, t in ROWS]
        out, picks, _ = self.run_replay(rows, "")
        self.assertTrue(all(r["pick"] == "vendor=cudnn" for r in picks.values()))
        self.assertIn("geomean 1.000, time-weighted 1.000", out)
        self.assertIn("below 0.8x 0, below 0.9x 0", out)
        self.assertIn("ktune's kernels 0 (0.0 % of the time)", out)
        # the oracle is C512's kind=w row (1 ms), not cuDNN's 2 ms: 0.5 there, 1 elsewhere
        self.assertIn("79.4 % of oracle", out)

    def test_below_09_and_oracle(self):
        # R50's cuDNN at 3.4 ms against kind=w's 4: a 0.85x layer, below 0.9x but not 0.8x
        rows = [(p, c, st, 3.4 if (p, c) == (R50, "cudnn") else ms, t)
                for p, c, st, ms, t in ROWS]
        out, picks, md = self.run_replay(rows, "")
        self.assertEqual(picks[("all", R50)]["oracle_ms"], "3.4")
        self.assertIn("below 0.8x 1, below 0.9x 2", out)
        # % of oracle: STEM 1 / 2, C512 1 / 1, R50 3.4 / 4 -> (0.5 * 0.85) ** (1 / 3) = 75.2 %
        self.assertIn("75.2 % of oracle", out)
        self.assertIn("| 2 | 75.2 % |", md)


    def test_a_layer_no_shipped_config_runs_is_unservable_not_scored(self):
        # a header without the cuDNN candidate, its kind=a row gone on the stem: nothing runs it
        global HEADER
        saved = HEADER
        HEADER = (saved.replace('kNumConfigs = 3', 'kNumConfigs = 2')
                  .replace('{"vendor=cudnn", "kind=w", "kind=a"}', '{"kind=w", "kind=a"}')
                  .replace('kSafeOrder[kNumConfigs] = {1, 2, 0}',
                           'kSafeOrder[kNumConfigs] = {0, 1}')
                  .replace('f.precision == 3 ? 1 : 0', '0'))
        try:
            rows = [r for r in ROWS if (r[0], r[1]) != (STEM, "kind=a")]
            out, picks, _ = self.run_replay(rows, "")
        finally:
            HEADER = saved
        self.assertEqual(picks[("all", STEM)]["pick"], "none")
        # C512 2x, R50 1x: geomean sqrt(2); the stem left out
        self.assertIn("on all: 2 layers, geomean 1.414", out)
        self.assertIn("1 unservable", out)


if __name__ == "__main__":
    unittest.main()
