// ktune eval: the pruners' ceilings and every selector's % of oracle on held-out problems
// (seeded 80/20 split and/or leave-one-network-out), as Markdown and CSV; or, with
// --protocol stencil, the work-group protocol of the stencil seed paper (verb_stencil_eval.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>

#include "apps/ktune/dataset_source.hpp"
#include "apps/ktune/numeric_options.hpp"
#include "apps/ktune/progress.hpp"
#include "apps/ktune/stencil_eval_cli.hpp"
#include "apps/ktune/unsure_args.hpp"
#include "apps/ktune/verb.hpp"
#include "apps/ktune/verb_output.hpp"
#include "ktune/dataset.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/ml/evaluate.hpp"
#include "ktune/workload.hpp"

namespace ktune::cli {
namespace {

struct EvalArgs {
  DatasetSource source;
  std::vector<std::string> data;  // several only with --protocol stencil
  std::string protocol = "selection";
  StencilEvalArgs stencil;
  std::string split = "both", markdown, csv, fallback = "baseline";
  uint64_t seed = 0;
  bool quick = false;
  int threads = 0;
  // --split workload, and the matrix restrictions (empty = the default matrix's).
  std::vector<std::string> workloads, norms, pruners, selectors, drop_features;
  std::vector<int> ks, ceiling_ks;
  ml::UnsureRule unsure;
};

// Leave one workload out: per named workload W, a split "workload:W" that trains on the problems
// of the other named workloads and tests on those of W (problems matched by key; a problem of
// none of them is left out, one of several counts as W's when W is the held-out one).
std::vector<ml::Split> workload_splits(const Dataset& data, const std::vector<std::string>& names) {
  if (names.size() < 2) throw Error("--split workload: name at least two --workloads");
  const Family& family = find_family(data.family);
  std::vector<std::set<std::string>> keys;
  for (const auto& name : names) {
    std::set<std::string> k;
    for (const auto& p : load_workload(family, name).problems) k.insert(p.key());
    keys.push_back(std::move(k));
  }
  std::vector<ml::Split> splits;
  for (size_t w = 0; w < names.size(); ++w) {
    ml::Split s;
    s.name = "workload:" + names[w];
    for (Eigen::Index r = 0; r < data.rows(); ++r) {
      const std::string& key = data.problem_keys[size_t(r)];
      if (keys[w].count(key)) {
        s.test.push_back(r);
        continue;
      }
      for (size_t o = 0; o < names.size(); ++o) {
        if (o != w && keys[o].count(key)) {
          s.train.push_back(r);
          break;
        }
      }
    }
    if (s.train.empty() || s.test.empty()) {
      throw Error(
          fmt::format("--split workload: split {} has {} problems to train on and {} to "
                      "test in the data",
                      s.name, s.train.size(), s.test.size()));
    }
    splits.push_back(std::move(s));
  }
  return splits;
}

// The dataset without the named problem features (to compare feature sets on the same data).
Dataset without_features(Dataset data, const std::vector<std::string>& drop) {
  std::vector<Eigen::Index> keep;
  std::vector<std::string> names;
  for (const auto& name : drop) ml::require_feature(data, name, "--drop-features");
  for (size_t f = 0; f < data.feature_names.size(); ++f) {
    if (std::find(drop.begin(), drop.end(), data.feature_names[f]) != drop.end()) continue;
    keep.push_back(Eigen::Index(f));
    names.push_back(data.feature_names[f]);
  }
  const Eigen::MatrixXd kept = data.features(Eigen::all, keep);
  data.features = kept;
  data.feature_names = std::move(names);
  return data;
}

// --split cv<k>: the folds of a seeded k-fold partition, each scored as a split "cv<k>:<i>".
std::vector<ml::Split> cv_splits(const Dataset& data, const std::string& split, uint64_t seed) {
  const std::string digits = split.substr(2);
  if (digits.empty() || digits.size() > 3 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    throw Error("--split cv<k> needs a fold count, as in cv5, not '" + split + "'");
  return ml::kfold_splits(data, std::stoi(digits), seed).folds;
}

// --split largest<P> / smallest<P>: one split holding out the P % largest (smallest) problems by
// the family's work (Dataset::work; ties by row order), the rest training: how a selector
// extrapolates to sizes it has not seen.
std::vector<ml::Split> size_tail_split(const Dataset& data, const std::string& split) {
  const bool largest = split.rfind("largest", 0) == 0;
  const std::string digits = split.substr(largest ? 7 : 8);
  if (digits.empty() || digits.size() > 2 ||
      digits.find_first_not_of("0123456789") != std::string::npos || std::stoi(digits) == 0)
    throw Error("--split " + split + ": expected a percentage 1..99, as in largest20");
  if (data.work.size() != data.rows())
    throw Error("--split " + split +
                ": the dataset has no work per problem (not a registered family)");
  std::vector<Eigen::Index> order(size_t(data.rows()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    return largest ? data.work(a) > data.work(b) : data.work(a) < data.work(b);
  });
  const auto held =
      std::max<size_t>(1, size_t(std::lround(double(order.size()) * std::stoi(digits) / 100.0)));
  ml::Split s;
  s.name = split;
  s.test.assign(order.begin(), order.begin() + std::ptrdiff_t(std::min(held, order.size() - 1)));
  s.train.assign(order.begin() + std::ptrdiff_t(s.test.size()), order.end());
  std::sort(s.test.begin(), s.test.end());
  std::sort(s.train.begin(), s.train.end());
  return {s};
}

// The --norms/--pruners/--selectors/--ks/--ceiling-ks restrictions of the matrix.
void restrict_matrix(const EvalArgs& a, ml::EvalOptions& o) {
  if (!a.norms.empty()) {
    o.norms.clear();
    for (const auto& n : a.norms) o.norms.push_back(ml::parse_norm(n));
  }
  if (!a.pruners.empty()) {
    o.pruners.clear();
    for (const auto& p : a.pruners) o.pruners.push_back(ml::parse_prune_method(p));
  }
  if (!a.selectors.empty()) o.selectors = a.selectors;
  if (!a.ks.empty()) o.selector_ks = a.ks;
  if (!a.ceiling_ks.empty()) o.ceiling_ks = a.ceiling_ks;
}

// "out.csv" → "out-metrics.csv".
std::string metrics_path(const std::string& csv) {
  const std::string gz = has_gz_suffix(csv) ? ".gz" : "";
  std::string stem = csv.substr(0, csv.size() - gz.size());
  if (stem.size() > 4 && stem.substr(stem.size() - 4) == ".csv") stem.resize(stem.size() - 4);
  return stem + "-metrics.csv" + gz;
}

int run_eval(const EvalArgs& a) {
  if (a.protocol == "stencil") {
    StencilEvalArgs s = a.stencil;
    s.data = a.data;
    s.device = a.source.device;
    s.family = a.source.family;
    s.markdown = a.markdown;
    s.csv = a.csv;
    s.seed = a.seed;
    s.threads = a.threads;
    return run_stencil_eval(s);
  }
  if (a.protocol != "selection") {
    throw Error("--protocol must be selection or stencil, not '" + a.protocol + "'");
  }
  if (a.data.size() != 1) {
    throw Error(
        "--data: the selection protocol takes one dataset (--protocol stencil takes several)");
  }
  DatasetSource source = a.source;
  source.data = a.data.front();
  const Dataset data = without_features(source.load(), a.drop_features);
  ml::EvalOptions o = a.quick ? ml::quick_eval_options() : ml::EvalOptions{};
  if (a.split == "random") {
    o.random_split = true;
    o.network_splits = false;
  } else if (a.split == "workload") {
    o.random_split = false;
    o.network_splits = false;
    o.splits = workload_splits(data, a.workloads);
  } else if (a.split.rfind("cv", 0) == 0) {
    o.random_split = false;
    o.network_splits = false;
    o.splits = cv_splits(data, a.split, a.seed);
  } else if (a.split.rfind("largest", 0) == 0 || a.split.rfind("smallest", 0) == 0) {
    o.random_split = false;
    o.network_splits = false;
    o.splits = size_tail_split(data, a.split);
  } else if (a.split == "network") {
    o.random_split = false;
    o.network_splits = true;
  } else if (a.split == "both") {
    o.random_split = true;
    o.network_splits = !a.quick;
  } else {
    throw Error(
        "--split must be random, network, both, workload, cv<k>, largest<P> or smallest<P>, not '" +
        a.split + "'");
  }
  if (a.split != "workload" && !a.workloads.empty())
    throw Error("--workloads needs --split workload");
  restrict_matrix(a, o);
  o.seed = a.seed;
  o.fallback = ml::parse_fallback(a.fallback);
  o.unsure = a.unsure;
  o.threads = a.threads;
  Progress progress("eval");  // a line every 10 s when stderr is not a terminal
  o.progress = [&](size_t done, size_t total) { progress.update(done, total, "cells"); };
  const ml::EvalResult r = ml::evaluate(data, o);
  progress.finish();
  std::ostringstream md;
  ml::write_markdown(r, md);
  write_output_or_print(a.markdown, md.str());
  if (!a.csv.empty()) {
    std::ostringstream csv, metrics;
    ml::write_csv(r, csv);
    ml::write_metrics_csv(r, metrics);
    write_text_file(a.csv, csv.str());
    write_text_file(metrics_path(a.csv), metrics.str());
    std::fprintf(stderr, "ktune: wrote %s and %s\n", a.csv.c_str(), metrics_path(a.csv).c_str());
  }
  return 0;
}

void eval_options(CLI::App& sub, EvalArgs& a) {
  sub.add_option("--data", a.data,
                 "Store (.sqlite) or exported measurements (.csv, .csv.gz); repeat for several "
                 "devices with --protocol stencil")
      ->required();
  sub.add_option("--device", a.source.device, "Device slug (needed when the data holds several)");
  sub.add_option("--family", a.source.family, "Kernel family (needed when the data holds several)");
  a.source.long_csv.add_options(sub);  // --data may be a foreign long CSV
  DatasetSource::add_vendors_option(sub, a.source.vendors, a.source.vendor_names);
  sub.add_option("--protocol", a.protocol,
                 "selection (pruners x selectors) or stencil (the stencil seed paper's protocol: "
                 "classifiers x fallbacks and regressors over cv/synthetic-real/leave-one-out)")
      ->capture_default_str();
  sub.add_option(
      "--splits", a.stencil.splits,
      "stencil: splits to run (cv10, synthetic-real, device, program, size; default all)");
  sub.add_option("--folds", a.stencil.folds, "stencil: folds of the cv split")
      ->capture_default_str();
  sub.add_option(
      "--classifiers", a.stencil.classifiers,
      "stencil: classifier selectors (default tree-a forest naive-bayes logreg svm-rbf)");
  sub.add_option("--regressors", a.stencil.regressors,
                 "stencil: regressor selectors (default reg-runtime reg-speedup; 'none' for none)");
  sub.add_option("--expert", a.stencil.expert, "stencil: the hand-picked config")
      ->capture_default_str();
  sub.add_option("--split", a.split,
                 "random (seeded 80/20), network (leave one out), both, workload (leave one "
                 "of --workloads out), cv<k> (seeded k-fold, e.g. cv5), or largest<P> / "
                 "smallest<P> (hold out the P % largest / smallest problems by work)")
      ->capture_default_str();
  sub.add_option("--workloads", a.workloads,
                 "--split workload: the builtin workloads (or workload CSVs) to leave out in turn")
      ->delimiter(',');
  sub.add_option("--drop-features", a.drop_features,
                 "Leave these problem features out (e.g. to compare feature sets)")
      ->delimiter(',');
  sub.add_option("--norms", a.norms, "Only these normalizations (default: all)")->delimiter(',');
  sub.add_option("--pruners", a.pruners, "Only these pruners (default: all)")->delimiter(',');
  sub.add_option("--selectors", a.selectors, "Only these selectors (default: all)")->delimiter(',');
  sub.add_option("--ks", a.ks, "Selector K values (default 5,6,8,15)")->delimiter(',');
  sub.add_option("--ceiling-ks", a.ceiling_ks, "Pruner-ceiling K values (default 4..15)")
      ->delimiter(',');
  sub.add_option("--seed", a.seed, "Seed for the split, pruners and models")->capture_default_str();
  sub.add_option("--fallback", a.fallback, "When a pick is refused: baseline, random, nearest")
      ->capture_default_str();
  add_unsure_options(sub, a.unsure);
  sub.add_option("--markdown", a.markdown, "Write the tables here (default: stdout)");
  sub.add_option("--csv", a.csv,
                 "Write split,norm,pruner,selector,k,pct_of_oracle,ceiling_pct here, and every "
                 "metric to <name>-metrics.csv (stencil: the protocol's metric columns)");
  sub.add_option("--threads", a.threads, "Worker threads (0 = all cores)")
      ->check(CLI::Range(0, cli::kMaxThreads))
      ->capture_default_str();
  sub.add_flag("--quick", a.quick,
               "Small matrix for CI and demos: random split, scale, topn/kmeans/tree, K 4..8, "
               "tree-b/knn-3/forest/reg-speedup");
}

const bool verb_eval_registered =
    add_verb("eval", "Evaluate pruners and selectors on held-out problems (Markdown and CSV)",
             eval_options, run_eval);

}  // namespace
}  // namespace ktune::cli
