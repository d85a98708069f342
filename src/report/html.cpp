// The report page: Vega, Vega-Lite and vega-embed inlined from their npm bundles, the figures'
// specs (with their data) as one JSON block, and a small script that renders each figure and
// records the outcome on the page (data-status / data-rows per figure, data-rendered on <body>),
// which the browser test reads back.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/report.hpp"

#ifndef KTUNE_REPORT_JS_DIR
#define KTUNE_REPORT_JS_DIR ""
#endif

namespace ktune::report {
namespace {

std::string escape_html(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// JSON placed inside <script>: "</" would end the element early; "<\/" means the same in JSON.
std::string script_safe_json(const nlohmann::json& j) {
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  for (size_t at = s.find("</"); at != std::string::npos; at = s.find("</", at + 3))
    s.replace(at, 2, "<\\/");
  return s;
}

constexpr const char* kStyle = R"css(
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1000px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 2em; }
table.summary td { padding: 2px 12px 2px 0; vertical-align: top; }
p.caption { color: #444; max-width: 900px; }
section.figure { border-top: 1px solid #ddd; }
#ktune-status { color: #666; font-size: 0.9em; }
)css";

// Runs after the libraries: renders every figure and marks the page for the browser test.
constexpr const char* kRenderScript = R"js(
(function () {
  const figures = JSON.parse(document.getElementById('ktune-figures').textContent);
  const actions = {export: true, source: false, compiled: false, editor: false};
  Promise.all(figures.map(function (f) {
    const box = document.getElementById('fig-' + f.id);
    return vegaEmbed('#chart-' + f.id, f.spec, {mode: 'vega-lite', renderer: f.renderer, actions: actions})
      .then(function (r) {
        box.dataset.rows = String(r.view.data('table').length);
        box.dataset.status = 'ok';
      })
      .catch(function (e) {
        box.dataset.status = 'error';
        window.ktuneErrors.push(f.id + ': ' + e);
      });
  })).then(function () {
    const ok = window.ktuneErrors.length === 0;
    document.getElementById('ktune-status').textContent = ok
      ? 'All ' + figures.length + ' figures rendered.'
      : 'Errors: ' + window.ktuneErrors.join('; ');
    document.body.dataset.rendered = ok ? 'ok' : 'error';
  });
})();
)js";

}  // namespace

JsAssets load_js_assets(const std::string& dir_arg) {
  std::string dir = dir_arg;
  if (dir.empty())
    if (const char* env = std::getenv("KTUNE_REPORT_JS_DIR")) dir = env;
  if (dir.empty()) dir = KTUNE_REPORT_JS_DIR;
  const std::pair<const char*, const char*> bundles[] = {{"vega", "build/vega.min.js"},
                                                         {"vega-lite", "build/vega-lite.min.js"},
                                                         {"vega-embed", "build/vega-embed.min.js"}};
  JsAssets assets;
  for (const auto& [package, bundle] : bundles) {
    const std::filesystem::path root = std::filesystem::path(dir) / package;
    if (!std::filesystem::exists(root / bundle) || !std::filesystem::exists(root / "package.json"))
      throw Error(fmt::format(
          "the report's plotting library is missing: no '{}' (run scripts/install_deps.sh, which "
          "runs `npm ci` in src/report/js, or point --js-dir / KTUNE_REPORT_JS_DIR at a "
          "node_modules folder holding vega, vega-lite and vega-embed)",
          (root / bundle).string()));
    const auto meta =
        nlohmann::json::parse(read_text_file((root / "package.json").string()), nullptr, false);
    const std::string version =
        meta.is_object() && meta.contains("version") ? meta["version"].get<std::string>() : "?";
    std::string code = read_text_file((root / bundle).string());
    if (code.find("</script") != std::string::npos)
      throw Error(
          fmt::format("'{}' contains '</script' and cannot be inlined", (root / bundle).string()));
    assets.scripts.emplace_back(fmt::format("{}@{}", package, version), std::move(code));
  }
  return assets;
}

std::string render_html(const ReportInputs& in, const std::vector<Figure>& figures,
                        const JsAssets& assets, const std::string& title) {
  const Dataset& d = in.data;
  std::string libs;
  for (const auto& [name, code] : assets.scripts) libs += (libs.empty() ? "" : ", ") + name;

  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n"
      "<style>{}</style>\n"
      "<script>window.ktuneErrors = [];\n"
      "window.addEventListener('error', function (e) {{ "
      "window.ktuneErrors.push(String(e.message)); "
      "}});\nwindow.addEventListener('unhandledrejection', function (e) {{ "
      "window.ktuneErrors.push(String(e.reason)); }});</script>\n",
      escape_html(title), kStyle);
  for (const auto& [name, code] : assets.scripts)
    html += fmt::format("<script>/* {} (inlined) */\n{}\n</script>\n", name, code);
  html += "</head>\n<body>\n";
  html += fmt::format("<h1>{}</h1>\n<table class=\"summary\">\n", escape_html(title));
  auto row = [&](const std::string& k, const std::string& v) {
    html += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", escape_html(k), escape_html(v));
  };
  row("data", in.data_source);
  row("family, device", d.family + ", " + d.device);
  row("problems × configs",
      fmt::format("{} × {} ({:.1f} % valid)", d.rows(), d.cols(),
                  d.valid.size() ? 100.0 * double(d.valid.count()) / double(d.valid.size()) : 0.0));
  std::string vendors;
  for (const auto& v : d.vendor_names) vendors += (vendors.empty() ? "" : ", ") + v;
  row("vendor libraries", vendors.empty() ? "none measured" : vendors);
  row("evaluation", in.eval ? in.eval->source : "none");
  row("deployed run", in.deployed ? in.deployed->path : "none");
  row("plotting", libs + ", inlined: the page fetches nothing");
  html += "</table>\n<ul>\n";
  for (const auto& f : figures)
    html += fmt::format("<li><a href=\"#fig-{}\">{}</a></li>\n", f.id, escape_html(f.title));
  html += "</ul>\n<p id=\"ktune-status\">Rendering...</p>\n";

  nlohmann::json specs = nlohmann::json::array();
  for (const auto& f : figures) {
    html += fmt::format(
        "<section class=\"figure\" id=\"fig-{}\" data-status=\"pending\">\n<h2>{}</h2>\n"
        "<p class=\"caption\">{}</p>\n<div class=\"chart\" id=\"chart-{}\"></div>\n</section>\n",
        f.id, escape_html(f.title), escape_html(f.caption), f.id);
    specs.push_back({{"id", f.id}, {"renderer", f.renderer}, {"spec", f.spec}});
  }
  html += "<script type=\"application/json\" id=\"ktune-figures\">" + script_safe_json(specs) +
          "</script>\n<script>" + kRenderScript + "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace ktune::report
