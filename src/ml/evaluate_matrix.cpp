// The evaluation matrix (see evaluate.hpp): splits × norms × pruners × K, and the selectors at
// the selector Ks. Cells run in parallel (OpenMP, dynamic schedule) and land in a fixed order,
// so the result does not depend on the thread count.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "ktune/error.hpp"
#include "ktune/ml/evaluate.hpp"
#include "ktune/ml/prune.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace ktune::ml {
namespace {

struct Cell {
  Norm norm;
  PruneMethod pruner;
  int k;
};

// One (split, norm, pruner, K) cell: the ceiling row (when K is a ceiling K) and one row per
// selector (when K is a selector K). Failures become rows with a note, never exceptions.
std::vector<EvalRow> run_cell(const std::string& split, const Dataset& train, const Dataset& test,
                              const std::vector<Eigen::Index>& fixed_order, const Cell& cell,
                              const EvalOptions& o, bool want_ceiling, bool want_selectors,
                              const std::vector<std::string>& selectors) {
  std::vector<EvalRow> rows;
  EvalRow base;
  base.split = split;
  base.norm = to_string(cell.norm);
  base.pruner = to_string(cell.pruner);
  base.k = cell.k;
  auto fail = [&](EvalRow row, const std::string& what) {
    row.ok = false;
    row.note = what;
    return row;
  };
  std::vector<Eigen::Index> shipped;
  try {
    shipped = prune(train, {cell.pruner, cell.k, cell.norm, o.seed});
  } catch (const std::exception& e) {
    if (want_ceiling) rows.push_back(fail(base, e.what()));
    if (want_selectors) {
      for (const auto& s : selectors) {
        EvalRow row = base;
        row.selector = s;
        rows.push_back(fail(row, e.what()));
      }
    }
    return rows;
  }
  const double ceiling = ceiling_pct(test, shipped);
  if (want_ceiling) {
    EvalRow row = base;
    row.metrics.ceiling_pct = ceiling;
    row.metrics.pct_of_oracle = ceiling;
    rows.push_back(row);
  }
  if (!want_selectors) return rows;
  for (const auto& name : selectors) {
    EvalRow row = base;
    row.selector = name;
    try {
      auto sel = make_selector(name, {o.fallback, o.seed, o.unsure});
      sel->fit(train, shipped, cell.norm);
      row.metrics = evaluate_selector(*sel, test, shipped, fixed_order);
      rows.push_back(row);
    } catch (const std::exception& e) {
      rows.push_back(fail(row, e.what()));
    }
  }
  return rows;
}

}  // namespace

EvalOptions quick_eval_options() {
  EvalOptions o;
  o.network_splits = false;
  o.norms = {Norm::scale};
  o.pruners = {PruneMethod::topn, PruneMethod::kmeans, PruneMethod::tree};
  o.selectors = {"tree-b", "knn-3", "forest", "reg-speedup"};
  o.ceiling_ks = {4, 5, 6, 7, 8};
  o.selector_ks = {5, 8};
  return o;
}

EvalResult evaluate(const Dataset& data, const EvalOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  if (data.rows() < 2) {
    throw Error(
        fmt::format("eval: the dataset has {} problem(s); at least 2 are needed to hold some out",
                    data.rows()));
  }
  if (data.cols() == 0) throw Error("eval: the dataset has no configs");
  std::vector<Split> splits;
  if (o.random_split) splits.push_back(random_split(data, o.test_fraction, o.seed));
  if (o.network_splits) {
    for (auto& s : network_splits(data)) splits.push_back(std::move(s));
  }
  for (const auto& s : o.splits) splits.push_back(s);
  if (splits.empty()) {
    throw Error(
        "eval: no split to run (the dataset names no networks, the random split is off and no "
        "other split was given)");
  }
  const std::vector<PruneMethod> pruners = o.pruners.empty() ? prune_methods() : o.pruners;
  const std::vector<std::string> selectors = o.selectors.empty() ? selector_names() : o.selectors;
  for (const auto& s : selectors) make_selector(s);  // unknown names fail before any work
  const std::set<int> ceiling_ks(o.ceiling_ks.begin(), o.ceiling_ks.end());
  const std::set<int> selector_ks(o.selector_ks.begin(), o.selector_ks.end());
  std::set<int> all_ks = ceiling_ks;
  all_ks.insert(selector_ks.begin(), selector_ks.end());

  std::vector<Cell> cells;
  for (Norm norm : o.norms) {
    for (const auto& pruner : pruners) {
      for (int k : all_ks) cells.push_back({norm, pruner, k});
    }
  }
  const size_t total = cells.size() * splits.size();
  size_t done = 0;

  EvalResult result;
  result.family = data.family;
  result.device = data.device;
  result.problems = data.rows();
  result.configs = data.cols();
  for (const auto& split : splits) {
    result.split_names.push_back(split.name);
    result.split_sizes.push_back(
        {split.name, {static_cast<int>(split.train.size()), static_cast<int>(split.test.size())}});
    const Dataset train = data.subset_rows(split.train);
    const Dataset test = data.subset_rows(split.test);
    const std::vector<Eigen::Index> fixed_order = fixed_config_order(train);
    result.fixed_configs.push_back({split.name, data.config_names[size_t(fixed_order.front())],
                                    data.config_names[size_t(safe_order(train).front())]});
    {
      std::vector<double> ratios;
      for (Eigen::Index r = 0; r < test.rows(); ++r) {
        for (Eigen::Index c : fixed_order) {
          if (test.valid(r, c)) {
            ratios.push_back(oracle_ratio(test, r, c));
            break;
          }
        }
      }
      result.fixed_pct.push_back({split.name, pct_of_oracle(ratios)});
    }
    std::vector<std::vector<EvalRow>> out(cells.size());
    const int n_cells = static_cast<int>(cells.size());
#pragma omp parallel for schedule(dynamic) \
    num_threads(o.threads > 0 ? o.threads : omp_get_max_threads())
    for (int i = 0; i < n_cells; ++i) {
      const Cell& c = cells[i];
      out[i] = run_cell(split.name, train, test, fixed_order, c, o, ceiling_ks.count(c.k) > 0,
                        selector_ks.count(c.k) > 0, selectors);
      if (o.progress) {
#pragma omp critical(ktune_eval_progress)
        o.progress(++done, total);
      }
    }
    for (auto& rows : out) {
      for (auto& row : rows) result.rows.push_back(std::move(row));
    }
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace ktune::ml
