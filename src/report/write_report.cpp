// write_html_report: the assets and optional inputs first (so a bad path fails at once), then
// the evaluation when none is given, the figures and the page.
#include <fmt/format.h>

#include <optional>

#include "ktune/gzip_io.hpp"
#include "ktune/report.hpp"

namespace ktune::report {

HtmlReportSummary write_html_report(const Dataset& data, const std::string& data_source,
                                    const HtmlReportRequest& r) {
  const JsAssets assets = load_js_assets(r.js_dir);
  std::optional<DeployedRun> deployed;
  if (!r.deployed.empty()) deployed = read_deployed_csv(r.deployed);
  EvalTable eval;
  if (!r.eval.empty()) {
    eval = read_eval_csv(r.eval);
  } else {
    ml::EvalOptions o = default_eval_options();
    o.threads = r.threads;
    eval = eval_table(ml::evaluate(data, o),
                      fmt::format("computed for this report: seeded {:.0f}/{:.0f} random split, "
                                  "every normalization and pruner, K = 1..15",
                                  100 * (1 - o.test_fraction), 100 * o.test_fraction));
  }
  ReportInputs in{data, data_source, deployed ? &*deployed : nullptr, &eval};
  const std::vector<Figure> figures = report_figures(in);
  const std::string title =
      r.title.empty() ? fmt::format("ktune report: {} on {}", data.family, data.device) : r.title;
  write_text_file(r.out, render_html(in, figures, assets, title));
  return {figures.size(), eval.source};
}

}  // namespace ktune::report
