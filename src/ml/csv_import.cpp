// Import of foreign long-format CSV timings (see csv_import.hpp).
#include "ktune/ml/csv_import.hpp"

#include <fmt/format.h>

#include <algorithm>
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

bool parse_double(const std::string& text, double& value) {
  const std::string t = trim(text);
  if (t.empty()) return false;
  char* end = nullptr;
  value = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size();
  return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

}  // namespace

std::vector<Measurement> import_long_csv(const std::string& path, const LongCsvOptions& options) {
  if (options.problem_cols.empty()) throw Error(fmt::format("{}: no problem columns given", path));
  if (options.config_col.empty() == options.config_cols.empty()) {
    throw Error(fmt::format("{}: give either one config column or several config columns", path));
  }
  if (options.time_col.empty()) throw Error(fmt::format("{}: no time column given", path));
  const std::string text = read_text_file(path);
  const auto records = read_csv_records(text, path);
  if (records.empty()) throw Error(fmt::format("{}: empty file (no header)", path));
  const auto& header = records.front().fields;
  auto column = [&](const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (trim(header[i]) == name) return i;
    }
    throw Error(fmt::format("{}:1: no column '{}' in the header", path, name));
  };
  std::vector<size_t> problem_at, config_at;
  for (const auto& c : options.problem_cols) problem_at.push_back(column(c));
  const std::vector<std::string> config_names = options.config_cols.empty()
                                                    ? std::vector<std::string>{options.config_col}
                                                    : options.config_cols;
  for (const auto& c : config_names) config_at.push_back(column(c));
  const size_t time_at = column(options.time_col);
  const char* what = options.higher_is_better ? "performance" : "time";

  // (problem, config) → values, in first-seen order of keys for stable output.
  std::map<std::pair<std::string, std::string>, std::vector<double>> values;
  for (size_t r = 1; r < records.size(); ++r) {
    const auto& row = records[r].fields;
    const size_t line = records[r].line;
    if (row.size() != header.size()) {
      throw Error(fmt::format("{}:{}: {} fields, the header has {}", path, line, row.size(),
                              header.size()));
    }
    Problem p;
    for (size_t j = 0; j < problem_at.size(); ++j) {
      double v;
      if (!parse_double(row[problem_at[j]], v) || !std::isfinite(v)) {
        throw Error(fmt::format("{}:{}: column '{}' value '{}' is not a finite number", path, line,
                                options.problem_cols[j], row[problem_at[j]]));
      }
      p.names.push_back(options.problem_cols[j]);
      p.values.push_back(v);
    }
    std::string config;
    if (options.config_cols.empty()) {
      config = trim(row[config_at[0]]);
      if (config.empty()) {
        throw Error(
            fmt::format("{}:{}: empty config in column '{}'", path, line, options.config_col));
      }
    } else {
      for (size_t j = 0; j < config_at.size(); ++j) {
        if (j) config += ';';
        config += config_names[j] + "=" + trim(row[config_at[j]]);
      }
    }
    double t;
    if (!parse_double(row[time_at], t) || !std::isfinite(t) || t <= 0) {
      throw Error(fmt::format("{}:{}: {} '{}' in column '{}' is not a positive finite number", path,
                              line, what, row[time_at], options.time_col));
    }
    values[{p.key(), config}].push_back(t);
  }
  if (values.empty()) throw Error(fmt::format("{}: no data rows", path));

  std::set<std::string> configs;
  for (const auto& [key, v] : values) configs.insert(key.second);
  std::map<std::string, int64_t> config_id;
  for (const auto& c : configs) config_id[c] = int64_t(config_id.size());

  std::vector<Measurement> out;
  for (const auto& [key, v] : values) {
    Measurement m;
    m.device = options.device;
    m.family = options.family;
    m.problem = key.first;
    m.config = key.second;
    m.config_id = config_id[key.second];
    m.outcome.status = Status::ok;
    const double mid = median(v);
    m.outcome.timing.reps = int(v.size());
    if (options.higher_is_better) {
      m.perf = mid;
    } else {
      auto& tm = m.outcome.timing;
      tm.median_ms = mid;
      tm.min_ms = *std::min_element(v.begin(), v.end());
      tm.max_ms = *std::max_element(v.begin(), v.end());
      std::vector<double> dev;
      for (double x : v) dev.push_back(std::abs(x - mid));
      tm.mad_ms = median(dev);
      tm.samples_ms = v;
      m.perf = 1.0 / mid;
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace ktune::ml
