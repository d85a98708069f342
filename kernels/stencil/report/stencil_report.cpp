// What the stencil family adds to the HTML report (docs/report.md): the work-group heatmaps of
// the stencil seed paper, over the (rows, cols) grid of the `wg` parameter: how often each size
// is the best, and how well each does across scenarios (and how often it is refused).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ktune/ml/normalize.hpp"
#include "ktune/report.hpp"

namespace ktune::stencil {
namespace {

using nlohmann::json;

json grid_encoding(const char* value, const char* title, const char* scheme) {
  return {{"x", {{"field", "cols"}, {"type", "ordinal"}, {"title", "work-group cols"}}},
          {"y",
           {{"field", "rows"},
            {"type", "ordinal"},
            {"title", "work-group rows"},
            {"sort", "descending"}}},
          {"color",
           {{"field", value},
            {"type", "quantitative"},
            {"title", title},
            {"scale", {{"scheme", scheme}}}}},
          {"tooltip",
           {{{"field", "config"}},
            {{"field", "best"}, {"title", "best on (scenarios)"}},
            {{"field", "mean_pct"}, {"title", "mean % of best (valid)"}, {"format", ".1f"}},
            {{"field", "valid_pct"}, {"title", "% of scenarios valid"}, {"format", ".1f"}}}}};
}

std::vector<report::Figure> figures(const report::ReportInputs& in) {
  const Dataset& d = in.data;
  const auto& names = d.config_param_names;
  const auto rows_at = std::find(names.begin(), names.end(), "wg_x");
  const auto cols_at = std::find(names.begin(), names.end(), "wg_y");
  if (rows_at == names.end() || cols_at == names.end()) return {};
  const Eigen::Index rcol = rows_at - names.begin(), ccol = cols_at - names.begin();

  const Eigen::MatrixXd scaled = ml::normalize(d, ml::Norm::scale);
  const auto oracle = d.oracle_index();
  json table = json::array();
  for (Eigen::Index c = 0; c < d.cols(); ++c) {
    const int best = int(std::count(oracle.begin(), oracle.end(), c));
    const Eigen::Index valid = d.valid.col(c).count();
    double sum = 0;
    for (Eigen::Index r = 0; r < d.rows(); ++r) sum += d.valid(r, c) ? scaled(r, c) : 0;
    table.push_back({{"config", d.config_names[size_t(c)]},
                     {"rows", int(d.config_params(c, rcol))},
                     {"cols", int(d.config_params(c, ccol))},
                     {"best", best},
                     {"mean_pct", valid ? 100 * sum / double(valid) : 0.0},
                     {"valid_pct", 100.0 * double(valid) / double(d.rows())}});
  }
  const std::string scope = fmt::format("{} scenarios on {}", d.rows(), d.device);
  json best = {{"mark", {{"type", "rect"}, {"tooltip", true}}},
               {"width", 360},
               {"height", 300},
               {"encoding", grid_encoding("best", "best on", "blues")}};
  json perf = {{"mark", {{"type", "rect"}, {"tooltip", true}}},
               {"width", 360},
               {"height", 300},
               {"encoding", grid_encoding("mean_pct", "mean % of best", "viridis")}};
  return {
      report::make_figure("stencil-wg-best", "Stencil: how often each work-group size is the best",
                          "Number of scenarios on which each work-group size (rows × cols) is "
                          "the fastest (" +
                              scope + "); empty cells are never the best.",
                          best, table),
      report::make_figure("stencil-wg-perf", "Stencil: performance of each work-group size",
                          "Mean % of the scenario's best over the scenarios where the size is "
                          "valid (" +
                              scope +
                              "); the tooltip gives how often it is valid "
                              "(refused: too much shared memory or too many threads).",
                          perf, table)};
}

const bool stencil_report_registered =
    report::register_family_report("stencil", {.intensity = nullptr, .figures = figures});

}  // namespace
}  // namespace ktune::stencil
