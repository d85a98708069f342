// Import of foreign long CSV timings (see csv_import.hpp).
#include "ktune/ml/csv_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "ktune/csv.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/problem.hpp"

namespace ktune::ml {
namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t");
  return s.substr(a, b - a + 1);
}

// Strict: the whole (trimmed) field is one decimal number; "0x10", "1abc", "" are not.
bool parse_finite(const std::string& text, double& value) {
  const std::string t = trim(text);
  const char* first = t.data();
  if (!t.empty() && t[0] == '+') ++first;  // from_chars refuses a leading '+'
  auto [end, ec] = std::from_chars(first, t.data() + t.size(), value);
  return !t.empty() && ec == std::errc() && end == t.data() + t.size() && std::isfinite(value);
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size();
  return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

// A category value as part of a feature name: problem keys reserve ';' and '='.
std::string category_name(const std::string& column, const std::string& value) {
  std::string out = column + ".";
  for (unsigned char c : value)
    out += std::isalnum(c) || c == '_' || c == '-' || c == '+' || c == '.' ? char(c) : '_';
  return out;
}

struct ImportedCell {
  std::vector<double> values;  // valid times/perfs
  size_t invalid = 0;
  std::string first_invalid;  // "file:line: time 'inf'" for the failed row's message
};

// One measurement from the valid values of a (problem, config) pair, or a failed one.
Measurement measurement_of(const ImportedCell& cell, const LongCsvOptions& o) {
  Measurement m;
  if (cell.values.empty()) {
    m.outcome.status = Status::failed;
    m.outcome.message = fmt::format("invalid measurement ({})", cell.first_invalid);
    return m;
  }
  const std::vector<double>& v = cell.values;
  m.outcome.status = Status::ok;
  const double mid = median_of(v);
  m.outcome.timing.reps = int(v.size());
  if (o.higher_is_better) {
    m.perf = mid;
    return m;
  }
  auto& tm = m.outcome.timing;
  tm.median_ms = mid;
  tm.min_ms = *std::min_element(v.begin(), v.end());
  tm.max_ms = *std::max_element(v.begin(), v.end());
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::abs(x - mid));
  tm.mad_ms = median_of(dev);
  tm.samples_ms = v;
  m.perf = 1.0 / mid;
  return m;
}

void check_options(const LongCsvOptions& options, const std::string& source) {
  if (options.problem_cols.empty())
    throw Error(fmt::format("{}: no problem columns given", source));
  if (options.config_col.empty() == options.config_cols.empty()) {
    throw Error(fmt::format("{}: give either one config column or several config columns", source));
  }
  if (options.time_col.empty()) throw Error(fmt::format("{}: no time column given", source));
  for (const auto& c : options.categorical_cols) {
    if (std::find(options.problem_cols.begin(), options.problem_cols.end(), c) ==
        options.problem_cols.end())
      throw Error(
          fmt::format("{}: categorical column '{}' is not one of the problem columns", source, c));
  }
}

}  // namespace

std::vector<Measurement> parse_long_csv(std::string_view text, const std::string& source,
                                        const LongCsvOptions& options, LongCsvReport* report) {
  check_options(options, source);
  const auto records = read_csv_records(text, source);
  if (records.empty()) throw Error(fmt::format("{}: empty file (no header)", source));
  const auto& header = records.front().fields;
  auto column = [&](const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (trim(header[i]) == name) return i;
    }
    throw Error(fmt::format("{}:1: no column '{}' in the header", source, name));
  };
  const size_t n_problem = options.problem_cols.size();
  std::vector<size_t> problem_at, config_at;
  std::vector<bool> categorical(n_problem, false);
  for (size_t j = 0; j < n_problem; ++j) {
    const std::string& c = options.problem_cols[j];
    problem_at.push_back(column(c));
    categorical[j] = std::find(options.categorical_cols.begin(), options.categorical_cols.end(),
                               c) != options.categorical_cols.end();
  }
  const std::vector<std::string> config_names = options.config_cols.empty()
                                                    ? std::vector<std::string>{options.config_col}
                                                    : options.config_cols;
  for (const auto& c : config_names) config_at.push_back(column(c));
  const size_t time_at = column(options.time_col);
  const char* what = options.higher_is_better ? "performance" : "time";

  // Pass 1: every row's problem cells, config and value; the categories seen per column.
  struct Row {
    std::vector<std::string> problem;
    std::string config;
    double value = 0;
    bool valid = false;
    std::string invalid_text;  // the field, kept for the message when not valid
    size_t line = 0;
  };
  std::vector<Row> rows;
  std::vector<std::set<std::string>> categories(n_problem);
  for (size_t r = 1; r < records.size(); ++r) {
    const auto& fields = records[r].fields;
    Row row;
    row.line = records[r].line;
    if (fields.size() != header.size()) {
      throw Error(fmt::format("{}:{}: {} fields, the header has {}", source, row.line,
                              fields.size(), header.size()));
    }
    for (size_t j = 0; j < n_problem; ++j) {
      std::string cell = trim(fields[problem_at[j]]);
      double v;
      if (categorical[j]) {
        if (cell.empty())
          throw Error(fmt::format("{}:{}: empty value in categorical column '{}'", source, row.line,
                                  options.problem_cols[j]));
        categories[j].insert(cell);
      } else if (!parse_finite(cell, v)) {
        throw Error(
            fmt::format("{}:{}: column '{}' value '{}' is not a finite number (a category? see "
                        "--categorical)",
                        source, row.line, options.problem_cols[j], cell));
      }
      row.problem.push_back(std::move(cell));
    }
    if (options.config_cols.empty()) {
      row.config = trim(fields[config_at[0]]);
      if (row.config.empty()) {
        throw Error(fmt::format("{}:{}: empty config in column '{}'", source, row.line,
                                options.config_col));
      }
    } else {
      for (size_t j = 0; j < config_at.size(); ++j) {
        if (j) row.config += ';';
        row.config += config_names[j] + "=" + trim(fields[config_at[j]]);
      }
    }
    row.valid = parse_finite(fields[time_at], row.value) && row.value > 0;
    if (!row.valid) row.invalid_text = trim(fields[time_at]);
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw Error(fmt::format("{}: no data rows", source));

  // One-hot names must stay distinct after sanitizing ("a b" and "a_b" would collide).
  for (size_t j = 0; j < n_problem; ++j) {
    std::map<std::string, std::string> seen;
    for (const auto& v : categories[j]) {
      auto [it, added] = seen.emplace(category_name(options.problem_cols[j], v), v);
      if (!added)
        throw Error(
            fmt::format("{}: categories '{}' and '{}' of column '{}' give the same "
                        "feature name '{}'",
                        source, it->second, v, options.problem_cols[j], it->first));
    }
  }

  // Pass 2: problem keys; (problem, config) → values.
  std::map<std::pair<std::string, std::string>, ImportedCell> cells;
  size_t invalid_rows = 0;
  for (const Row& row : rows) {
    Problem p;
    for (size_t j = 0; j < n_problem; ++j) {
      if (!categorical[j]) {
        p.names.push_back(options.problem_cols[j]);
        double v = 0;
        parse_finite(row.problem[j], v);
        p.values.push_back(v);
        continue;
      }
      for (const auto& c : categories[j]) {
        p.names.push_back(category_name(options.problem_cols[j], c));
        p.values.push_back(c == row.problem[j] ? 1.0 : 0.0);
      }
    }
    ImportedCell& cell = cells[{p.key(), row.config}];
    if (row.valid) {
      cell.values.push_back(row.value);
    } else {
      ++invalid_rows;
      if (cell.invalid++ == 0)
        cell.first_invalid = fmt::format("{}:{}: {} '{}' in column '{}'", source, row.line, what,
                                         row.invalid_text, options.time_col);
    }
  }

  std::set<std::string> configs, vendors;
  for (const auto& [key, cell] : cells) {
    const bool vendor = std::find(options.vendor_configs.begin(), options.vendor_configs.end(),
                                  key.second) != options.vendor_configs.end();
    (vendor ? vendors : configs).insert(key.second);
  }
  for (const auto& v : options.vendor_configs) {
    if (!vendors.count(v))
      throw Error(
          fmt::format("{}: vendor config '{}' does not occur in the config column(s)", source, v));
  }
  std::map<std::string, int64_t> config_id;
  for (const auto& c : configs) config_id[c] = int64_t(config_id.size());

  std::vector<Measurement> out;
  size_t invalid_keys = 0;
  for (const auto& [key, cell] : cells) {
    Measurement m = measurement_of(cell, options);
    m.device = options.device;
    m.family = options.family;
    m.problem = key.first;
    m.config = key.second;
    set_stored_config_id(m, vendors.count(key.second) ? -1 : config_id[key.second]);  // -1: vendor
    invalid_keys += m.outcome.status != Status::ok;
    out.push_back(std::move(m));
  }
  if (report) *report = {rows.size(), invalid_rows, invalid_keys};
  return out;
}

std::vector<Measurement> import_long_csv(const std::string& path, const LongCsvOptions& options,
                                         LongCsvReport* report) {
  check_options(options, path);  // before reading: a bad option needs no file
  return parse_long_csv(read_text_file(path), path, options, report);
}

}  // namespace ktune::ml
