#pragma once
// The unsure rule's options (ktune/ml/selector.hpp), shared by `train` and `eval` so the model
// that ships and the one evaluated are asked for alike.
#include <CLI/CLI.hpp>

#include "ktune/ml/selector.hpp"

namespace ktune::cli {

inline void add_unsure_options(CLI::App& sub, ml::UnsureRule& rule) {
  sub.add_option("--min-vote-share", rule.min_vote_share,
                 "Serve the training set's best-geomean shipped config when the pick's vote "
                 "share (tree: its leaf's majority fraction) is below this; 0 = off")
      ->capture_default_str();
  sub.add_option("--unsure-leaf-margin", rule.leaf_margin,
                 "With --min-vote-share (trees): an unsure leaf serves its own best-geomean "
                 "config only where that beats the training set's best-geomean config there by "
                 "more than this fraction (0.1 = 10 %), else that safe config; 0 = off")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  sub.add_flag("--unsure-vendor", rule.vendor,
               "With --min-vote-share or --range-guard: the safe config is the shipped vendor "
               "call with the best geomean (when --vendors ships one), not the best of all");
  sub.add_option("--leaf-floor", rule.leaf_floor,
                 "Trees: every leaf's answer must run at >= this fraction of the fastest shipped "
                 "vendor call (with none, the unsure config) on each training problem reaching "
                 "it, else the leaf serves the best config that does (0.9 = 90 %); 0 = off")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  sub.add_option("--range-guard-skip", rule.range_guard_skip,
                 "With --range-guard: features it leaves out, comma-separated (e.g. residues "
                 "such as n_mod8, whose training values are a few classes)")
      ->delimiter(',');
  sub.add_flag("--range-guard", rule.range_guard,
               "Serve that config too when a feature lies outside its training range");
}

}  // namespace ktune::cli
