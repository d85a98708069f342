// `ktune report --html` checked in a real browser: the page is rendered by headless Chromium
// (Debian's chromium) and its DOM after rendering is read back. Every figure must have rendered
// (data-status="ok" set by the page once vega-embed resolved, SVG marks or a drawn canvas, a
// non-empty "table" dataset) and the page must have caught no script error. The test skips only
// when Chromium cannot start here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/core/cli_test_util.hpp"

namespace ktune {
namespace {

using testing::read_file;
using testing::run_ktune;

const std::string kResults = std::string(KTUNE_SOURCE_DIR) + "/results/";

std::string shell_output(const std::string& cmd, int* status) {
  std::string out;
  FILE* pipe = popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!pipe) return out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int raw = pclose(pipe);
  *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

// The DOM after the page's scripts ran (virtual time lets every promise settle first). Each
// call gets its own profile directory: ctest runs these tests as parallel processes, and two
// Chromiums sharing one profile collide on its lock (the second exits with status 21).
std::string render_dom(const std::filesystem::path& html, int* status) {
  std::string profile = ::testing::TempDir() + "ktune-chromium-XXXXXX";
  if (!mkdtemp(profile.data())) {
    *status = -1;
    return {};
  }
  std::string dom = shell_output(
      "chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
      "--no-first-run --user-data-dir=" +
          profile + " --virtual-time-budget=60000 --dump-dom file://" + html.string(),
      status);
  std::error_code ignored;
  std::filesystem::remove_all(profile, ignored);
  return dom;
}

// Skips the calling test (returns false) when Chromium cannot start at all here.
bool chromium_starts(std::string* why) {
  // Per process: every test of this program probes in its own process, possibly at once.
  const auto page = std::filesystem::path(::testing::TempDir()) /
                    ("ktune-blank-" + std::to_string(::getpid()) + ".html");
  std::ofstream(page) << "<!DOCTYPE html><html><body><p id=\"x\">started</p></body></html>";
  int status = -1;
  const std::string dom = render_dom(page, &status);
  *why = "chromium --headless exited with " + std::to_string(status) +
         " (install Debian's `chromium`: scripts/install_deps.sh)";
  return status == 0 && dom.find("started") != std::string::npos;
}

struct RenderedFigure {
  std::map<std::string, std::string> attrs;
  std::string body;
};

// The <section class="figure"> elements of the dumped DOM, by id.
std::map<std::string, RenderedFigure> figures_of(const std::string& dom) {
  std::map<std::string, RenderedFigure> out;
  const std::regex attr(R"re(([\w-]+)="([^"]*)")re");
  for (size_t at = dom.find("<section "); at != std::string::npos;
       at = dom.find("<section ", at + 1)) {
    const size_t open_end = dom.find('>', at), close = dom.find("</section>", at);
    if (open_end == std::string::npos || close == std::string::npos) break;
    RenderedFigure f;
    const std::string open = dom.substr(at, open_end - at);
    for (std::sregex_iterator it(open.begin(), open.end(), attr), end; it != end; ++it)
      f.attrs[(*it)[1]] = (*it)[2];
    f.body = dom.substr(open_end, close - open_end);
    out[f.attrs["id"]] = f;
  }
  return out;
}

void expect_rendered(const std::string& dom, const std::vector<std::string>& expected) {
  EXPECT_NE(dom.find("data-rendered=\"ok\""), std::string::npos)
      << "the page reported script errors or did not finish:\n"
      << dom.substr(dom.find("ktune-status"), 2000);
  const auto figures = figures_of(dom);
  EXPECT_EQ(figures.size(), expected.size());
  for (const auto& id : expected) {
    SCOPED_TRACE(id);
    const auto it = figures.find("fig-" + id);
    ASSERT_NE(it, figures.end()) << "figure missing from the page";
    const RenderedFigure& f = it->second;
    EXPECT_EQ(f.attrs.at("data-status"), "ok");
    ASSERT_TRUE(f.attrs.count("data-rows"));
    EXPECT_GT(std::stoi(f.attrs.at("data-rows")), 0) << "empty data";
    // Vega's own <svg class="marks"> (the actions menu has small icon SVGs of its own).
    const bool svg = std::regex_search(f.body, std::regex(R"re(<svg[^>]*class="marks")re"));
    const bool canvas = f.body.find("<canvas") != std::string::npos;
    EXPECT_TRUE(svg || canvas) << "no SVG or canvas";
    if (svg) {
      // Vega draws each mark group as <g class="mark-... role-mark"> holding paths or shapes.
      EXPECT_NE(f.body.find("role-mark"), std::string::npos);
      EXPECT_NE(f.body.find("<path"), std::string::npos) << "an SVG without drawn marks";
    }
  }
}

class ReportHtml : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::string why;
    static const bool starts = chromium_starts(&why);  // once per test program
    if (!starts) GTEST_SKIP() << "Chromium cannot start here: " << why;
  }

  static std::filesystem::path page(const std::string& name) {
    return std::filesystem::path(::testing::TempDir()) / ("ktune-report-" + name + ".html");
  }
  // `ktune report <args> --html <html>` on a fresh page, which must render exactly `figures`.
  static void expect_report_renders(const std::filesystem::path& html, const std::string& args,
                                    const std::vector<std::string>& figures) {
    std::filesystem::remove(html);
    const auto r = run_ktune("report " + args + " --html " + html.string());
    ASSERT_EQ(r.status, 0) << r.output;
    int status = -1;
    const std::string dom = render_dom(html, &status);
    ASSERT_EQ(status, 0);
    expect_rendered(dom, figures);
  }
};

// The CPU GEMM dataset (18 shapes × 766 configs + OpenBLAS) with its deployed run and a saved
// evaluation table: the seed papers' figures, the selectors and the roofline.
TEST_F(ReportHtml, GemmWithDeployedRunAndEvaluationRendersEveryFigure) {
  const auto html = page("gemm");
  expect_report_renders(html,
                        "--store " + kResults + "amd-epyc-2c/gemm-dnn-small.csv.gz" +
                            " --deployed " + kResults + "amd-epyc-2c/deployed-cpu.csv --eval " +
                            kResults + "amd-epyc-2c/selection.csv",
                        {"config-heatmap", "best-counts", "pca-variance", "pruners-vs-k",
                         "normalizations", "selectors", "roofline"});
  if (HasFatalFailure()) return;
  const std::string text = read_file(html);
  // Self-contained: the libraries are inlined and nothing is loaded from elsewhere.
  EXPECT_NE(text.find("vega-lite@"), std::string::npos);
  EXPECT_EQ(text.find("<script src"), std::string::npos);
  EXPECT_EQ(text.find("<link"), std::string::npos);
}

// A stencil dataset with no evaluation given: the report evaluates the pruners itself and adds
// the family's work-group heatmaps.
TEST_F(ReportHtml, StencilComputesItsEvaluationAndAddsTheFamilyFigures) {
  expect_report_renders(page("stencil"),
                        "--store " + kResults + "amd-epyc-2c/stencil-small.csv.gz --threads 2",
                        {"config-heatmap", "best-counts", "pca-variance", "pruners-vs-k",
                         "normalizations", "stencil-wg-best", "stencil-wg-perf"});
}

// The H100 conv2d dataset (66 layers × 554 configs + cuDNN) with its saved evaluation: the
// roofline (the family's intensity) and the family's per-layer kinds figure.
TEST_F(ReportHtml, Conv2dAddsTheRooflineAndTheKindsPerLayer) {
  expect_report_renders(page("conv2d"),
                        "--store " + kResults + "h100-80gb-hbm3/conv2d-dnn.csv.gz --eval " +
                            kResults + "h100-80gb-hbm3/conv2d-selection.csv",
                        {"config-heatmap", "best-counts", "pca-variance", "pruners-vs-k",
                         "normalizations", "selectors", "roofline", "conv2d-kinds"});
}

// Bad inputs fail before anything is written, with one line naming the input (no browser needed).
TEST(ReportHtmlInputs, AMissingPlottingLibraryOrABadTableIsAOneLineError) {
  const auto html = std::filesystem::path(::testing::TempDir()) / "ktune-report-bad.html";
  std::filesystem::remove(html);
  const std::string data = " --store " + kResults + "amd-epyc-2c/stencil-small.csv.gz";

  auto r = run_ktune("report" + data + " --js-dir /nonexistent --html " + html.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("plotting library is missing: no '/nonexistent/vega/build/vega.min.js'"),
            std::string::npos)
      << r.output;

  const auto table = std::filesystem::path(::testing::TempDir()) / "ktune-report-bad-eval.csv";
  std::ofstream(table) << "split,norm,pruner,selector,k,pct_of_oracle\nrandom,scale,topn,,4,\n";
  r = run_ktune("report" + data + " --eval " + table.string() + " --html " + html.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("no column 'ceiling_pct'"), std::string::npos) << r.output;

  std::ofstream(table) << "split,norm,pruner,selector,k,pct_of_oracle,ceiling_pct\n"
                          "random,scale,topn,,4,,8x.5\n";
  r = run_ktune("report" + data + " --eval " + table.string() + " --html " + html.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(":2: '8x.5' is not a non-negative number"), std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(html));
}

}  // namespace
}  // namespace ktune
