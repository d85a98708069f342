#!/usr/bin/env python3
"""scripts/conv_deploy/unsure_grid.py's pieces on hand-made inputs: the cv folds (every layer in
exactly one fold, a layer's batch 1 and 16 rows together, each network in every fold, the same
folds for the same seed), the pooled figures (worked out by hand) and the recipe rule (the
in-sample tolerance excludes a recipe, the worst held-out criterion decides, ties go to the mean
and then to the current recipe).
  test_conv_unsure_grid.py SCRIPT"""
import importlib.util
import os
import sys
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    ROOT, "scripts", "conv_deploy", "unsure_grid.py")
spec = importlib.util.spec_from_file_location("unsure_grid", SCRIPT)
grid_mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(grid_mod)


def problem(n, c, net):
    return f"n={n};h=14;w=14;c={c};k=64;r=3;s=3;stride=1;pad=1;precision=2", net


def fig(geo, tw):
    return {"geomean": geo, "time_weighted": tw}


class Folds(unittest.TestCase):
    def setUp(self):
        pairs = [problem(n, c, net) for net, cs in (("vgg16", range(1, 8)),
                                                    ("resnet50", range(100, 112)))
                 for c in cs for n in (1, 16)]
        self.problems = [p for p, _ in pairs]
        self.tag = dict(pairs)

    def test_every_layer_once_batches_together_networks_spread(self):
        folds = grid_mod.folds(self.problems, self.tag, ("vgg16", "resnet50"), 5, 0)
        self.assertEqual(len(folds), 5)
        seen = [p for f in folds for p in f]
        self.assertEqual(sorted(seen), sorted(self.problems))
        for f in folds:
            self.assertEqual({grid_mod.layer_of(p) for p in f if p.startswith("n=1;")},
                             {grid_mod.layer_of(p) for p in f if p.startswith("n=16;")})
            self.assertEqual({self.tag[p] for p in f}, {"vgg16", "resnet50"})
        nets = ("vgg16", "resnet50")
        self.assertEqual(folds, grid_mod.folds(self.problems, self.tag, nets, 5, 0))
        self.assertNotEqual(folds, grid_mod.folds(self.problems, self.tag,
                                                  ("vgg16", "resnet50"), 5, 1))

    def test_splits_train_and_test_disjoint_but_in_sample(self):
        plan = grid_mod.splits(self.problems, self.tag)
        for name, parts in plan.items():
            for train, test in parts:
                if name.startswith("in-sample"):
                    self.assertEqual(train, test)
                else:
                    self.assertFalse(train & test, name)
        self.assertEqual({self.tag[p] for _, t in plan["resnet50->vgg16"] for p in t}, {"vgg16"})
        self.assertEqual({self.tag[p] for tr, t in plan["cv5:vgg16"] for p in tr | t}, {"vgg16"})


class Figures(unittest.TestCase):
    def test_pooled_figures(self):
        layers = [  # ratios 0.5, 2, 0.85; counts 1, 3, 1
            {"count": "1", "cudnn_ms": "1", "pick_ms": "2", "oracle_ms": "1", "pick": "kind=a"},
            {"count": "3", "cudnn_ms": "2", "pick_ms": "1", "oracle_ms": "1", "pick": "kind=w"},
            {"count": "1", "cudnn_ms": "3.4", "pick_ms": "4", "oracle_ms": "3.4",
             "pick": "vendor=cudnn"}]
        f = grid_mod.figures(layers)
        self.assertAlmostEqual(f["geomean"], (0.5 * 2 * 0.85) ** (1 / 3))
        self.assertAlmostEqual(f["time_weighted"], (1 + 6 + 3.4) / (2 + 3 + 4))
        self.assertEqual((f["below_0.8"], f["below_0.9"], f["own"], f["layers"]), (1, 2, 2, 3))
        self.assertAlmostEqual(f["pct_oracle"], 100 * (0.5 * 1 * 0.85) ** (1 / 3))
        self.assertEqual(f["unservable"], 0)
        # a layer no shipped config runs: counted, left out of the figures
        g = grid_mod.figures(layers + [{"count": "1", "cudnn_ms": "1", "pick_ms": "",
                                        "oracle_ms": "1", "pick": "none"}])
        self.assertEqual((g["unservable"], g["layers"]), (1, 3))
        self.assertAlmostEqual(g["geomean"], f["geomean"])


class Choose(unittest.TestCase):
    HELD = ("a->b", "b->a", "cv5")

    def grid(self, cells):
        return {(r, s): fig(*v) for r, row in cells.items() for s, v in row.items()}

    def test_worst_case_decides_and_in_sample_tolerance_excludes(self):
        g = self.grid({
            "current": {"in-sample": (1.10, 1.03), "a->b": (0.90, 0.95), "b->a": (1.10, 1.05),
                        "cv5": (1.05, 1.00)},
            # safest held out but loses 0.02 in sample: not admissible
            "greedy": {"in-sample": (1.08, 1.03), "a->b": (1.00, 1.00), "b->a": (1.02, 1.02),
                       "cv5": (1.02, 1.01)},
            "guard": {"in-sample": (1.095, 1.03), "a->b": (0.98, 0.99), "b->a": (1.05, 1.00),
                      "cv5": (1.04, 1.00)},
        })
        self.assertEqual(grid_mod.choose(g, self.HELD, "in-sample"), "guard")

    def test_ties_go_to_the_mean_then_to_the_current_recipe(self):
        same = {"in-sample": (1.1, 1.0), "a->b": (0.95, 0.96), "b->a": (1.0, 1.0),
                "cv5": (1.0, 1.0)}
        # worst case 0.003 better (within the 0.005 tie), mean lower: the current recipe stays
        near = dict(same, **{"a->b": (0.953, 0.96), "b->a": (0.99, 1.0)})
        better_mean = dict(same, **{"b->a": (1.1, 1.05)})
        g = self.grid({"twin": same, "current": same, "near": near})
        self.assertEqual(grid_mod.choose(g, self.HELD, "in-sample"), "current")
        g = self.grid({"current": same, "near": near, "mean": better_mean})
        self.assertEqual(grid_mod.choose(g, self.HELD, "in-sample"), "mean")

if __name__ == "__main__":
    unittest.main()
