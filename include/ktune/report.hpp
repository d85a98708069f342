#pragma once
// The HTML report: the seed papers' figures over one dataset as Vega-Lite specs, plus the
// figures a family adds for itself, assembled into one self-contained offline HTML file
// (docs/report.md). The numbers come from the ML library (analyze, normalize, prune, evaluate);
// this layer only shapes them into plot data.
#include <Eigen/Dense>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ktune/dataset.hpp"
#include "ktune/ml/evaluate.hpp"

namespace ktune::report {

// One figure: a Vega-Lite spec whose main data is the named dataset "table" (the browser test
// checks that it is not empty once rendered).
struct Figure {
  std::string id;  // unique in the report: lower-case letters, digits and '-'
  std::string title, caption;
  nlohmann::json spec;
  std::string renderer = "svg";  // "canvas" for figures with very many marks
};

// spec with `table` attached as its "table" dataset.
Figure make_figure(std::string id, std::string title, std::string caption, nlohmann::json spec,
                   nlohmann::json table);

// A deployed library's run (examples/tuned-gemm tuned_gemm_bench --out): per problem key, the
// library's and the vendor library's perf, measured side by side.
struct DeployedPerf {
  double deployed = 0, vendor = 0;  // 0: not measured / not ok
};
struct DeployedRun {
  std::string path;
  std::map<std::string, DeployedPerf> by_problem;
};
// Throws Error naming the file for a missing column or a malformed row.
DeployedRun read_deployed_csv(const std::string& path);

// One row of an evaluation table (the CSV of `ktune eval --csv`): a pruner's ceiling
// (selector empty) or a selector's % of the oracle, on one split.
struct EvalPoint {
  std::string split, norm, pruner, selector;
  int k = 0;
  double pct_of_oracle = 0, ceiling_pct = 0;
};
struct EvalTable {
  std::string source;  // a path, or how it was computed
  std::vector<EvalPoint> points;
  std::vector<std::pair<std::string, double>> fixed_pct;  // split → best fixed config (if known)
};
EvalTable eval_table(const ml::EvalResult& result, std::string source);
// Throws Error naming the file and line for a missing column or a malformed number.
EvalTable read_eval_csv(const std::string& path);
// The evaluation the report runs when none is given: the random split, every normalization and
// pruner, ceilings for K = 1..15 and no selectors (cheap enough for the demo).
ml::EvalOptions default_eval_options();

struct ReportInputs {
  Dataset data;
  std::string data_source;  // shown in the report
  const DeployedRun* deployed = nullptr;
  const EvalTable* eval = nullptr;
};

// What a family adds to the report. Registered from the family's folder
// (kernels/<family>/report/*.cpp), so the core never names a family.
struct FamilyReport {
  // FLOP per byte of the minimal memory traffic of problem `row`; when set (and perf is
  // GFLOP/s) the report draws the roofline of the best, deployed and vendor kernels.
  std::function<double(const Dataset& data, Eigen::Index row)> intensity;
  // The family's own figures.
  std::function<std::vector<Figure>(const ReportInputs& in)> figures;
};
bool register_family_report(const std::string& family, FamilyReport report);
const FamilyReport* find_family_report(const std::string& family);  // nullptr when none

// The seed papers' figures (those the inputs allow), then the family's.
std::vector<Figure> report_figures(const ReportInputs& in);

// vega, vega-lite and vega-embed browser bundles with their versions.
struct JsAssets {
  std::vector<std::pair<std::string, std::string>> scripts;  // name@version → code
};
// dir: a node_modules folder holding the three packages (src/report/js/node_modules after
// scripts/install_deps.sh). Empty: $KTUNE_REPORT_JS_DIR, then the source tree's folder.
// Throws Error naming the folder and how to install them when a bundle is missing.
JsAssets load_js_assets(const std::string& dir = "");

// The whole self-contained page: assets and data inline, nothing fetched when viewed.
std::string render_html(const ReportInputs& in, const std::vector<Figure>& figures,
                        const JsAssets& assets, const std::string& title);

// Everything above in one call, as `ktune report --html` and `ktune demo` do it.
struct HtmlReportRequest {
  std::string out;       // the .html file written
  std::string title;     // empty: "ktune report: <family> on <device>"
  std::string js_dir;    // see load_js_assets
  std::string deployed;  // a deployed run's CSV, or empty
  std::string eval;      // an evaluation CSV, or empty: ml::evaluate with default_eval_options
  int threads = 0;       // for that evaluation (0 = OpenMP default)
};
struct HtmlReportSummary {
  size_t figures = 0;
  std::string eval_source;
};
// Checks the assets and inputs before any long computation; throws Error naming what is wrong.
HtmlReportSummary write_html_report(const Dataset& data, const std::string& data_source,
                                    const HtmlReportRequest& request);

}  // namespace ktune::report
