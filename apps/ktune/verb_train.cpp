// ktune train: fit a selector over the shipped configs (as `ktune prune -o` writes them) and
// save it as JSON.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <sstream>

#include "apps/ktune/dataset_source.hpp"
#include "apps/ktune/unsure_args.hpp"
#include "apps/ktune/verb.hpp"
#include "ktune/dataset.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/ml/evaluate.hpp"
#include "ktune/ml/selector.hpp"

namespace ktune::cli {
namespace {

struct TrainArgs {
  DatasetSource source;
  std::string selector, configs, norm = "scale", fallback = "baseline", output;
  uint64_t seed = 0;
  ml::UnsureRule unsure;
};

// One config string per line; blank lines and lines starting with '#' are skipped.
std::vector<Eigen::Index> read_shipped(const std::string& path, const Dataset& data) {
  std::istringstream in(read_text_file(path));
  std::vector<Eigen::Index> cols;
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    Eigen::Index found = -1;
    for (size_t c = 0; c < data.config_names.size(); ++c) {
      if (data.config_names[c] == line) found = static_cast<Eigen::Index>(c);
    }
    if (found < 0) throw Error(fmt::format("{}: config '{}' is not in the dataset", path, line));
    cols.push_back(found);
  }
  if (cols.empty()) throw Error(path + ": no configs listed");
  return cols;
}

int run_train(const TrainArgs& a) {
  const Dataset data = a.source.load();
  const auto shipped = read_shipped(a.configs, data);
  auto selector = ml::make_selector(a.selector, {ml::parse_fallback(a.fallback), a.seed, a.unsure});
  selector->fit(data, shipped, ml::parse_norm(a.norm));
  auto j = selector->to_json();
  j["family"] = data.family;
  j["device"] = data.device;
  j["dataset"] = a.source.data;  // codegen names it in the generated header
  write_text_file(a.output, j.dump(1) + "\n");
  // In-sample score: a sanity check, not an evaluation (use `ktune eval` for held-out numbers).
  const auto m = ml::evaluate_selector(*selector, data, shipped, ml::fixed_config_order(data));
  std::fprintf(
      stdout,
      "%s over %zu configs on %s/%s (%lld problems, norm %s, fallback %s): training "
      "%.1f %% of oracle (ceiling %.1f %%)%s\n",
      a.selector.c_str(), shipped.size(), data.device.c_str(), data.family.c_str(),
      (long long)data.rows(), a.norm.c_str(), a.fallback.c_str(), m.pct_of_oracle, m.ceiling_pct,
      selector->dropped_rows()
          ? fmt::format(" ({} problems with NaN features left out)", selector->dropped_rows())
                .c_str()
          : "");
  std::fprintf(stderr, "ktune: wrote %s\n", a.output.c_str());
  return 0;
}

void train_options(CLI::App& sub, TrainArgs& a) {
  a.source.add_options(sub);
  std::string names;
  for (const auto& n : ml::selector_names()) names += (names.empty() ? "" : ", ") + n;
  sub.add_option("--selector", a.selector, names)->required();
  sub.add_option("--configs", a.configs, "Shipped configs, one per line (ktune prune -o)")
      ->required();
  sub.add_option("--norm", a.norm,
                 "Normalization for the labels: scale, cutoff, rawcutoff, sigmoid")
      ->capture_default_str();
  sub.add_option("--fallback", a.fallback, "When the pick is refused: baseline, random, nearest")
      ->capture_default_str();
  sub.add_option("--seed", a.seed, "Seed for the randomized models")->capture_default_str();
  add_unsure_options(sub, a.unsure);
  sub.add_option("-o,--output", a.output, "Model JSON to write")->required();
}

const bool verb_train_registered =
    add_verb("train", "Train a selector over the shipped configs and save it as JSON",
             train_options, run_train);

}  // namespace
}  // namespace ktune::cli
