// Readers of the report's optional inputs: a deployed library's run and an evaluation table.
#include <fmt/format.h>

#include <optional>

#include "ktune/csv.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/report.hpp"
#include "ktune/strict_number.hpp"

namespace ktune::report {
namespace {

// The records of a CSV with a header, and a lookup of its columns by name.
struct Table {
  std::string path;
  std::vector<CsvRecord> records;

  explicit Table(const std::string& p) : path(p) {
    const std::string text = read_text_file(p);
    records = read_csv_records(text, p);
    if (records.empty()) throw Error(fmt::format("'{}' is empty", p));
  }
  size_t column(const char* name, const char* what) const {
    const auto& header = records[0].fields;
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    throw Error(fmt::format("'{}': no column '{}' (not {})", path, name, what));
  }
  const std::vector<std::string>& row(size_t r) const {
    const auto& f = records[r].fields;
    if (f.size() != records[0].fields.size())
      throw Error(fmt::format("{}:{}: {} fields, the header has {}", path, records[r].line,
                              f.size(), records[0].fields.size()));
    return f;
  }
  // A finite non-negative number, the whole field ("12abc" is an error naming the line, not
  // 12), or `empty_value` for an empty field when one is allowed.
  double number(size_t r, size_t col, std::optional<double> empty_value = 0.0) const {
    const std::string& s = records[r].fields[col];
    if (s.empty() && empty_value) return *empty_value;
    const auto v = parse_finite_double(s);
    if (!v || *v < 0)
      throw Error(fmt::format("{}:{}: '{}' is not a non-negative number (column {})", path,
                              records[r].line, s, records[0].fields[col]));
    return *v;
  }
};

}  // namespace

DeployedRun read_deployed_csv(const std::string& path) {
  const Table t(path);
  const char* what = "a tuned_gemm_bench CSV";
  const size_t problem = t.column("problem", what), status = t.column("status", what);
  const size_t deployed = t.column("deployed_gflops", what),
               vendor = t.column("vendor_gflops", what);
  DeployedRun run;
  run.path = path;
  for (size_t r = 1; r < t.records.size(); ++r) {
    const auto& f = t.row(r);
    if (f[status] != "ok") continue;
    run.by_problem[f[problem]] = {t.number(r, deployed, std::nullopt), t.number(r, vendor)};
  }
  return run;
}

EvalTable eval_table(const ml::EvalResult& result, std::string source) {
  EvalTable t;
  t.source = std::move(source);
  t.fixed_pct = result.fixed_pct;
  for (const auto& row : result.rows) {
    if (!row.ok) continue;
    t.points.push_back({row.split, row.norm, row.pruner, row.selector, row.k,
                        row.metrics.pct_of_oracle, row.metrics.ceiling_pct});
  }
  return t;
}

EvalTable read_eval_csv(const std::string& path) {
  const Table t(path);
  const char* what = "a `ktune eval --csv` table";
  const size_t split = t.column("split", what), norm = t.column("norm", what);
  const size_t pruner = t.column("pruner", what), selector = t.column("selector", what);
  const size_t k = t.column("k", what), pct = t.column("pct_of_oracle", what);
  const size_t ceiling = t.column("ceiling_pct", what);
  EvalTable table;
  table.source = path;
  for (size_t r = 1; r < t.records.size(); ++r) {
    const auto& f = t.row(r);
    // Both empty: a cell the evaluation could not compute.
    if (f[pct].empty() && f[ceiling].empty()) continue;
    const double kv = t.number(r, k);
    if (kv < 1 || kv != double(int(kv)))
      throw Error(
          fmt::format("{}:{}: k '{}' is not a positive integer", path, t.records[r].line, f[k]));
    table.points.push_back({f[split], f[norm], f[pruner], f[selector], int(kv), t.number(r, pct),
                            t.number(r, ceiling)});
  }
  if (table.points.empty()) throw Error(fmt::format("'{}' has no evaluated rows", path));
  return table;
}

ml::EvalOptions default_eval_options() {
  ml::EvalOptions o;
  o.network_splits = false;
  o.selectors = {"tree-b"};  // never run: no K is in selector_ks
  o.selector_ks = {};
  o.ceiling_ks = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  return o;
}

}  // namespace ktune::report
