#pragma once
// The one metrics set of every evaluation: eval's pruner × selector matrix (evaluate.hpp), the
// every-config protocol (protocol.hpp: eval --protocol / --devices), search-eval's downstream
// pipeline and the report all turn each held-out problem into an Outcome and score the outcomes
// here, by the scoring rule of evaluate.hpp.
//
// Per problem: oracle = the best valid config of the whole space (a problem with none is left
// out); ratio(c) = perf(c) / perf(oracle) floored at kInvalidRatio, and kInvalidRatio when c is
// not valid there (refused, failed, wrong, timeout or unmeasured), so one unservable problem
// cannot zero a geometric mean.
#include <Eigen/Dense>
#include <vector>

#include "ktune/dataset.hpp"

namespace ktune::ml {

// One held-out problem's outcome; configs are column indices of the scored dataset.
struct Outcome {
  Eigen::Index row = 0;        // the problem
  Eigen::Index pick = 0;       // the method's pick, before any fallback
  Eigen::Index served = 0;     // what runs: the pick, or its fallback when the pick is not valid
  Eigen::Index reference = 0;  // the reference config after its own fallback (eval: the fixed
                               // config; protocol: the baseline)
  Eigen::Index expert = 0;     // the expert config or its stand-in (protocol; else = reference)
  double ns = 0;               // wall time of the prediction, fallback included
};

struct Metrics {
  int problems = 0;             // outcomes scored (those whose problem has a valid config)
  double pct_of_oracle = 0;     // 100 × geomean(ratio(served))
  double ceiling_pct = 0;       // 100 × geomean(ratio(best shipped config)): a perfect selector
  double accuracy = 0;          // fraction whose pick is the oracle config
  double accuracy_oracle = 0;   // fraction whose served config is the oracle config
  double accuracy_shipped = 0;  // fraction whose served config is the best shipped one
  double validity = 0;          // fraction whose pick is valid (no fallback needed)
  double refused_rate = 0;      // 1 - validity: the fallback served
  double unservable_rate = 0;   // fraction where no shipped config is valid
  // ratio(served) / ratio(reference) per problem: geometric mean, median, arithmetic mean.
  double speedup_vs_reference = 0, median_speedup_vs_reference = 0, mean_speedup_vs_reference = 0;
  double median_speedup_vs_expert = 0;  // median of ratio(served) / ratio(expert)
  double predict_ns = 0;                // mean of Outcome::ns
  // Shares served by ktune's own configs, not a vendor candidate (dataset.hpp): of the scored
  // problems, and of their served time (work / perf). 1 when no vendor is a candidate.
  double own_share = 1, own_time_share = 1;
  std::vector<double> ratios;  // ratio(served) per scored outcome, in order
};

// Scores `outcomes` on `data`. `shipped` = the configs the method could serve (for the ceiling,
// accuracy_shipped and unservable_rate); empty = every config. Rates are 0 and the means NaN
// (pct_of_oracle, ceiling_pct) or 0 when nothing is scored.
Metrics score(const Dataset& data, const std::vector<Outcome>& outcomes,
              const std::vector<Eigen::Index>& shipped = {});

}  // namespace ktune::ml
