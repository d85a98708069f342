#pragma once
// The unsure rule's options (ktune/ml/selector.hpp), shared by `train` and `eval` so the model
// that ships and the one evaluated are asked for alike.
#include <CLI/CLI.hpp>
#include <string>

#include "ktune/ml/selector.hpp"

namespace ktune::cli {

// A fraction option of the rule: in [0, 0.99], 0 = off.
inline void add_fraction_option(CLI::App& sub, const std::string& name, double& value,
                                const std::string& help) {
  sub.add_option(name, value, help)->check(CLI::Range(0.0, 0.99))->capture_default_str();
}

inline void add_unsure_options(CLI::App& sub, ml::UnsureRule& rule) {
  sub.add_option("--min-vote-share", rule.min_vote_share,
                 "Serve the training set's best-geomean shipped config when the pick's vote "
                 "share (tree: its leaf's majority fraction) is below this; 0 = off")
      ->capture_default_str();
  add_fraction_option(sub, "--unsure-leaf-margin", rule.leaf_margin,
                      "With --min-vote-share (trees): an unsure leaf serves its own best-geomean "
                      "config only where that beats the training set's best-geomean config there "
                      "by more than this fraction (0.1 = 10 %), else that safe config; 0 = off");
  sub.add_flag(
      "--unsure-vendor", rule.vendor,
      "With --min-vote-share, --range-guard or --leaf-box: the safe config is the shipped vendor "
      "call with the best geomean (when --vendors ships one), not the best of all");
  add_fraction_option(sub, "--leaf-floor", rule.leaf_floor,
                      "Trees: every leaf's answer must run at >= this fraction of the fastest "
                      "shipped vendor call (with none, the unsure config) on each training problem "
                      "reaching it, else the leaf serves the best config that does (0.9 = 90 %); "
                      "0 = off");
  sub.add_option("--floor-vendors", rule.floor_vendors,
                 "With --leaf-floor: the vendor calls (names as --vendor-names) whose fastest is "
                 "the floor's reference, comma-separated; default every shipped vendor call")
      ->delimiter(',');
  sub.add_option("--range-guard-skip", rule.range_guard_skip,
                 "With --range-guard: features it leaves out, comma-separated (e.g. residues "
                 "such as n_mod8, whose training values are a few classes)")
      ->delimiter(',');
  sub.add_flag("--leaf-box", rule.leaf_box,
               "Trees: serve that config too when a feature the leaf's path splits on lies "
               "outside its range over the training problems reaching the leaf (the gap between "
               "a threshold and the nearest training problem was never measured)");
  sub.add_flag("--leaf-box-all", rule.leaf_box_all,
               "With --leaf-box: every feature (less --range-guard-skip's), not only the path's, "
               "bounded on both sides by the leaf's training problems (e.g. a k 16x deeper than "
               "any the leaf saw when no split of its path is on k)")
      ->needs("--leaf-box");
  sub.add_flag("--unsure-leaf-vendor", rule.leaf_vendor,
               "Trees: an unsure problem is served by the shipped vendor call (of --floor-vendors "
               "when named) with the best geomean over the training problems of the leaf it "
               "reaches, not by one vendor call for all; needs --min-vote-share, --range-guard "
               "or --leaf-box");
  sub.add_flag("--range-guard", rule.range_guard,
               "Serve that config too when a feature lies outside its training range");
}

}  // namespace ktune::cli
