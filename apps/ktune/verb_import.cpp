// ktune import: measurements from ktune CSV, T4 JSON, or foreign long CSV into a store. The
// whole file is parsed before the store is opened, so bad input never leaves a partial import.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "apps/ktune/verb.hpp"
#include "ktune/error.hpp"
#include "ktune/interchange.hpp"
#include "ktune/ml/csv_import.hpp"
#include "ktune/store.hpp"

namespace ktune::cli {

namespace {

struct ImportArgs {
  std::string store, csv, t4, device, family, problem;
  // Foreign long CSV (see ktune/ml/csv_import.hpp).
  std::vector<std::string> problem_cols, config_cols;
  std::string config_col, time_col;
  bool higher_is_better = false;
};

std::vector<Measurement> read_input(const ImportArgs& a) {
  if (!a.t4.empty()) return read_t4(a.t4, {a.device, a.family, a.problem});
  if (!a.problem_cols.empty()) {
    ml::LongCsvOptions o;
    o.problem_cols = a.problem_cols;
    o.config_col = a.config_col;
    o.config_cols = a.config_cols;
    o.time_col = a.time_col;
    o.higher_is_better = a.higher_is_better;
    if (!a.device.empty()) o.device = a.device;
    if (!a.family.empty()) o.family = a.family;
    return ml::import_long_csv(a.csv, o);
  }
  std::vector<Measurement> ms = read_measurements_csv(a.csv);
  for (auto& m : ms) {  // relabel on request, as for T4
    if (!a.device.empty()) m.device = a.device;
    if (!a.family.empty()) m.family = a.family;
    if (!a.problem.empty()) m.problem = a.problem;
  }
  return ms;
}

void check_args(const ImportArgs& a) {
  if (a.csv.empty() == a.t4.empty())
    throw Error("import needs exactly one of --csv FILE and --t4 FILE");
  const bool long_csv = !a.problem_cols.empty();
  const bool long_only =
      !a.config_col.empty() || !a.config_cols.empty() || !a.time_col.empty() || a.higher_is_better;
  if (long_only && !long_csv)
    throw Error(
        "--config-col, --config-cols, --time-col and --higher-is-better need --problem-cols");
  if (long_csv) {
    if (a.csv.empty()) throw Error("--problem-cols describes a CSV file: pass it with --csv");
    if (a.time_col.empty()) throw Error("a foreign long CSV needs --time-col");
    if (a.config_col.empty() == a.config_cols.empty())
      throw Error("a foreign long CSV needs exactly one of --config-col and --config-cols");
    if (!a.problem.empty()) throw Error("--problem does not apply with --problem-cols");
  }
}

int run_import(const ImportArgs& a) {
  check_args(a);
  const std::vector<Measurement> ms = read_input(a);
  Store store(a.store, Store::Mode::read_write);
  const size_t added = store.put_all(ms);
  std::printf("imported %s into %s: %zu added, %zu skipped (already stored)\n",
              (a.t4.empty() ? a.csv : a.t4).c_str(), a.store.c_str(), added, ms.size() - added);
  return 0;
}

Action setup_import(CLI::App& sub) {
  auto a = std::make_shared<ImportArgs>();
  sub.add_option("--store", a->store, "Tuning store (SQLite) to add to; created if missing")
      ->required();
  auto* csv = sub.add_option("--csv", a->csv,
                             "ktune CSV (.csv or .csv.gz), or a foreign long "
                             "CSV with --problem-cols");
  auto* t4 = sub.add_option("--t4", a->t4, "T4 results JSON (.json or .json.gz)");
  csv->excludes(t4);  // CLI11 rejects both; check_args rejects neither
  sub.add_option("--device", a->device, "Record the rows under this device slug");
  sub.add_option("--family", a->family, "Record the rows under this kernel family");
  sub.add_option("--problem", a->problem, "Record the rows under this problem key");
  sub.add_option("--problem-cols", a->problem_cols, "Foreign long CSV: problem feature columns")
      ->delimiter(',');
  sub.add_option("--config-col", a->config_col, "Foreign long CSV: the column naming the config");
  sub.add_option("--config-cols", a->config_cols,
                 "Foreign long CSV: parameter columns forming the config")
      ->delimiter(',');
  sub.add_option("--time-col", a->time_col, "Foreign long CSV: the measured time (or perf)");
  sub.add_flag("--higher-is-better", a->higher_is_better,
               "Foreign long CSV: --time-col holds performance, not time");
  return [a] { return run_import(*a); };
}

const bool registered =
    add_verb("import", "Add measurements from CSV or T4 JSON to a store", setup_import);

}  // namespace

}  // namespace ktune::cli
