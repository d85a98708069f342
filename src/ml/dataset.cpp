// Builds the dense Dataset view from measurements, a store, or an exported CSV.
#include "ktune/dataset.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/interchange.hpp"
#include "ktune/problem.hpp"
#include "ktune/store.hpp"

namespace ktune {
namespace {

// The single value present when `wanted` is empty; an Error when several or none are present.
std::string resolve(const std::set<std::string>& present, const std::string& wanted,
                    const char* what) {
  if (!wanted.empty()) {
    if (!present.count(wanted)) {
      throw Error(fmt::format("no measurements for {} '{}' (present: {})", what, wanted,
                              fmt::join(present, ", ")));
    }
    return wanted;
  }
  if (present.empty()) throw Error(fmt::format("no measurements to build a dataset from"));
  if (present.size() > 1) {
    throw Error(fmt::format("several {}s present ({}); name one", what, fmt::join(present, ", ")));
  }
  return *present.begin();
}

// Performance that counts, or 0 when the measurement is not a valid one.
double usable_perf(const Measurement& m) {
  if (m.outcome.status != Status::ok) return 0;
  if (std::isfinite(m.perf) && m.perf > 0) return m.perf;
  const double t = m.outcome.timing.median_ms;
  if (std::isfinite(t) && t > 0) return 1.0 / t;
  return 0;
}

std::vector<std::pair<std::string, std::string>> split_pairs(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const size_t eq = item.find('=');
    if (eq != std::string::npos && eq > 0)
      out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    start = end + 1;
  }
  return out;
}

bool parse_number(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(value);
}

// Config params of configs that are not of a registered family: "name=value;..." pairs; a
// numeric value is used as is, "AxB" gives name_x and name_y, anything else becomes the rank of
// the value among the param's sorted distinct values. Missing params are 0.
void generic_config_params(Dataset& d) {
  std::vector<std::string> names;
  std::map<std::string, std::set<std::string>> distinct;
  std::vector<std::vector<std::pair<std::string, std::string>>> pairs;
  for (const auto& c : d.config_names) {
    pairs.push_back(split_pairs(c));
    for (const auto& [name, value] : pairs.back()) {
      if (!distinct.count(name)) names.push_back(name);
      distinct[name].insert(value);
    }
  }
  // Column layout per param: numeric (1), pair "AxB" (2) or categorical rank (1).
  enum Kind { numeric, pair, categorical };
  std::map<std::string, Kind> kind;
  for (const auto& name : names) {
    bool all_numeric = true, all_pairs = true;
    for (const auto& v : distinct[name]) {
      double x;
      all_numeric = all_numeric && parse_number(v, x);
      const size_t p = v.find('x');
      double a, b;
      all_pairs = all_pairs && p != std::string::npos && parse_number(v.substr(0, p), a) &&
                  parse_number(v.substr(p + 1), b);
    }
    kind[name] = all_numeric ? numeric : all_pairs ? pair : categorical;
    if (kind[name] == pair) {
      d.config_param_names.push_back(name + "_x");
      d.config_param_names.push_back(name + "_y");
    } else {
      d.config_param_names.push_back(name);
    }
  }
  d.config_params = Eigen::MatrixXd::Zero(Eigen::Index(d.config_names.size()),
                                          Eigen::Index(d.config_param_names.size()));
  for (size_t c = 0; c < pairs.size(); ++c) {
    for (const auto& [name, value] : pairs[c]) {
      const auto col =
          Eigen::Index(std::find(d.config_param_names.begin(), d.config_param_names.end(),
                                 kind[name] == pair ? name + "_x" : name) -
                       d.config_param_names.begin());
      double x = 0;
      if (kind[name] == numeric) {
        parse_number(value, x);
      } else if (kind[name] == pair) {
        const size_t p = value.find('x');
        parse_number(value.substr(0, p), x);
        double y = 0;
        parse_number(value.substr(p + 1), y);
        d.config_params(Eigen::Index(c), col + 1) = y;
      } else {
        const auto& values = distinct[name];
        x = double(std::distance(values.begin(), values.find(value)));
      }
      d.config_params(Eigen::Index(c), col) = x;
    }
  }
}

void config_params(Dataset& d, const Family* family) {
  if (family) {
    try {
      const Space& space = family->space();
      Eigen::MatrixXd params;
      const auto names = space.numeric_names();
      params.resize(Eigen::Index(d.config_names.size()), Eigen::Index(names.size()));
      for (size_t c = 0; c < d.config_names.size(); ++c) {
        const auto values = space.numeric_values(space.parse(d.config_names[c]));
        for (size_t j = 0; j < values.size() && j < names.size(); ++j) {
          params(Eigen::Index(c), Eigen::Index(j)) = values[j];
        }
      }
      d.config_param_names = names;
      d.config_params = std::move(params);
      return;
    } catch (const Error&) {
      // Configs that are not of the family's space: fall through to the generic parse.
    }
  }
  generic_config_params(d);
}

void problem_features(Dataset& d, const Family* family) {
  std::vector<Problem> problems;
  problems.reserve(d.problem_keys.size());
  for (const auto& key : d.problem_keys) problems.push_back(Problem::parse(key));
  if (problems.empty()) return;
  d.feature_names = problems.front().names;
  const size_t raw = d.feature_names.size();
  std::vector<std::string> derived;
  if (family) derived = family->derived_feature_names();
  for (const auto& name : derived) d.feature_names.push_back(name);
  d.features.resize(Eigen::Index(problems.size()), Eigen::Index(d.feature_names.size()));
  if (family) d.work.resize(Eigen::Index(problems.size()));
  for (size_t r = 0; r < problems.size(); ++r) {
    const Problem& p = problems[r];
    if (family) d.work(Eigen::Index(r)) = family->flops(p);
    if (p.names.size() != raw) {
      throw Error(fmt::format("problem '{}' has features {} but the first problem has {}",
                              d.problem_keys[r], fmt::join(p.names, ","),
                              fmt::join(problems.front().names, ",")));
    }
    for (size_t j = 0; j < raw; ++j) {
      d.features(Eigen::Index(r), Eigen::Index(j)) = p.get(d.feature_names[j]);
    }
    if (!derived.empty()) {
      const auto values = family->derived_features(p);
      if (values.size() != derived.size()) {
        throw Error(fmt::format("family '{}' derived {} features for '{}', expected {}", d.family,
                                values.size(), d.problem_keys[r], derived.size()));
      }
      for (size_t j = 0; j < values.size(); ++j) {
        d.features(Eigen::Index(r), Eigen::Index(raw + j)) = values[j];
      }
    }
  }
}

// Each problem's tags (e.g. the networks it comes from), as stored with its measurements: the
// union over its rows, sorted.
void problem_groups(Dataset& d, const std::vector<const Measurement*>& slice) {
  std::unordered_map<std::string, std::set<std::string>> tags;
  for (const Measurement* m : slice) tags[m->problem].insert(m->tags.begin(), m->tags.end());
  d.problem_groups.clear();
  for (const auto& key : d.problem_keys) {
    const auto& t = tags[key];
    d.problem_groups.emplace_back(t.begin(), t.end());
  }
}

}  // namespace

Dataset dataset_from_measurements(const std::vector<Measurement>& ms, const std::string& device,
                                  const std::string& family, const DatasetOptions& options,
                                  size_t* dropped_rows) {
  std::set<std::string> devices;
  for (const auto& m : ms) {
    if (family.empty() || m.family == family) devices.insert(m.device);
  }
  Dataset d;
  d.device = resolve(devices, device, "device");
  std::set<std::string> families;
  for (const auto& m : ms) {
    if (m.device == d.device) families.insert(m.family);
  }
  d.family = resolve(families, family, "family");

  // Rows sorted by key, columns by (config id, string), vendors by name.
  std::set<std::string> keys;
  std::set<std::pair<int64_t, std::string>> configs;
  std::set<std::string> vendors;
  std::vector<const Measurement*> slice;
  for (const auto& m : ms) {
    if (m.device != d.device || m.family != d.family) continue;
    slice.push_back(&m);
    keys.insert(m.problem);
    if (m.vendor) {
      vendors.insert(m.config);
    } else {
      configs.insert({m.config_id, m.config});
    }
  }
  std::vector<std::string> all_keys(keys.begin(), keys.end());
  std::map<std::string, Eigen::Index> row_of, col_of, vendor_of;
  for (size_t r = 0; r < all_keys.size(); ++r) row_of[all_keys[r]] = Eigen::Index(r);
  for (const auto& [id, name] : configs) {
    if (col_of.count(name)) {
      throw Error(
          fmt::format("config '{}' appears with several ids in {}/{}", name, d.device, d.family));
    }
    col_of[name] = Eigen::Index(d.config_names.size());
    d.config_names.push_back(name);
  }
  for (const auto& v : vendors) {
    vendor_of[v] = Eigen::Index(d.vendor_names.size());
    d.vendor_names.push_back(v);
  }

  const auto n_rows = Eigen::Index(all_keys.size());
  Eigen::MatrixXd perf = Eigen::MatrixXd::Zero(n_rows, Eigen::Index(d.config_names.size()));
  BoolMatrix measured = BoolMatrix::Constant(n_rows, perf.cols(), false);
  Eigen::MatrixXd vendor_perf = Eigen::MatrixXd::Constant(
      n_rows, Eigen::Index(d.vendor_names.size()), std::numeric_limits<double>::quiet_NaN());
  // A key measured twice (e.g. merged CSVs) keeps its best valid performance.
  for (const Measurement* m : slice) {
    const Eigen::Index r = row_of[m->problem];
    const double p = usable_perf(*m);
    if (m->vendor) {
      double& v = vendor_perf(r, vendor_of[m->config]);
      if (p > 0 && (std::isnan(v) || p > v)) v = p;
    } else {
      const Eigen::Index c = col_of[m->config];
      perf(r, c) = std::max(perf(r, c), p);
      measured(r, c) = true;  // ok or invalid: either way no longer unknown
    }
  }

  // Drop rows that nothing valid was measured for.
  std::vector<Eigen::Index> kept;
  for (Eigen::Index r = 0; r < n_rows; ++r) {
    if ((perf.row(r).array() > 0).any()) {
      kept.push_back(r);
    } else if (!options.drop_rows_without_valid) {
      throw Error(fmt::format("problem '{}' has no valid config in {}/{}", all_keys[size_t(r)],
                              d.device, d.family));
    }
  }
  if (dropped_rows) *dropped_rows = size_t(n_rows) - kept.size();
  if (kept.empty()) {
    throw Error(fmt::format("no problem has a valid measurement in {}/{}", d.device, d.family));
  }
  d.perf.resize(Eigen::Index(kept.size()), perf.cols());
  d.measured.resize(d.perf.rows(), d.perf.cols());
  d.vendor_perf.resize(Eigen::Index(kept.size()), vendor_perf.cols());
  for (size_t i = 0; i < kept.size(); ++i) {
    d.problem_keys.push_back(all_keys[size_t(kept[i])]);
    d.perf.row(Eigen::Index(i)) = perf.row(kept[i]);
    d.measured.row(Eigen::Index(i)) = measured.row(kept[i]);
    d.vendor_perf.row(Eigen::Index(i)) = vendor_perf.row(kept[i]);
  }
  d.valid = (d.perf.array() > 0).matrix();

  // Datasets of the families the program registered (register_builtin) get derived features.
  const Family* fam = find_registered_family(d.family);
  problem_features(d, fam);
  problem_groups(d, slice);
  config_params(d, fam);
  return d;
}

Dataset load_dataset(const std::string& path, const std::string& device, const std::string& family,
                     const DatasetOptions& options) {
  return dataset_from_measurements(load_measurements(path, device, family), device, family,
                                   options);
}

Dataset Dataset::subset_rows(const std::vector<Eigen::Index>& rows) const {
  Dataset d;
  d.family = family;
  d.device = device;
  d.feature_names = feature_names;
  d.config_names = config_names;
  d.config_param_names = config_param_names;
  d.config_params = config_params;
  d.vendor_names = vendor_names;
  const auto n = Eigen::Index(rows.size());
  d.features.resize(n, features.cols());
  if (work.size() == this->rows()) d.work.resize(n);
  d.perf.resize(n, perf.cols());
  d.valid.resize(n, valid.cols());
  if (measured.size()) d.measured.resize(n, measured.cols());
  d.vendor_perf.resize(n, vendor_perf.cols());
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index r = rows[size_t(i)];
    if (r < 0 || r >= this->rows()) {
      throw Error(fmt::format("subset_rows: row {} outside 0..{}", r, this->rows() - 1));
    }
    d.problem_keys.push_back(problem_keys[size_t(r)]);
    if (size_t(r) < problem_groups.size()) d.problem_groups.push_back(problem_groups[size_t(r)]);
    if (features.rows() == this->rows()) d.features.row(i) = features.row(r);
    if (d.work.size()) d.work(i) = work(r);
    d.perf.row(i) = perf.row(r);
    d.valid.row(i) = valid.row(r);
    if (measured.size()) d.measured.row(i) = measured.row(r);
    if (vendor_perf.rows() == this->rows()) d.vendor_perf.row(i) = vendor_perf.row(r);
  }
  return d;
}

Dataset Dataset::subset_cols(const std::vector<Eigen::Index>& cols) const {
  Dataset d = *this;
  const auto n = Eigen::Index(cols.size());
  d.config_names.clear();
  d.config_params.resize(n, config_params.cols());
  d.perf.resize(rows(), n);
  d.valid.resize(rows(), n);
  if (measured.size()) d.measured.resize(rows(), n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index c = cols[size_t(i)];
    if (c < 0 || c >= this->cols()) {
      throw Error(fmt::format("subset_cols: column {} outside 0..{}", c, this->cols() - 1));
    }
    d.config_names.push_back(config_names[size_t(c)]);
    if (config_params.rows() == this->cols()) d.config_params.row(i) = config_params.row(c);
    d.perf.col(i) = perf.col(c);
    d.valid.col(i) = valid.col(c);
    if (measured.size()) d.measured.col(i) = measured.col(c);
  }
  return d;
}

Eigen::Index Dataset::unmeasured_count() const {
  return measured.size() ? measured.size() - measured.count() : 0;
}

std::vector<Eigen::Index> Dataset::oracle_index() const {
  std::vector<Eigen::Index> best(size_t(rows()), -1);
  for (Eigen::Index r = 0; r < rows(); ++r) {
    double best_perf = 0;
    for (Eigen::Index c = 0; c < cols(); ++c) {
      if (valid(r, c) && (best[size_t(r)] < 0 || perf(r, c) > best_perf)) {
        best[size_t(r)] = c;
        best_perf = perf(r, c);
      }
    }
  }
  return best;
}

Eigen::VectorXd Dataset::oracle_perf() const {
  Eigen::VectorXd best = Eigen::VectorXd::Zero(rows());
  const auto index = oracle_index();
  for (Eigen::Index r = 0; r < rows(); ++r) {
    if (index[size_t(r)] >= 0) best(r) = perf(r, index[size_t(r)]);
  }
  return best;
}

}  // namespace ktune
