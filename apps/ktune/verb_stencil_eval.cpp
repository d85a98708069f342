// ktune eval --protocol stencil: loads every dataset, merges the devices, runs the protocol and
// writes the CSV (exact columns of the issue) and the Markdown report.
#include <fmt/format.h>

#include <cstdio>
#include <sstream>

#include "apps/ktune/progress.hpp"
#include "apps/ktune/stencil_eval_cli.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/ml/stencil_eval.hpp"

namespace ktune::cli {

int run_stencil_eval(const StencilEvalArgs& a) {
  if (a.data.empty()) throw Error("--data: give at least one dataset");
  std::vector<ml::DeviceData> parts;
  for (const auto& path : a.data) {
    for (auto& part : ml::load_device_data(path, a.device, a.family)) {
      std::fprintf(stderr, "ktune: %s: device %s, %ld problems x %ld configs\n", path.c_str(),
                   part.data.device.c_str(), long(part.data.rows()), long(part.data.cols()));
      parts.push_back(std::move(part));
    }
  }
  const ml::MergedData merged = ml::merge_devices(parts);
  ml::StencilEvalOptions o;
  if (!a.splits.empty()) o.splits = a.splits;
  if (!a.classifiers.empty()) o.classifiers = a.classifiers;
  if (!a.regressors.empty()) o.regressors = a.regressors;
  if (a.regressors.size() == 1 && a.regressors.front() == "none") o.regressors.clear();
  o.folds = a.folds;
  o.seed = a.seed;
  o.threads = a.threads;
  o.expert = a.expert;
  Progress progress("eval");  // a line every 10 s when stderr is not a terminal
  o.progress = [&](size_t done, size_t total) { progress.update(done, total, "tasks"); };
  const ml::StencilEvalResult r = ml::evaluate_stencil(merged, o);
  progress.finish();
  std::ostringstream md, csv;
  ml::write_stencil_markdown(r, md);
  ml::write_stencil_csv(r, csv);
  if (!a.markdown.empty()) {
    write_text_file(a.markdown, md.str());
    std::fprintf(stderr, "ktune: wrote %s\n", a.markdown.c_str());
  } else {
    std::fputs(md.str().c_str(), stdout);
  }
  if (!a.csv.empty()) {
    write_text_file(a.csv, csv.str());
    std::fprintf(stderr, "ktune: wrote %s\n", a.csv.c_str());
  }
  return 0;
}

}  // namespace ktune::cli
