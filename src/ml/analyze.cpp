// Dataset analysis: PCA dimensionality, best-config counts and per-problem spread.
#include "ktune/ml/analyze.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/ml/pca.hpp"
#include "ktune/ml/prune.hpp"

namespace ktune::ml {

AnalysisReport analyze(const Dataset& data, Norm norm) {
  if (data.rows() == 0 || data.cols() == 0) {
    throw Error(fmt::format("cannot analyze an empty dataset ({} problems x {} configs)",
                            data.rows(), data.cols()));
  }
  AnalysisReport r;
  r.family = data.family;
  r.device = data.device;
  r.norm = norm;
  r.problems = data.rows();
  r.configs = data.cols();
  r.unmeasured_cells = data.unmeasured_count();
  r.valid_fraction = double(data.valid.count()) / double(data.valid.size() - r.unmeasured_cells);

  const Eigen::MatrixXd normalized = normalize(data, norm);
  if (data.rows() >= 2) {
    Pca pca;
    pca.fit(normalized);
    r.cumulative_variance = pca.cumulative_ratio();
    // A constant matrix has no variance to explain: report 0 components then.
    if (r.cumulative_variance.size() > 0 && r.cumulative_variance(0) > 0) {
      r.components_80 = pca.components_for(0.80);
      r.components_90 = pca.components_for(0.90);
      r.components_95 = pca.components_for(0.95);
    }
  }

  const auto oracle = data.oracle_index();
  std::map<Eigen::Index, int> wins;
  for (Eigen::Index best : oracle) {
    if (best >= 0) ++wins[best];
  }
  for (const auto& [c, count] : wins)
    r.best_counts.emplace_back(data.config_names[size_t(c)], count);
  std::stable_sort(r.best_counts.begin(), r.best_counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  r.distinct_best = int(r.best_counts.size());

  const Eigen::VectorXd geomean = geomean_scaled(data);
  Eigen::Index single = 0;
  geomean.maxCoeff(&single);
  r.best_single_config = data.config_names[size_t(single)];
  r.best_single_geomean = geomean(single);

  std::vector<double> spreads;
  for (Eigen::Index i = 0; i < data.rows(); ++i) {
    ProblemSpread s;
    s.problem = data.problem_keys[size_t(i)];
    s.valid_configs = int(data.valid.row(i).count());
    if (oracle[size_t(i)] >= 0) {
      s.best_config = data.config_names[size_t(oracle[size_t(i)])];
      s.best_perf = data.perf(i, oracle[size_t(i)]);
      s.worst_perf = s.best_perf;
      for (Eigen::Index c = 0; c < data.cols(); ++c) {
        if (data.valid(i, c)) s.worst_perf = std::min(s.worst_perf, data.perf(i, c));
      }
      s.spread = s.best_perf / s.worst_perf;
      spreads.push_back(s.spread);
    }
    r.spread.push_back(std::move(s));
  }
  if (!spreads.empty()) {
    std::sort(spreads.begin(), spreads.end());
    const size_t m = spreads.size();
    r.median_spread = m % 2 ? spreads[m / 2] : 0.5 * (spreads[m / 2 - 1] + spreads[m / 2]);
    r.max_spread = spreads.back();
  }
  return r;
}

std::string to_markdown(const AnalysisReport& r, size_t top) {
  std::string md;
  auto out = std::back_inserter(md);
  fmt::format_to(out, "# Dataset analysis: {} on {}\n\n", r.family, r.device);
  fmt::format_to(out, "| item | value |\n| --- | --- |\n");
  fmt::format_to(out, "| problems | {} |\n| configs | {} |\n", r.problems, r.configs);
  fmt::format_to(out, "| valid entries | {:.1f} % |\n", 100 * r.valid_fraction);
  if (r.unmeasured_cells > 0) {  // only sampled data has them: full sweeps print as before
    fmt::format_to(out, "| unmeasured entries (left out) | {} |\n", r.unmeasured_cells);
  }
  fmt::format_to(out, "| normalization | {} |\n", to_string(r.norm));
  if (r.cumulative_variance.size() == 0 || r.components_80 == 0) {
    fmt::format_to(out, "| PCA components for 80 / 90 / 95 % variance | n/a (no variance) |\n");
  } else {
    fmt::format_to(out, "| PCA components for 80 / 90 / 95 % variance | {} / {} / {} |\n",
                   r.components_80, r.components_90, r.components_95);
  }
  fmt::format_to(out, "| configs best on some problem | {} |\n", r.distinct_best);
  fmt::format_to(out, "| best single config | `{}` ({:.1f} % of oracle, geomean) |\n",
                 r.best_single_config, 100 * r.best_single_geomean);
  fmt::format_to(out, "| best/worst valid perf per problem: median, max | {:.2f}x, {:.2f}x |\n\n",
                 r.median_spread, r.max_spread);

  fmt::format_to(out,
                 "## PCA cumulative explained variance\n\n| components | cumulative |\n"
                 "| ---: | ---: |\n");
  for (Eigen::Index j = 0; j < r.cumulative_variance.size() && size_t(j) < top; ++j) {
    fmt::format_to(out, "| {} | {:.4f} |\n", j + 1, r.cumulative_variance(j));
  }
  fmt::format_to(out,
                 "\n## Most frequent best configs (top {})\n\n| config | problems |\n"
                 "| --- | ---: |\n",
                 std::min(top, r.best_counts.size()));
  for (size_t i = 0; i < r.best_counts.size() && i < top; ++i) {
    fmt::format_to(out, "| `{}` | {} |\n", r.best_counts[i].first, r.best_counts[i].second);
  }
  std::vector<const ProblemSpread*> by_spread;
  for (const auto& s : r.spread) by_spread.push_back(&s);
  std::stable_sort(by_spread.begin(), by_spread.end(),
                   [](const auto* a, const auto* b) { return a->spread > b->spread; });
  fmt::format_to(out,
                 "\n## Problems where the choice matters most (top {})\n\n"
                 "| problem | best config | best perf | worst valid perf | spread | valid |\n"
                 "| --- | --- | ---: | ---: | ---: | ---: |\n",
                 std::min(top, by_spread.size()));
  for (size_t i = 0; i < by_spread.size() && i < top; ++i) {
    const auto& s = *by_spread[i];
    fmt::format_to(out, "| `{}` | `{}` | {:.4g} | {:.4g} | {:.2f}x | {} |\n", s.problem,
                   s.best_config, s.best_perf, s.worst_perf, s.spread, s.valid_configs);
  }
  return md;
}

namespace {
std::string analysis_csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}
}  // namespace

void write_csv(const AnalysisReport& r, const std::string& path) {
  std::ostringstream f;  // written through write_text_file: links, FIFOs, "-" and .gz
  auto row = [&](const std::string& section, const std::string& name, const std::string& value) {
    f << analysis_csv_field(section) << ',' << analysis_csv_field(name) << ','
      << analysis_csv_field(value) << '\n';
  };
  auto num = [](double x) { return fmt::format("{:.17g}", x); };
  f << "section,name,value\n";
  row("summary", "family", r.family);
  row("summary", "device", r.device);
  row("summary", "norm", to_string(r.norm));
  row("summary", "problems", std::to_string(r.problems));
  row("summary", "configs", std::to_string(r.configs));
  row("summary", "valid_fraction", num(r.valid_fraction));
  if (r.unmeasured_cells > 0)
    row("summary", "unmeasured_cells", std::to_string(r.unmeasured_cells));
  row("summary", "components_80", std::to_string(r.components_80));
  row("summary", "components_90", std::to_string(r.components_90));
  row("summary", "components_95", std::to_string(r.components_95));
  row("summary", "distinct_best", std::to_string(r.distinct_best));
  row("summary", "best_single_config", r.best_single_config);
  row("summary", "best_single_geomean", num(r.best_single_geomean));
  row("summary", "median_spread", num(r.median_spread));
  row("summary", "max_spread", num(r.max_spread));
  for (Eigen::Index j = 0; j < r.cumulative_variance.size(); ++j) {
    row("pca_cumulative", std::to_string(j + 1), num(r.cumulative_variance(j)));
  }
  for (const auto& [config, count] : r.best_counts)
    row("best_count", config, std::to_string(count));
  for (const auto& s : r.spread) {
    row("problem_best_config", s.problem, s.best_config);
    row("problem_best_perf", s.problem, num(s.best_perf));
    row("problem_worst_perf", s.problem, num(s.worst_perf));
    row("problem_spread", s.problem, num(s.spread));
    row("problem_valid_configs", s.problem, std::to_string(s.valid_configs));
  }
  write_text_file(path, f.str());
}

}  // namespace ktune::ml
