// CSV and Markdown of `ktune eval --protocol stencil` (see stencil_eval_cli.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include "apps/ktune/stencil_eval_cli.hpp"

namespace ktune::cli {
namespace {

// The seed paper's headline figures (Cummins et al.), quoted for comparison.
constexpr double kSeedPctOfOracle = 94.0;
constexpr double kSeedMedianSpeedup = 3.79;
constexpr double kSeedMeanSpeedupRegressor = 5.57;

std::string num(double v, const char* spec = "{:.6g}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : "";
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const double pos = q * double(v.size() - 1);
  const auto lo = size_t(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - double(lo)) * (v[hi] - v[lo]);
}

const ml::ProtocolRow* best_of(const ml::ProtocolResult& r, const std::string& split,
                               const std::string& method) {
  const ml::ProtocolRow* best = nullptr;
  for (const auto& m : r.rows) {
    if (m.split == split && m.method == method && m.metrics.problems > 0 &&
        (!best || m.metrics.pct_of_oracle > best->metrics.pct_of_oracle))
      best = &m;
  }
  return best;
}

std::string label(const ml::ProtocolRow& m) {
  return fmt::format("{} {} ({})", m.method, m.model, m.fallback);
}

}  // namespace

void write_stencil_csv(const ml::ProtocolResult& r, std::ostream& out) {
  out << "method,model,fallback,split,pct_of_oracle,median_speedup_vs_baseline,"
         "mean_speedup_vs_baseline,median_speedup_vs_expert,accuracy,validity,refused_rate,"
         "predict_ns\n";
  for (const auto& row : r.rows) {
    const ml::Metrics& m = row.metrics;
    const bool ok = m.problems > 0;
    auto v = [&](double x) { return ok ? num(x) : std::string(); };
    out << row.method << ',' << row.model << ',' << row.fallback << ',' << row.split << ','
        << v(m.pct_of_oracle) << ',' << v(m.median_speedup_vs_reference) << ','
        << v(m.mean_speedup_vs_reference) << ',' << v(m.median_speedup_vs_expert) << ','
        << v(m.accuracy) << ',' << v(m.validity) << ',' << v(m.refused_rate) << ','
        << v(m.predict_ns) << '\n';
  }
}

void write_stencil_markdown(const ml::ProtocolResult& r, std::ostream& out) {
  out << fmt::format("# Work-group size selection: {} on {}\n\n", r.family,
                     fmt::join(r.devices, ", "));
  out << fmt::format(
      "{} problems ((device, problem) pairs) × {} configs; expert config: {}. Protocol of the seed "
      "paper (Cummins et al., \"Autotuning OpenCL Workgroup Size for Stencil Patterns\"); see "
      "include/ktune/ml/protocol.hpp for every definition. Evaluated in {:.1f} s.\n\n",
      r.problems, r.configs, r.expert_config.empty() ? "(absent)" : r.expert_config, r.seconds);
  for (const auto& note : r.notes) out << "- Note: " << note << "\n";
  if (!r.notes.empty()) out << "\n";

  // Headline: the first split (cv10 by default), as the seed reports its cross-validation.
  if (!r.split_folds.empty()) {
    const std::string& split = r.split_folds.front().first;
    const ml::ProtocolRow* cls = best_of(r, split, "classifier");
    const ml::ProtocolRow* reg = best_of(r, split, "speedup-regressor");
    out << "## Seed headline figures beside ours (split " << split << ")\n\n";
    out << "| figure | seed | ours | ours from |\n|---|---|---|---|\n";
    if (cls) {
      out << fmt::format("| % of oracle, best classifier | {:.0f} % | {:.1f} % | {} |\n",
                         kSeedPctOfOracle, cls->metrics.pct_of_oracle, label(*cls));
      out << fmt::format(
          "| median speedup over the best fixed work-group size | {:.2f}× | {:.2f}× | {} |\n",
          kSeedMedianSpeedup, cls->metrics.median_speedup_vs_reference, label(*cls));
    }
    if (reg) {
      out << fmt::format(
          "| mean speedup over the best fixed size, speedup regressor | {:.2f}× | {:.2f}× | {} "
          "|\n",
          kSeedMeanSpeedupRegressor, reg->metrics.mean_speedup_vs_reference, label(*reg));
    }
    out << "\n";
  }

  for (const auto& [split, folds] : r.split_folds) {
    int substituted = 0;
    for (const auto& [s, n] : r.expert_substituted)
      if (s == split) substituted = n;
    out << fmt::format("## Split {} ({} fold{})\n\n", split, folds, folds == 1 ? "" : "s");
    if (substituted > 0) {
      out << fmt::format(
          "The expert config was not valid on {} held-out problem(s); the baseline order stood "
          "in there.\n\n",
          substituted);
    }
    out << "| method | model | fallback | problems | % of oracle | min / p25 / p50 / p75 of "
           "perf/oracle (%) | median × vs baseline | mean × vs baseline | median × vs expert | "
           "accuracy | validity | refused | predict ns |\n";
    out << "|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const auto& row : r.rows) {
      if (row.split != split) continue;
      const ml::Metrics& m = row.metrics;
      out << fmt::format(
          "| {} | {} | {} | {} | {} | {} / {} / {} / {} | {} | {} | {} | {} | {} | {} | {} |\n",
          row.method, row.model, row.fallback, m.problems, num(m.pct_of_oracle, "{:.1f}"),
          num(100 * quantile(m.ratios, 0), "{:.0f}"), num(100 * quantile(m.ratios, 0.25), "{:.0f}"),
          num(100 * quantile(m.ratios, 0.5), "{:.0f}"),
          num(100 * quantile(m.ratios, 0.75), "{:.0f}"),
          num(m.median_speedup_vs_reference, "{:.2f}"), num(m.mean_speedup_vs_reference, "{:.2f}"),
          num(m.median_speedup_vs_expert, "{:.2f}"), num(m.accuracy, "{:.3f}"),
          num(m.validity, "{:.3f}"), num(m.refused_rate, "{:.3f}"), num(m.predict_ns, "{:.0f}"));
    }
    out << "\n";
  }
}

}  // namespace ktune::cli
