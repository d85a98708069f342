// ktune analyze: PCA dimensionality, best-config counts and per-problem spread of a dataset.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "apps/ktune/dataset_source.hpp"
#include "apps/ktune/verb.hpp"
#include "apps/ktune/verb_output.hpp"
#include "ktune/dataset.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/ml/analyze.hpp"

namespace ktune::cli {
namespace {

struct AnalyzeArgs {
  DatasetSource source;
  std::string norm = "scale", markdown, csv;
  size_t top = 10;
};

int run_analyze(const AnalyzeArgs& a) {
  const ml::Norm norm = ml::parse_norm(a.norm);
  const Dataset data = a.source.load();
  const ml::AnalysisReport report = ml::analyze(data, norm);
  const std::string md = ml::to_markdown(report, a.top);
  write_output_or_print(a.markdown, md);
  if (!a.csv.empty()) {
    ml::write_csv(report, a.csv);
    std::fprintf(stderr, "ktune: wrote %s\n", a.csv.c_str());
  }
  return 0;
}

void analyze_options(CLI::App& sub, AnalyzeArgs& a) {
  a.source.add_options(sub);
  sub.add_option("--norm", a.norm, "Normalization: scale, cutoff, rawcutoff, sigmoid")
      ->capture_default_str();
  sub.add_option("--markdown", a.markdown, "Write the Markdown report here (default: stdout)");
  sub.add_option("--csv", a.csv, "Also write the report as long-format CSV");
  sub.add_option("--top", a.top, "Rows in the top-N tables")->capture_default_str();
}

const bool verb_analyze_registered = add_verb(
    "analyze", "PCA dimensionality, best-config counts and per-problem spread of a dataset",
    analyze_options, run_analyze);

}  // namespace
}  // namespace ktune::cli
