// ktune search-eval: search strategies simulated against a stored dataset (measurements come
// from the data, not a device): % of the per-problem oracle per budget, and the downstream
// prune + selector trained on the sampled data beside the same pipeline on the exhaustive data.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <sstream>

#include "apps/ktune/dataset_source.hpp"
#include "apps/ktune/verb.hpp"
#include "apps/ktune/verb_output.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/ml/search_eval.hpp"

namespace ktune::cli {
namespace {

struct SearchEvalArgs {
  DatasetSource source;
  ml::SampledEvalOptions o;
  std::string norm = "cutoff", acquisition = "ei", markdown, csv;
};

int run_search_eval(SearchEvalArgs a) {
  for (const auto& s : a.o.strategies) ml::make_search_strategy(s, a.o.model);  // validates
  a.o.norm = ml::parse_norm(a.norm);
  a.o.model.acquisition = ml::parse_acquisition(a.acquisition);
  for (int64_t b : a.o.budgets)
    if (b < 1) throw Error(fmt::format("--budgets: {} is not a count >= 1", b));
  const Dataset data = a.source.load();
  fmt::print(stderr, "ktune search-eval: {} on {}, {} problems x {} configs, strategies {}\n",
             data.family, data.device, data.rows(), data.cols(), fmt::join(a.o.strategies, ","));
  const ml::SampledEvalResult r = ml::evaluate_sampled(data, a.o);
  std::ostringstream md, csv;
  ml::write_sampled_markdown(r, a.o, md);
  ml::write_sampled_csv(r, csv);
  write_output_or_print(a.markdown, md.str());
  if (!a.csv.empty()) write_output(a.csv, csv.str());
  return 0;
}

void search_eval_options(CLI::App& sub, SearchEvalArgs& a) {
  a.source.add_options(sub);
  auto& o = a.o;
  sub.add_option("--strategies", o.strategies, "exhaustive, random, model")
      ->delimiter(',')
      ->capture_default_str();
  sub.add_option("--budgets", o.budgets, "Measurements per problem to score")
      ->delimiter(',')
      ->capture_default_str();
  sub.add_option("--seeds", o.seeds, "Seeds per strategy (0 .. seeds-1)")->capture_default_str();
  sub.add_option("--selector-budgets", o.selector_budgets,
                 "Budgets at which the downstream prune + selector pipeline runs")
      ->delimiter(',')
      ->capture_default_str();
  sub.add_option("--k", o.k, "Configs shipped by the downstream pipeline")->capture_default_str();
  sub.add_option("--pruner", o.pruner, "Downstream pruner")->capture_default_str();
  sub.add_option("--norm", a.norm, "Downstream normalization")->capture_default_str();
  sub.add_option("--selector", o.selector, "Downstream selector")->capture_default_str();
  sub.add_option("--split-seed", o.split_seed, "Seed of the 80/20 split")->capture_default_str();
  sub.add_option("--initial", o.model.initial, "model: random configs per problem first")
      ->capture_default_str();
  sub.add_option("--round-cap", o.model.round_cap, "model: largest round per problem")
      ->capture_default_str();
  sub.add_option("--trees", o.model.n_trees, "model: trees per forest")->capture_default_str();
  sub.add_option("--max-train-rows", o.model.max_train_rows,
                 "model: measured cells subsampled to at most this many per refit")
      ->capture_default_str();
  sub.add_option("--acquisition", a.acquisition, "model: ei, ucb or mean")->capture_default_str();
  sub.add_option("--markdown", a.markdown, "Write the table here (default: stdout)");
  sub.add_option("--csv", a.csv,
                 "Write strategy,budget_per_problem,seeds,pct_of_oracle,selector_pct_of_oracle");
}

const bool verb_search_eval_registered = add_verb(
    "search-eval",
    "Simulate search strategies on a stored dataset: % of oracle per budget and the selector "
    "trained on sampled data",
    search_eval_options, run_search_eval);

}  // namespace
}  // namespace ktune::cli
