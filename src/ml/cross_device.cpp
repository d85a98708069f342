// Cross-device tables: train on one device, serve on another (cross_device.hpp).
#include "ktune/ml/cross_device.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "ktune/error.hpp"
#include "ktune/ml/selector.hpp"

namespace ktune::ml {
namespace {

// Each dataset restricted to the problems every one of them holds, in the first one's order, so
// that every cell (and each transfer loss) is over the same problems.
std::vector<Dataset> on_common_problems(const std::vector<Dataset>& datasets) {
  std::vector<std::map<std::string, Eigen::Index>> rows(datasets.size());
  for (size_t d = 0; d < datasets.size(); ++d)
    for (Eigen::Index r = 0; r < datasets[d].rows(); ++r)
      rows[d][datasets[d].problem_keys[size_t(r)]] = r;
  std::vector<std::vector<Eigen::Index>> keep(datasets.size());
  for (const auto& key : datasets[0].problem_keys) {
    bool everywhere = true;
    for (const auto& r : rows) everywhere = everywhere && r.count(key);
    if (!everywhere) continue;
    for (size_t d = 0; d < datasets.size(); ++d) keep[d].push_back(rows[d].at(key));
  }
  if (keep[0].empty()) throw Error("cross-device: the datasets share no problem");
  std::vector<Dataset> out;
  for (size_t d = 0; d < datasets.size(); ++d) out.push_back(datasets[d].subset_rows(keep[d]));
  return out;
}

CrossDeviceCell serve(const Dataset& train, const Dataset& run, const DeployRecipe& recipe) {
  if (train.family != run.family || train.feature_names != run.feature_names)
    throw Error(fmt::format("cross-device: {} and {} differ in family or problem features",
                            train.device, run.device));
  const auto selector = Selector::from_json(train_recipe(train, recipe, train.device));
  std::map<std::string, Eigen::Index> column;
  for (Eigen::Index c = 0; c < run.cols(); ++c) column[run.config_names[size_t(c)]] = c;
  const auto& shipped = selector->config_names();
  const Eigen::VectorXd oracle = run.oracle_perf();
  CrossDeviceCell cell{train.device, run.device, size_t(run.rows())};
  double log_sum = 0, vendor_log_sum = 0;
  for (Eigen::Index r = 0; r < run.rows(); ++r) {
    std::vector<bool> valid(shipped.size());
    for (size_t i = 0; i < shipped.size(); ++i) {
      const auto it = column.find(shipped[i]);
      valid[i] = it != column.end() && run.valid(r, it->second);
    }
    const Choice choice = selector->choose(run.features.row(r), valid);
    const auto it = column.find(shipped[size_t(choice.served)]);
    if (it == column.end()) ++cell.not_on_run_on;
    const double perf =
        it != column.end() && run.valid(r, it->second) ? run.perf(r, it->second) : 0;
    const double ratio = oracle(r) > 0 && perf > 0 ? perf / oracle(r) : kInvalidRatio;
    log_sum += std::log(ratio);
    if (ratio < 0.8) ++cell.below_80;
    double vendor = 0;
    for (Eigen::Index v = 0; v < run.vendor_perf.cols(); ++v) {
      const double p = run.vendor_perf(r, v);
      if (!std::isnan(p) && p > vendor) vendor = p;
    }
    if (vendor > 0) {
      vendor_log_sum += std::log(perf > 0 ? perf / vendor : kInvalidRatio);
      ++cell.vendor_problems;
    }
  }
  cell.pct_of_oracle = run.rows() ? 100 * std::exp(log_sum / double(run.rows())) : 0;
  cell.vs_vendor =
      cell.vendor_problems ? std::exp(vendor_log_sum / double(cell.vendor_problems)) : 0;
  return cell;
}

}  // namespace

std::vector<CrossDeviceCell> cross_device_table(const std::vector<Dataset>& datasets,
                                                const DeployRecipe& recipe) {
  std::vector<CrossDeviceCell> cells;
  const auto common = on_common_problems(datasets);
  for (const Dataset& a : common)
    for (const Dataset& b : common) cells.push_back(serve(a, b, recipe));
  return cells;
}

std::string cross_device_markdown(const std::vector<CrossDeviceCell>& cells) {
  std::map<std::string, double> own;  // run_on -> its own selector's % of oracle
  for (const auto& c : cells)
    if (c.trained_on == c.run_on) own[c.run_on] = c.pct_of_oracle;
  std::string out =
      "| trained on | run on | problems | % of run-on oracle | transfer loss (points) | "
      "vs fastest vendor (geomean) | below 80 % | served config never ran on run-on |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& c : cells) {
    const std::string loss = c.trained_on == c.run_on
                                 ? "(own, in-sample)"
                                 : fmt::format("{:.1f}", own[c.run_on] - c.pct_of_oracle);
    const std::string vendor =
        c.vendor_problems ? fmt::format("{:.3f}× ({} problems)", c.vs_vendor, c.vendor_problems)
                          : "no vendor rows";
    out += fmt::format("| {} | {} | {} | {:.1f} | {} | {} | {} | {} |\n", c.trained_on, c.run_on,
                       c.problems, c.pct_of_oracle, loss, vendor, c.below_80, c.not_on_run_on);
  }
  return out;
}

}  // namespace ktune::ml
