#pragma once
// `ktune demo`'s comparison with the vendor libraries. The sweep picks each shape's best config
// from one measurement per config; that config and every vendor are then timed again in paired
// rounds with the bench's protocol (ProblemSession::run / run_vendor: verification, warm-up, the
// idle gap before each vendor, the same TimingPolicy for both sides), so each ratio comes with
// the spread of the rounds instead of a single pair of numbers.
#include <string>
#include <vector>

#include "apps/ktune/demo_truth.hpp"
#include "ktune/family.hpp"
#include "ktune/timing.hpp"
#include "ktune/workload.hpp"

namespace ktune::cli::demo {

struct VendorComparison {
  std::string problem;  // key
  std::string config;   // the best config of the sweep ("" when none measured ok)
  double ktune_gflops = 0, vendor_gflops = 0;  // medians over the rounds
  std::string vendor;                          // the faster vendor by median
  RatioSpread ratio;                           // per round: faster vendor's time / ktune's
  std::string note;  // why a shape has no comparison ("no vendor library in this build", ...)
};

// For each problem with a best config (`best[i]` for workload.problems[i], id < 0: none),
// `rounds` rounds of: an idle gap, the config, then each vendor (run_vendor pauses before it),
// all timed with `policy`. A round where either side fails is left out of the ratio.
std::vector<VendorComparison> compare_with_vendors(const Family& family, Backend& backend,
                                                   const Workload& workload,
                                                   const std::vector<Config>& best, size_t rounds,
                                                   const TimingPolicy& policy);

// The device slugs in the `device` column of the datasets (ktune's long CSV, optionally
// gzipped) anywhere under dir; other files are skipped. Reads only each file's first two lines.
std::vector<std::string> committed_device_slugs(const std::string& dir);

}  // namespace ktune::cli::demo
