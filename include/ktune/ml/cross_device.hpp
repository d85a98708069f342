#pragma once
// Cross-device tables (docs/deploy.md, "Cross-device tables"): a selector trained with the deploy
// recipe on device A's dataset, served on device B's problems (those every dataset holds), scored
// against B's oracle. The (B, B) cell is B's own selector on the same problems (in-sample), so
// the transfer loss of (A, B) is (B, B) minus (A, B), in points of B's oracle.
#include <string>
#include <vector>

#include "ktune/dataset.hpp"
#include "ktune/ml/deploy.hpp"

namespace ktune::ml {

struct CrossDeviceCell {
  std::string trained_on, run_on;
  size_t problems = 0;       // problems both datasets hold
  double pct_of_oracle = 0;  // 100 × geomean(perf on run_on of the served config / run_on's best)
  double vs_vendor = 0;  // geomean(served perf / the fastest vendor's), problems with a vendor row
  size_t vendor_problems = 0;
  size_t below_80 = 0;       // problems served at under 80 % of run_on's best
  size_t not_on_run_on = 0;  // problems whose served config run_on never ran (counted as invalid)
};

// Every (trained on, run on) pair of the datasets, the pairs of one dataset included, in order,
// over the problems all of them hold. Throws Error when they share no problem or differ in family
// or features.
std::vector<CrossDeviceCell> cross_device_table(const std::vector<Dataset>& datasets,
                                                const DeployRecipe& recipe);

// The cells as a markdown table with the transfer loss of each off-diagonal cell.
std::string cross_device_markdown(const std::vector<CrossDeviceCell>& cells);

}  // namespace ktune::ml
