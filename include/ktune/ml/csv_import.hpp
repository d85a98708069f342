#pragma once
// Import of foreign long-format CSV: one row per (problem, config) timing, repeated rows
// aggregated by their median.
#include <string>
#include <string_view>
#include <vector>

#include "ktune/measurement.hpp"

namespace ktune::ml {

struct LongCsvOptions {
  std::vector<std::string> problem_cols;  // columns forming the problem key
  std::string config_col;                 // one column naming the config, or
  std::vector<std::string> config_cols;   // several columns forming "x=1;y=2"
  std::string time_col;                   // the measured value
  bool higher_is_better = false;          // time_col holds perf (e.g. GFLOP/s), not a time
  // Problem columns (a subset of problem_cols) holding categories such as a dtype or a layout
  // flag. Each becomes one 0/1 feature per value seen ("dtype.float16=1;dtype.float32=0"), so
  // a tree asks "is it float16?" instead of splitting an arbitrary code order (dtype <= 3).
  std::vector<std::string> categorical_cols;
  // Config values (the config string as built from the config column(s)) that are a vendor
  // library rather than a tunable config, e.g. PyTorch's "extern" choice: they are imported
  // with config_id -1, so eval/report compare the selector with them.
  std::vector<std::string> vendor_configs;
  std::string device = "imported";
  std::string family = "imported";
};

// What an import read, for the verb to report.
struct LongCsvReport {
  size_t rows = 0;          // data rows read
  size_t invalid_rows = 0;  // rows whose time/perf is inf, nan, empty, non-numeric, <= 0
  size_t invalid_keys = 0;  // (problem, config) pairs with no valid row: imported as failed
};

// Configs get ids 0.. in sorted order of their strings (vendors get -1). A time/perf that is
// empty, not a number, infinite, NaN, zero or negative (PyTorch's autotuning logs write inf for
// a failed choice) is an invalid measurement: counted, and a (problem, config) without any
// valid row becomes a failed measurement; it never aborts the import. Throws Error naming
// file:line (and column) for a missing column, a wrong field count, a non-numeric problem
// value, an empty config, or a vendor config that never occurs.
std::vector<Measurement> import_long_csv(const std::string& path, const LongCsvOptions& options,
                                         LongCsvReport* report = nullptr);
std::vector<Measurement> parse_long_csv(std::string_view text, const std::string& source,
                                        const LongCsvOptions& options,
                                        LongCsvReport* report = nullptr);

}  // namespace ktune::ml
