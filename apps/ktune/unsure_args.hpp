#pragma once
// The unsure rule's options (ktune/ml/selector.hpp), shared by `train` and `eval` so the model
// that ships and the one evaluated are asked for alike.
#include <CLI/CLI.hpp>
#include <string>

#include "ktune/ml/selector.hpp"

namespace ktune::cli {

// A fraction in [0, 0.99], 0 = off.
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
  sub.add_flag("--unsure-vendor", rule.vendor,
               "With --min-vote-share or --range-guard: the safe config is the shipped vendor "
               "call with the best geomean (when --vendors ships one), not the best of all");
  add_fraction_option(sub, "--unsure-leaf-floor", rule.leaf_floor,
                      "Trees: a leaf whose served config ran below this fraction of the unsure "
                      "config on one of its training problems serves the unsure config (0.85: 15 "
                      "% slower); 0 = off");
  sub.add_flag("--range-guard", rule.range_guard,
               "Serve that config too when a feature lies outside its training range");
}

}  // namespace ktune::cli
