// ktune eval --protocol stencil: loads every dataset, merges the devices, builds the paper's
// splits from the problem features, runs the every-config protocol and writes the CSV (exact
// columns of the issue) and the Markdown report.
#include <fmt/format.h>

#include <cstdio>
#include <sstream>

#include "apps/ktune/progress.hpp"
#include "apps/ktune/stencil_eval_cli.hpp"
#include "apps/ktune/verb_output.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"

namespace ktune::cli {

std::vector<ml::SplitFolds> stencil_splits(const ml::MergedData& d,
                                           const std::vector<std::string>& names, int folds,
                                           uint64_t seed, std::vector<std::string>& notes) {
  const Dataset& data = d.data;
  auto labels = [](const std::vector<std::vector<double>>& keys) {
    std::vector<std::string> out;
    for (const auto& k : keys) out.push_back(fmt::format("{}", fmt::join(k, "x")));
    return out;
  };
  std::vector<ml::SplitFolds> out;
  for (const auto& name : names) {
    if (name.rfind("cv", 0) == 0) {
      out.push_back(ml::kfold_splits(data, folds, seed));
    } else if (name == "synthetic-real") {
      const auto program = ml::feature_values(data, {"program"}, "split synthetic-real");
      out.push_back(ml::train_on_value("synthetic-real", program, {0.0}));
    } else if (name == "device") {
      if (d.devices.size() < 2) {
        notes.push_back("leave-one-device-out skipped: the data holds one device");
        continue;
      }
      out.push_back(ml::leave_one_device_out(d));
    } else if (name == "program") {
      const auto program = ml::feature_values(data, {"program"}, "split program");
      const std::vector<double> synthetic{0.0};
      out.push_back(ml::leave_one_value_out("program", program, labels(program), &synthetic));
    } else if (name == "size") {
      const auto size = ml::feature_values(data, {"rows", "cols"}, "split size");
      out.push_back(ml::leave_one_value_out("size", size, labels(size)));
    } else {
      throw Error("unknown split '" + name +
                  "' (expected cv10, synthetic-real, device, program, size)");
    }
  }
  return out;
}

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
  ml::ProtocolOptions o;
  if (!a.classifiers.empty()) o.classifiers = a.classifiers;
  if (!a.regressors.empty()) o.regressors = a.regressors;
  if (a.regressors.size() == 1 && a.regressors.front() == "none") o.regressors.clear();
  o.folds = a.folds;
  o.seed = a.seed;
  o.threads = a.threads;
  o.expert = a.expert;
  const std::vector<std::string> names =
      a.splits.empty()
          ? std::vector<std::string>{"cv10", "synthetic-real", "device", "program", "size"}
          : a.splits;
  std::vector<std::string> notes;
  const auto splits = stencil_splits(merged, names, a.folds, a.seed, notes);
  Progress progress("eval");  // a line every 10 s when stderr is not a terminal
  o.progress = [&](size_t done, size_t total) { progress.update(done, total, "tasks"); };
  ml::ProtocolResult r = ml::evaluate_protocol(merged, splits, o);
  progress.finish();
  r.notes.insert(r.notes.begin(), notes.begin(), notes.end());
  std::ostringstream md, csv;
  write_stencil_markdown(r, md);
  write_stencil_csv(r, csv);
  write_output_or_print(a.markdown, md.str());
  if (!a.csv.empty()) write_output(a.csv, csv.str());
  return 0;
}

}  // namespace ktune::cli
