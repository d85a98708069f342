#pragma once
// Import of foreign long-format CSV: one row per (problem, config) timing, repeated rows
// aggregated by their median.
#include <string>
#include <vector>

#include "ktune/measurement.hpp"

namespace ktune::ml {

struct LongCsvOptions {
  std::vector<std::string> problem_cols;  // numeric columns forming the problem key
  std::string config_col;                 // one column naming the config, or
  std::vector<std::string> config_cols;   // several columns forming "x=1;y=2"
  std::string time_col;                   // the measured value
  bool higher_is_better = false;          // time_col holds perf (e.g. GFLOP/s), not a time
  std::string device = "imported";
  std::string family = "imported";
};

// Configs get ids 0.. in sorted order of their strings (so none is taken for a vendor).
// Throws Error naming file:line (and column) for a missing column, a non-numeric problem value,
// or an empty, NaN, infinite, zero or negative time/perf.
std::vector<Measurement> import_long_csv(const std::string& path, const LongCsvOptions& options);

}  // namespace ktune::ml
