// The seed papers' figures over one dataset: every config across problems, how often each
// config is best, PCA explained variance per normalization, and the roofline of the best,
// deployed and vendor kernels. The numbers come from ml::analyze / normalize / geomean_scaled;
// the evaluation figures are in eval_figures.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "ktune/ml/analyze.hpp"
#include "ktune/ml/normalize.hpp"
#include "ktune/ml/prune.hpp"
#include "ktune/report.hpp"
#include "src/report/report_internal.hpp"

namespace ktune::report {
namespace {

using nlohmann::json;

// Problems × configs, % of each problem's best (ml::normalize, scale), invalid cells marked -1.
// Configs ranked by their geomean of scaled perf (the pruners' candidate score), problems by
// their best GFLOP/s. One row per problem holding its whole vector keeps the page small; the
// spec flattens it.
Figure heatmap_figure(const Dataset& data) {
  const Eigen::MatrixXd scaled = ml::normalize(data, ml::Norm::scale);
  const Eigen::VectorXd score = ml::geomean_scaled(data);
  std::vector<Eigen::Index> cols(size_t(data.cols())), rows(size_t(data.rows()));
  std::iota(cols.begin(), cols.end(), 0);
  std::iota(rows.begin(), rows.end(), 0);
  std::stable_sort(cols.begin(), cols.end(), [&](auto a, auto b) { return score(a) > score(b); });
  const Eigen::VectorXd oracle = data.oracle_perf();
  std::stable_sort(rows.begin(), rows.end(), [&](auto a, auto b) { return oracle(a) > oracle(b); });

  json table = json::array(), configs = json::array();
  for (size_t j = 0; j < cols.size(); ++j)
    configs.push_back({{"c", j + 1}, {"config", data.config_names[size_t(cols[j])]}});
  for (size_t i = 0; i < rows.size(); ++i) {
    json v = json::array();
    for (const Eigen::Index c : cols) {
      const Eigen::Index r = rows[i];
      v.push_back(data.valid(r, c) ? int(std::lround(100 * scaled(r, c))) : -1);
    }
    table.push_back({{"p", i}, {"problem", data.problem_keys[size_t(rows[i])]}, {"v", v}});
  }
  json spec = {
      {"width", 900},
      {"height", std::clamp(int(rows.size()) * 2, 160, 600)},
      {"transform",
       {{{"flatten", {"v"}}},
        {{"window", {{{"op", "row_number"}, {"as", "c"}}}}, {"groupby", {"p"}}},
        {{"lookup", "c"},
         {"from", {{"data", {{"name", "configs"}}}, {"key", "c"}, {"fields", {"config"}}}}}}},
      {"mark", {{"type", "rect"}, {"tooltip", true}}},
      {"encoding",
       {{"x",
         {{"field", "c"},
          {"type", "ordinal"},
          {"title", "configs, ranked by geometric mean of % of best (best left)"},
          {"axis", {{"labels", false}, {"ticks", false}}}}},
        {"y",
         {{"field", "p"},
          {"type", "ordinal"},
          {"title", "problems, by best GFLOP/s (fastest on top)"},
          {"axis", {{"labels", false}, {"ticks", false}}}}},
        {"color",
         {{"field", "v"},
          {"type", "quantitative"},
          {"title", "% of best"},
          {"scale", {{"scheme", "viridis"}, {"domain", {0, 100}}}},
          {"condition", {{"test", "datum.v < 0"}, {"value", "#d9d9d9"}}}}},
        {"tooltip",
         {{{"field", "problem"}, {"type", "nominal"}},
          {{"field", "config"}, {"type", "nominal"}},
          {{"field", "v"}, {"type", "quantitative"}, {"title", "% of best (-1: invalid)"}}}}}}};
  spec["datasets"]["configs"] = configs;
  Figure f = make_figure(
      "config-heatmap", "Performance of every config across problems",
      fmt::format("{} problems × {} configs; each cell is the config's performance as % of the "
                  "best config of that problem (grey: refused, failed or wrong). {:.1f} % of the "
                  "cells are valid.",
                  data.rows(), data.cols(), 100.0 * double(data.valid.count()) / data.valid.size()),
      spec, table);
  f.renderer = "canvas";  // one mark per cell
  return f;
}

Figure best_counts_figure(const ml::AnalysisReport& a) {
  const size_t shown = std::min<size_t>(a.best_counts.size(), 60);
  json table = json::array();
  for (size_t i = 0; i < shown; ++i)
    table.push_back({{"config", a.best_counts[i].first}, {"problems", a.best_counts[i].second}});
  json spec = {{"width", std::clamp(int(shown) * 14, 200, 900)},
               {"height", 220},
               {"mark", {{"type", "bar"}, {"tooltip", true}}},
               {"encoding",
                {{"x",
                  {{"field", "config"},
                   {"type", "nominal"},
                   {"sort", "-y"},
                   {"axis", {{"labelAngle", -60}, {"labelLimit", 160}}}}},
                 {"y",
                  {{"field", "problems"},
                   {"type", "quantitative"},
                   {"title", "problems where it is the best"}}}}}};
  return make_figure(
      "best-counts", "How often each config is the best",
      fmt::format(
          "{} of {} configs are the best on at least one of the {} problems{}; the best "
          "single config, {}, reaches {:.1f} % of the oracle (geometric mean).",
          a.distinct_best, a.configs, a.problems,
          shown < a.best_counts.size() ? fmt::format(" (the {} most frequent shown)", shown) : "",
          a.best_single_config, 100 * a.best_single_geomean),
      spec, table);
}

Figure pca_figure(const std::vector<ml::AnalysisReport>& per_norm) {
  json table = json::array();
  std::string caption = "Components needed for 90 % of the variance:";
  for (const auto& a : per_norm) {
    const auto& cv = a.cumulative_variance;
    for (Eigen::Index j = 0; j < std::min<Eigen::Index>(cv.size(), 40); ++j)
      table.push_back(
          {{"normalization", ml::to_string(a.norm)}, {"components", j + 1}, {"variance", cv(j)}});
    caption += fmt::format(" {} {}{}", ml::to_string(a.norm), a.components_90,
                           &a == &per_norm.back() ? "." : ",");
  }
  json spec = {
      {"width", 560},
      {"height", 260},
      {"layer",
       {{{"mark", {{"type", "line"}, {"point", true}, {"tooltip", true}}},
         {"encoding",
          {{"x", {{"field", "components"}, {"type", "quantitative"}, {"title", "components"}}},
           {"y",
            {{"field", "variance"},
             {"type", "quantitative"},
             {"title", "cumulative explained variance"},
             {"scale", {{"domain", {0, 1}}}}}},
           {"color", {{"field", "normalization"}, {"type", "nominal"}}}}}},
        {{"mark", {{"type", "rule"}, {"strokeDash", {4, 4}}, {"color", "#888"}}},
         {"encoding", {{"y", {{"datum", 0.9}}}}}}}}};
  return make_figure("pca-variance", "PCA explained variance of the normalized performance",
                     "Principal components of the problems × configs matrix after each "
                     "normalization (first 40 shown; dashed: 90 %). " +
                         caption,
                     spec, table);
}

// Log-spaced points of the empirical bounds: the best observed GFLOP/s and the best observed
// GFLOP/s per unit of intensity (an achieved bandwidth), not the device's datasheet figures.
json empirical_roof(const json& points) {
  double peak = 0, bandwidth = 0, lo = INFINITY, hi = 0;
  for (const auto& p : points) {
    const double x = p["intensity"], y = p["gflops"];
    peak = std::max(peak, y);
    bandwidth = std::max(bandwidth, y / x);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  json roof = json::array();
  for (int i = 0; i <= 48 && hi > 0; ++i) {
    const double x = lo * std::pow(hi / lo, i / 48.0);
    roof.push_back({{"intensity", x}, {"gflops", std::min(peak, bandwidth * x)}});
  }
  return roof;
}

std::optional<Figure> roofline_figure(const ReportInputs& in, const FamilyReport* family) {
  if (!family || !family->intensity) return std::nullopt;
  const Dataset& d = in.data;
  const Eigen::VectorXd oracle = d.oracle_perf();
  const std::string vendor = d.vendor_names.empty() ? "vendor" : d.vendor_names.front();
  json table = json::array();
  auto add = [&](Eigen::Index r, const std::string& series, double gflops) {
    if (!(gflops > 0)) return;
    table.push_back({{"problem", d.problem_keys[size_t(r)]},
                     {"intensity", family->intensity(d, r)},
                     {"series", series},
                     {"gflops", gflops}});
  };
  for (Eigen::Index r = 0; r < d.rows(); ++r) {
    add(r, "best swept config (oracle)", oracle(r));
    if (in.deployed) {
      const auto it = in.deployed->by_problem.find(d.problem_keys[size_t(r)]);
      if (it == in.deployed->by_problem.end()) continue;
      add(r, "deployed tuned library", it->second.deployed);
      add(r, vendor + " (same run as deployed)", it->second.vendor);
    } else if (d.vendor_perf.cols() > 0) {
      add(r, vendor, d.vendor_perf(r, 0));
    }
  }
  if (table.empty()) return std::nullopt;
  json spec = {
      {"width", 640},
      {"height", 380},
      {"layer",
       {{{"data", {{"name", "roof"}}},
         {"mark", {{"type", "line"}, {"color", "#888"}, {"strokeDash", {6, 3}}}},
         {"encoding",
          {{"x", {{"field", "intensity"}, {"type", "quantitative"}}},
           {"y", {{"field", "gflops"}, {"type", "quantitative"}}}}}},
        {{"mark", {{"type", "point"}, {"filled", true}, {"opacity", 0.7}, {"tooltip", true}}},
         {"encoding",
          {{"x",
            {{"field", "intensity"},
             {"type", "quantitative"},
             {"scale", {{"type", "log"}}},
             {"title", "arithmetic intensity (FLOP per byte of minimal traffic)"}}},
           {"y",
            {{"field", "gflops"},
             {"type", "quantitative"},
             {"scale", {{"type", "log"}}},
             {"title", "GFLOP/s"}}},
           {"color", {{"field", "series"}, {"type", "nominal"}, {"title", nullptr}}},
           {"shape", {{"field", "series"}, {"type", "nominal"}}},
           {"tooltip",
            {{{"field", "problem"}},
             {{"field", "series"}},
             {{"field", "gflops"}, {"format", ".1f"}},
             {{"field", "intensity"}, {"format", ".2f"}}}}}}}}}};
  spec["datasets"]["roof"] = empirical_roof(table);
  return make_figure(
      "roofline", "Roofline: selected kernels against the vendor library",
      std::string("One point per problem and kernel. ") +
          (in.deployed ? "The deployed library and the vendor library were measured side by side "
                         "in one run (" +
                             in.deployed->path + "); the oracle is the best config of the sweep."
                       : "The oracle is the best config of the sweep, the vendor library was "
                         "measured in the same sweep.") +
          " Dashed: empirical bounds (the best GFLOP/s and the best GFLOP/s per FLOP/byte "
          "observed here, not datasheet peaks).",
      spec, table);
}

}  // namespace

std::vector<Figure> report_figures(const ReportInputs& in) {
  const Dataset& d = in.data;
  std::vector<Figure> out;
  out.push_back(heatmap_figure(d));
  std::vector<ml::AnalysisReport> per_norm;
  for (const auto& name : ml::norm_names())
    per_norm.push_back(ml::analyze(d, ml::parse_norm(name)));
  out.push_back(best_counts_figure(per_norm.front()));
  if (d.rows() >= 2) out.push_back(pca_figure(per_norm));
  if (in.eval) append_eval_figures(*in.eval, out);
  const FamilyReport* family = find_family_report(d.family);
  if (auto roof = roofline_figure(in, family)) out.push_back(std::move(*roof));
  if (family && family->figures)
    for (auto& f : family->figures(in)) out.push_back(std::move(f));
  return out;
}

}  // namespace ktune::report
