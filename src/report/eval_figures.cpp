// The evaluation figures of the seed paper: each pruner's ceiling (% of the oracle a perfect
// selector would reach) against K, the normalizations compared at one K, and the selectors.
// They plot an evaluation table as computed by ml::evaluate (or read from its CSV).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "src/report/report_internal.hpp"

namespace ktune::report {
namespace {

using nlohmann::json;

std::string chosen_split(const EvalTable& t) {
  for (const auto& p : t.points)
    if (p.split == "random") return p.split;
  return t.points.empty() ? "" : t.points.front().split;
}

json ceiling_encoding(const char* x_field, const char* x_title) {
  return {{"x", {{"field", x_field}, {"type", "quantitative"}, {"title", x_title}}},
          {"y",
           {{"field", "pct"},
            {"type", "quantitative"},
            {"title", "% of oracle"},
            {"scale", {{"zero", false}}}}},
          {"color", {{"field", "pruner"}, {"type", "nominal"}}},
          {"column", {{"field", "norm"}, {"type", "nominal"}, {"title", "normalization"}}},
          {"tooltip",
           {{{"field", "pruner"}}, {{"field", "norm"}}, {{"field", "k"}}, {{"field", "pct"}}}}};
}

}  // namespace

void append_eval_figures(const EvalTable& t, std::vector<Figure>& out) {
  const std::string split = chosen_split(t);
  json ceilings = json::array(), selectors = json::array();
  std::set<int> ks;
  for (const auto& p : t.points) {
    if (p.split != split) continue;
    if (p.selector.empty()) {
      ceilings.push_back(
          {{"norm", p.norm}, {"pruner", p.pruner}, {"k", p.k}, {"pct", p.ceiling_pct}});
      ks.insert(p.k);
    } else {
      selectors.push_back({{"norm", p.norm},
                           {"pruner", p.pruner},
                           {"selector", p.selector},
                           {"k", p.k},
                           {"pct", p.pct_of_oracle},
                           {"ceiling", p.ceiling_pct}});
    }
  }
  std::string fixed;
  for (const auto& [name, pct] : t.fixed_pct)
    if (name == split) fixed = fmt::format(" The best single fixed config reaches {:.1f} %.", pct);
  const std::string where =
      fmt::format("Held-out problems of the split '{}' ({}).", split, t.source);
  if (!ceilings.empty()) {
    json spec = {{"mark", {{"type", "line"}, {"point", true}}},
                 {"width", 200},
                 {"height", 220},
                 {"encoding", ceiling_encoding("k", "K (configs shipped)")}};
    out.push_back(make_figure(
        "pruners-vs-k", "% of oracle against K per pruner",
        "Ceiling of each pruner's K configs: the % of the oracle that a perfect selector among "
        "them would reach. " +
            where + fixed,
        spec, ceilings));

    // The normalizations compared at one K: 8 when evaluated (the deployed K), else the largest.
    const int k = ks.count(8) ? 8 : *ks.rbegin();
    json at_k = json::array();
    for (const auto& c : ceilings)
      if (c["k"] == k) at_k.push_back(c);
    json bars = {
        {"mark", {{"type", "bar"}, {"tooltip", true}}},
        {"width", 360},
        {"height", 240},
        {"encoding",
         {{"x", {{"field", "pruner"}, {"type", "nominal"}}},
          {"xOffset", {{"field", "norm"}, {"type", "nominal"}}},
          {"y",
           {{"field", "pct"},
            {"type", "quantitative"},
            {"title", fmt::format("% of oracle, K = {}", k)}}},
          {"color", {{"field", "norm"}, {"type", "nominal"}, {"title", "normalization"}}}}}};
    out.push_back(make_figure(
        "normalizations", "The normalizations compared",
        fmt::format("Ceiling of each pruner at K = {} when it clusters the performance matrix "
                    "after each normalization. ",
                    k) +
            where,
        bars, at_k));
  }
  if (!selectors.empty()) {
    json spec = {{"mark", {{"type", "point"}, {"filled", true}, {"tooltip", true}}},
                 {"width", 520},
                 {"height", 260},
                 {"encoding",
                  {{"x", {{"field", "selector"}, {"type", "nominal"}}},
                   {"xOffset", {{"field", "k"}, {"type", "nominal"}}},
                   {"y",
                    {{"field", "pct"},
                     {"type", "quantitative"},
                     {"title", "% of oracle"},
                     {"scale", {{"zero", false}}}}},
                   {"color", {{"field", "k"}, {"type", "ordinal"}, {"title", "K"}}},
                   {"tooltip",
                    {{{"field", "selector"}},
                     {{"field", "pruner"}},
                     {{"field", "norm"}},
                     {{"field", "k"}},
                     {{"field", "pct"}},
                     {{"field", "ceiling"}}}}}}};
    out.push_back(make_figure(
        "selectors", "Selectors: % of oracle on held-out problems",
        "One point per pruner × normalization that shipped the K configs the selector chooses "
        "among. " +
            where + fixed,
        spec, selectors));
  }
}

}  // namespace ktune::report
