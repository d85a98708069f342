#pragma once
// The options describing a foreign long CSV (ktune/ml/csv_import.hpp), shared by `import --csv`
// and the --data of the verbs that learn from a dataset, so both read such a file alike.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "ktune/error.hpp"
#include "ktune/ml/csv_import.hpp"

namespace ktune::cli {

struct LongCsvArgs {
  ml::LongCsvOptions options;

  // True when --problem-cols was given: the CSV is a foreign long CSV.
  bool given() const { return !options.problem_cols.empty(); }

  void add_options(CLI::App& sub) {
    auto& o = options;
    sub.add_option("--problem-cols", o.problem_cols, "Foreign long CSV: problem feature columns")
        ->delimiter(',');
    sub.add_option("--config-col", o.config_col, "Foreign long CSV: the column naming the config");
    sub.add_option("--config-cols", o.config_cols,
                   "Foreign long CSV: parameter columns forming the config")
        ->delimiter(',');
    sub.add_option("--time-col", o.time_col, "Foreign long CSV: the measured time (or perf)");
    sub.add_flag("--higher-is-better", o.higher_is_better,
                 "Foreign long CSV: --time-col holds performance, not time");
    sub.add_option("--categorical", o.categorical_cols,
                   "Foreign long CSV: problem columns holding categories (one-hot encoded)")
        ->delimiter(',');
    sub.add_option("--vendor-config", o.vendor_configs,
                   "Foreign long CSV: config value(s) that are the vendor baseline")
        ->delimiter(',');
  }

  // The options other than --problem-cols make no sense alone.
  void check() const {
    const auto& o = options;
    const bool long_only = !o.config_col.empty() || !o.config_cols.empty() || !o.time_col.empty() ||
                           o.higher_is_better || !o.categorical_cols.empty() ||
                           !o.vendor_configs.empty();
    if (long_only && !given())
      throw Error(
          "--config-col, --config-cols, --time-col, --higher-is-better, --categorical and "
          "--vendor-config describe a foreign long CSV: they need --problem-cols");
    if (!given()) return;
    if (o.time_col.empty()) throw Error("a foreign long CSV needs --time-col");
    if (o.config_col.empty() == o.config_cols.empty())
      throw Error("a foreign long CSV needs exactly one of --config-col and --config-cols");
  }

  // Reads the file, telling stderr how many rows held no valid measurement.
  std::vector<Measurement> read(const std::string& path, const std::string& device,
                                const std::string& family) const {
    ml::LongCsvOptions o = options;
    if (!device.empty()) o.device = device;
    if (!family.empty()) o.family = family;
    ml::LongCsvReport report;
    auto ms = ml::import_long_csv(path, o, &report);
    if (report.invalid_rows)
      std::fprintf(stderr,
                   "%s: %zu of %zu rows hold an invalid %s (inf, nan, empty, not a number or "
                   "<= 0); %zu (problem, config) pairs without a valid one are kept as failed\n",
                   path.c_str(), report.invalid_rows, report.rows,
                   o.higher_is_better ? "performance" : "time", report.invalid_keys);
    return ms;
  }
};

}  // namespace ktune::cli
