// ktune report: with --html, the HTML report of any family's dataset (src/report). Otherwise
// per-shape best config (oracle over the swept space) against the vendor library, as the
// gemm-vs-vendor CSV, plus geometric-mean and time-weighted ratios overall and per network and
// the worst shapes (vendor_table.hpp). With --deployed (the CSV of examples/tuned-gemm's
// tuned_gemm_bench) it adds the deployed tuned library, whose vendor figures then come from that
// same run, side by side with it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <map>
#include <memory>
#include <set>

#include "apps/ktune/numeric_options.hpp"
#include "apps/ktune/vendor_table.hpp"
#include "apps/ktune/verb.hpp"
#include "ktune/csv.hpp"
#include "ktune/dataset.hpp"
#include "ktune/error.hpp"
#include "ktune/excerpt.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/interchange.hpp"
#include "ktune/report.hpp"
#include "ktune/strict_number.hpp"
#include "ktune/workload.hpp"

namespace ktune::cli {
namespace {

struct ReportOptions {
  // family empty: gemm for the vendor table, the data's only family for --html.
  std::string store, device, family, workload = "dnn", csv, markdown, deployed;
  std::string html, eval, js_dir, title;
  int threads = 0;
  bool workload_given = false;
};

constexpr size_t kWorstShapes = 5;  // listed under the vendor table

struct ShapePerf {
  double oracle = 0, vendor = 0, deployed = 0;
};

// The best ok GFLOP/s per problem of the device: swept configs (oracle) and vendor rows.
std::map<std::string, ShapePerf> sweep_perf(const std::vector<Measurement>& rows,
                                            const std::string& device, const std::string& family) {
  std::map<std::string, ShapePerf> perf;
  for (const auto& m : rows) {
    if (m.device != device || m.family != family || m.outcome.status != Status::ok) continue;
    ShapePerf& p = perf[m.problem];
    if (m.vendor)
      p.vendor = std::max(p.vendor, m.perf);
    else
      p.oracle = std::max(p.oracle, m.perf);
  }
  return perf;
}

// Joins a deployed run (tuned_gemm_bench's CSV): the deployed library and the vendor library
// measured side by side in that run.
void add_deployed(const std::string& path, std::map<std::string, ShapePerf>& perf) {
  for (const auto& [problem, p] : report::read_deployed_csv(path).by_problem) {
    perf[problem].deployed = p.deployed;
    perf[problem].vendor = p.vendor;
  }
}

// The HTML report over the dataset of any family (docs/report.md).
void run_html_report(const ReportOptions& o) {
  const Dataset data = load_dataset(o.store, o.device, o.family);
  const report::HtmlReportRequest r{.out = o.html,
                                    .title = o.title,
                                    .js_dir = o.js_dir,
                                    .deployed = o.deployed,
                                    .eval = o.eval,
                                    .threads = o.threads};
  if (o.eval.empty())
    fmt::print(stderr,
               "ktune: evaluating the pruners for the report (pass --eval to plot a saved "
               "`ktune eval --csv` table instead)\n");
  const auto summary = report::write_html_report(data, o.store, r);
  fmt::print(stderr, "ktune: wrote {} ({} figures; evaluation: {})\n", o.html, summary.figures,
             summary.eval_source);
}

int run_report(const ReportOptions& o) {
  // --html alone reports every shape of the data: a --workload would be ignored, and a typo in
  // it (a workload that does not exist) would pass unnoticed.
  if (!o.html.empty() && o.csv.empty() && o.markdown.empty() && o.workload_given)
    throw Error(
        fmt::format("--workload '{}' names the shapes of the vendor table (--csv, "
                    "--markdown); --html alone reports every shape of the data",
                    excerpt(o.workload)));
  if (!o.html.empty()) {
    run_html_report(o);
    // The per-shape vendor table too, only when asked for.
    if (o.csv.empty() && o.markdown.empty()) return 0;
  }
  const Family& family = find_family(o.family.empty() ? "gemm" : o.family);
  const Workload workload = load_workload(family, o.workload);
  // A store, or measurements exported from one (.csv, .csv.gz, T4 .json).
  const std::vector<Measurement> rows = load_measurements(o.store, o.device, family.name());
  std::string device = o.device;
  if (device.empty()) {
    // From the measurements: an imported store has none in its devices table.
    std::set<std::string> devices;
    for (const auto& m : rows)
      if (m.family == family.name()) devices.insert(m.device);
    if (devices.empty())
      throw Error(fmt::format("'{}' has no {} measurements", o.store, family.name()));
    if (devices.size() != 1)
      throw Error(
          fmt::format("'{}' holds {} measurements of {} devices ({}): name one with "
                      "--device",
                      o.store, family.name(), devices.size(), fmt::join(devices, ", ")));
    device = *devices.begin();
  }
  std::map<std::string, ShapePerf> perf = sweep_perf(rows, device, family.name());
  if (perf.empty())
    throw Error(fmt::format("'{}' has no ok {} measurements for device '{}'", o.store,
                            family.name(), device));
  if (!o.deployed.empty()) add_deployed(o.deployed, perf);
  const bool with_deployed = !o.deployed.empty();

  // The problems' own feature names: optional features (a GEMM's precision) are columns too.
  std::string csv = fmt::format(
      "network,{},oracle_gflops,deployed_gflops,vendor_gflops\n",
      fmt::join(workload.problems.empty() ? family.feature_names() : workload.problems[0].names,
                ","));
  // Per shape: the oracle and the deployed library against the vendor, and the deployed library
  // against the oracle (in the "vendor" place), over all distinct shapes and per network.
  struct Rows {
    std::vector<VendorShape> oracle, deployed, deployed_oracle;
  };
  Rows all;
  std::map<std::string, Rows> per_network;
  size_t missing = 0;
  for (const auto& p : workload.problems) {
    auto it = perf.find(p.key());
    if (it == perf.end()) {
      ++missing;
      continue;
    }
    std::string features, label;
    for (size_t i = 0; i < p.names.size(); ++i) {
      const std::string text = family.feature_text(p.names[i], p.values[i]);
      features += (i ? "," : "") + text;
      label += (i ? " " : "") + p.names[i] + "=" + text;
    }
    const ShapePerf& sp = it->second;
    const double flops = family.flops(p);
    auto add = [&](Rows& rows) {
      rows.oracle.push_back({label, flops, sp.oracle, sp.vendor});
      rows.deployed.push_back({label, flops, sp.deployed, sp.vendor});
      rows.deployed_oracle.push_back({label, flops, sp.deployed, sp.oracle});
    };
    add(all);
    std::vector<std::string> nets =
        p.tags.empty() ? std::vector<std::string>{workload.name} : p.tags;
    for (const auto& net : nets) {
      add(per_network[net]);
      csv += fmt::format("{},{},{:.3f},{},{}\n", net, features, sp.oracle,
                         sp.deployed > 0 ? fmt::format("{:.3f}", sp.deployed) : "",
                         sp.vendor > 0 ? fmt::format("{:.3f}", sp.vendor) : "");
    }
  }
  std::string md;
  std::function<void(const std::string&, const Rows&)> row;
  if (!with_deployed) {
    md = fmt::format(
        "Device `{}`: best swept config (oracle) vs vendor library: the geometric mean of the "
        "per-shape oracle/vendor GFLOP/s ratios, and the time-weighted ratio (the vendor's total "
        "time over the oracle's on the same shapes: large shapes weigh more).\n\n"
        "| shapes | count | oracle / vendor | time-weighted (Σ vendor / Σ oracle) |\n"
        "|---|---:|---:|---:|\n",
        device);
    row = [&](const std::string& name, const Rows& rows) {
      const VendorSummary s = summarize(rows.oracle);
      md +=
          fmt::format("| {} | {} | {:.3f} | {:.3f} |\n", name, s.count, s.geomean, s.time_weighted);
    };
  } else {
    md = fmt::format(
        "Device `{}`: the deployed tuned library and the vendor library measured side by side "
        "in one run ({}), against the best swept config per shape (oracle). Geometric means of "
        "the per-shape GFLOP/s ratios, and the time-weighted deployed/vendor ratio (the "
        "vendor's total time over the deployed library's: large shapes weigh more).\n\n"
        "| shapes | count | deployed / vendor | time-weighted (Σ vendor / Σ deployed) | "
        "deployed % of oracle | oracle / vendor |\n"
        "|---|---:|---:|---:|---:|---:|\n",
        device, o.deployed);
    row = [&](const std::string& name, const Rows& rows) {
      const VendorSummary dv = summarize(rows.deployed);
      md += fmt::format("| {} | {} | {:.3f} | {:.3f} | {:.1f} % | {:.3f} |\n", name, dv.count,
                        dv.geomean, dv.time_weighted, 100 * summarize(rows.deployed_oracle).geomean,
                        summarize(rows.oracle).geomean);
    };
  }
  row("all distinct", all);
  for (const auto& [net, rows] : per_network) row(net, rows);
  const std::string worst =
      worst_shapes_markdown(with_deployed ? all.deployed : all.oracle, kWorstShapes,
                            with_deployed ? "deployed" : "oracle");
  if (!worst.empty()) md += "\n" + worst;
  if (missing)
    md += fmt::format("\n{} workload shapes have no ok measurement in the store.\n", missing);
  if (!o.csv.empty()) write_text_file(o.csv, csv);
  if (!o.markdown.empty()) write_text_file(o.markdown, md);
  fmt::print("{}", md);
  return 0;
}

Action setup_report(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  app.add_option("--store", o->store,
                 "SQLite tuning store, or measurements exported from one (.csv, .csv.gz)")
      ->required();
  app.add_option("--device", o->device, "Device slug (default: the store's only device)");
  app.add_option("--family", o->family, "Kernel family")->capture_default_str();
  auto* workload = app.add_option("--workload", o->workload, "Workload whose shapes to list")
                       ->capture_default_str();
  app.add_option("--csv", o->csv, "Write the oracle-vs-vendor CSV here (gemm-vs-vendor.csv)");
  app.add_option("--markdown", o->markdown, "Write the ratio table here");
  app.add_option("--deployed", o->deployed,
                 "Deployed-library measurements (examples/tuned-gemm tuned_gemm_bench --out)");
  app.add_option("--html", o->html,
                 "Write the HTML report (every figure, self-contained, offline) here");
  app.add_option("--eval", o->eval,
                 "HTML: plot this `ktune eval --csv` table instead of evaluating the pruners");
  app.add_option("--title", o->title, "HTML: page title");
  app.add_option(
      "--js-dir", o->js_dir,
      "HTML: node_modules folder with vega, vega-lite, vega-embed (default: the build's)");
  app.add_option("--threads", o->threads, "HTML: worker threads of the evaluation (0 = all cores)")
      ->check(CLI::Range(0, cli::kMaxThreads));
  return [o, workload] {
    o->workload_given = workload->count() > 0;
    return run_report(*o);
  };
}

const bool verb_report_registered =
    add_verb("report",
             "HTML report with the seed papers' figures (--html); GEMM oracle vs vendor per shape "
             "(gemm-vs-vendor.csv) and geomean ratios",
             setup_report);

}  // namespace
}  // namespace ktune::cli
