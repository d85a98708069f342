// Offline evaluation of search strategies (see search_eval.hpp).
#include "ktune/ml/search_eval.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>

#include "ktune/error.hpp"
#include "ktune/ml/evaluate.hpp"
#include "ktune/ml/prune.hpp"
#include "ktune/ml/selector.hpp"

namespace ktune::ml {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// % of the per-problem oracle of the best of each row's first `budget` measurements.
double prefix_pct(const Dataset& data, const SearchState& run, int64_t budget) {
  const Eigen::VectorXd oracle = data.oracle_perf();
  std::vector<double> ratios;
  for (Eigen::Index r = 0; r < data.rows(); ++r) {
    if (oracle[r] <= 0) continue;
    const auto& order = run.order[size_t(r)];
    double best = 0;
    for (size_t i = 0; i < order.size() && int64_t(i) < budget; ++i)
      best = std::max(best, run.perf(r, order[i]));
    ratios.push_back(best / oracle[r]);
  }
  return pct_of_oracle(ratios);
}

// prune K + train the selector on train rows of `train_data`, scored on `test_data`'s test rows.
double selector_pct(const Dataset& train_data, const Dataset& test_data, const Split& split,
                    const SampledEvalOptions& o) {
  const Dataset train = train_data.subset_rows(split.train);
  const Dataset test = test_data.subset_rows(split.test);
  PruneOptions po;
  po.method = parse_prune_method(o.pruner);
  po.k = o.k;
  po.norm = o.norm;
  const auto shipped = prune(train, po);
  auto selector = make_selector(o.selector);
  selector->fit(train, shipped, o.norm);
  return evaluate_selector(*selector, test, shipped, safe_order(train)).pct_of_oracle;
}

}  // namespace

SearchState search_state_from_dataset(const Dataset& data) {
  SearchState s;
  s.config_names = data.config_names;
  s.config_feature_names = data.config_param_names;
  s.config_features = data.config_params;
  s.problem_keys = data.problem_keys;
  s.problem_feature_names = data.feature_names;
  s.problem_features = data.features;
  s.resize();
  return s;
}

Measurement DatasetMeasurer::measure(Eigen::Index row, Eigen::Index col) {
  Measurement m;
  m.device = data_.device;
  m.family = data_.family;
  m.problem = data_.problem_keys[size_t(row)];
  m.config = data_.config_names[size_t(col)];
  m.config_id = col;
  const bool ok = data_.valid(row, col);
  m.outcome.status = ok ? Status::ok : Status::failed;
  m.perf = ok ? data_.perf(row, col) : 0;
  return m;
}

Dataset sampled_dataset(const Dataset& data, const SearchState& run, int64_t budget, bool impute,
                        const ModelStrategyOptions& model) {
  SearchState kept = search_state_from_dataset(data);
  for (Eigen::Index r = 0; r < data.rows(); ++r) {
    const auto& order = run.order[size_t(r)];
    for (size_t i = 0; i < order.size() && int64_t(i) < budget; ++i)
      kept.record(r, order[i], run.cell(r, order[i]) == cell::ok, run.perf(r, order[i]));
  }
  Dataset out = data;
  out.perf = kept.perf;
  out.valid = (kept.perf.array() > 0).matrix();
  SearchModel forest;
  if (!impute || !forest.fit(kept, model, search_seed(model.seed, "impute", uint64_t(budget))))
    return out;
  for (Eigen::Index r = 0; r < data.rows(); ++r) {
    if (kept.perf.row(r).maxCoeff() <= 0) continue;  // nothing ok measured: left invalid
    for (Eigen::Index c = 0; c < data.cols(); ++c) {
      if (kept.cell(r, c) != cell::unmeasured) continue;
      double mean, spread;
      forest.predict(kept, r, c, mean, spread);
      out.perf(r, c) = std::exp(mean);
      out.valid(r, c) = true;
    }
  }
  return out;
}

SampledEvalResult evaluate_sampled(const Dataset& data, const SampledEvalOptions& o) {
  if (data.rows() < 2 || data.cols() < 1) throw Error("sampled evaluation: dataset too small");
  if (o.seeds < 1) throw Error("sampled evaluation: seeds must be >= 1");
  const auto start = std::chrono::steady_clock::now();
  SampledEvalResult result;
  result.family = data.family;
  result.device = data.device;
  result.problems = data.rows();
  result.configs = data.cols();
  const Split split = random_split(data, o.test_fraction, o.split_seed);
  result.exhaustive_selector_pct = selector_pct(data, data, split, o);

  int64_t max_budget = 0;
  for (int64_t b : o.budgets) max_budget = std::max(max_budget, std::min<int64_t>(b, data.cols()));
  for (const auto& name : o.strategies) {
    std::vector<SampledEvalRow> rows;
    for (int64_t b : o.budgets) {
      SampledEvalRow row;
      row.strategy = name;
      row.budget = std::min<int64_t>(b, data.cols());
      row.seeds = o.seeds;
      rows.push_back(row);
    }
    std::vector<double> selector_sum(rows.size(), 0);
    for (int seed = 0; seed < o.seeds; ++seed) {
      ModelStrategyOptions mo = o.model;
      mo.seed = uint64_t(seed);
      auto strategy = make_search_strategy(name, mo);
      SearchState state = search_state_from_dataset(data);
      DatasetMeasurer measurer(data);
      SearchBudget budget;
      budget.per_problem = max_budget;
      const auto t0 = std::chrono::steady_clock::now();
      run_search(state, *strategy, measurer, budget);
      const double secs = seconds_since(t0);
      for (size_t i = 0; i < rows.size(); ++i) {
        rows[i].pct_of_oracle += prefix_pct(data, state, rows[i].budget) / o.seeds;
        rows[i].seconds += secs / o.seeds;
        if (std::find(o.selector_budgets.begin(), o.selector_budgets.end(), rows[i].budget) ==
            o.selector_budgets.end())
          continue;
        const Dataset sampled = sampled_dataset(data, state, rows[i].budget, true, mo);
        selector_sum[i] += selector_pct(sampled, data, split, o);
      }
    }
    for (size_t i = 0; i < rows.size(); ++i) {
      if (std::find(o.selector_budgets.begin(), o.selector_budgets.end(), rows[i].budget) !=
          o.selector_budgets.end())
        rows[i].selector_pct = selector_sum[i] / o.seeds;
      result.rows.push_back(rows[i]);
    }
  }
  result.seconds = seconds_since(start);
  return result;
}

void write_sampled_csv(const SampledEvalResult& r, std::ostream& out) {
  out << "strategy,budget_per_problem,seeds,pct_of_oracle,selector_pct_of_oracle\n";
  out << fmt::format("exhaustive,{},1,100.00,{:.2f}\n", r.configs, r.exhaustive_selector_pct);
  for (const auto& row : r.rows) {
    out << fmt::format("{},{},{},{:.2f},{}\n", row.strategy, row.budget, row.seeds,
                       row.pct_of_oracle,
                       row.selector_pct ? fmt::format("{:.2f}", *row.selector_pct) : "");
  }
}

void write_sampled_markdown(const SampledEvalResult& r, const SampledEvalOptions& o,
                            std::ostream& out) {
  out << fmt::format(
      "# Sampled tuning: {} on {} ({} problems × {} configs)\n\n"
      "% of the per-problem oracle (geomean) of the best config found with B measurements per "
      "problem, mean over {} seeds; selector: {} K = {} ({} norm) + {} trained on the sampled "
      "dataset (unmeasured cells filled by the forest) of a {:.0f} % / {:.0f} % random split, "
      "scored on the held-out problems of the exhaustive dataset. The same pipeline trained on "
      "the exhaustive dataset: **{:.2f} %**. Evaluation time {:.0f} s.\n\n",
      r.family, r.device, r.problems, r.configs, o.seeds, o.pruner, o.k, to_string(o.norm),
      o.selector, 100 * (1 - o.test_fraction), 100 * o.test_fraction, r.exhaustive_selector_pct,
      r.seconds);
  std::vector<std::string> names;
  for (const auto& row : r.rows)
    if (std::find(names.begin(), names.end(), row.strategy) == names.end())
      names.push_back(row.strategy);
  out << "| B per problem | % of space |";
  for (const auto& n : names) out << " " << n << " |";
  for (const auto& n : names) out << " selector (" << n << ") |";
  out << "\n| ---: | ---: |";
  for (size_t i = 0; i < 2 * names.size(); ++i) out << " ---: |";
  out << "\n";
  std::vector<int64_t> budgets;
  for (const auto& row : r.rows)
    if (std::find(budgets.begin(), budgets.end(), row.budget) == budgets.end())
      budgets.push_back(row.budget);
  auto find = [&](const std::string& n, int64_t b) -> const SampledEvalRow* {
    for (const auto& row : r.rows)
      if (row.strategy == n && row.budget == b) return &row;
    return nullptr;
  };
  for (int64_t b : budgets) {
    out << fmt::format("| {} | {:.1f} |", b, 100.0 * double(b) / double(r.configs));
    for (const auto& n : names) {
      const auto* row = find(n, b);
      out << (row ? fmt::format(" {:.2f} |", row->pct_of_oracle) : " |");
    }
    for (const auto& n : names) {
      const auto* row = find(n, b);
      out << (row && row->selector_pct ? fmt::format(" {:.2f} |", *row->selector_pct) : " |");
    }
    out << "\n";
  }
  out << "\nSearch time per seed to the largest budget:";
  for (const auto& n : names) {
    const auto* row = find(n, budgets.back());
    if (row) out << fmt::format(" {} {:.1f} s;", n, row->seconds);
  }
  out << "\n";
}

}  // namespace ktune::ml
