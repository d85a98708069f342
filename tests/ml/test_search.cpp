// Search strategies, the round driver and the simulation runner (sampled tuning).
#include <gtest/gtest.h>

#include <set>

#include "ktune/bench.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/ml/search_eval.hpp"
#include "ktune/ml/search_model.hpp"
#include "ktune/replay.hpp"
#include "ktune/search.hpp"
#include "ktune/store.hpp"
#include "ktune/workload.hpp"
#include "ml_test_util.hpp"

namespace ktune {
namespace {

Dataset synthetic(uint64_t seed = 1) {
  test::SyntheticOptions o;
  o.problems = 80;
  o.configs_a = 8;
  o.configs_b = 6;
  o.seed = seed;
  return dataset_from_measurements(test::make_synthetic_measurements(o), "", "");
}

SearchState simulate(const Dataset& data, SearchStrategy& strategy, int64_t per_problem) {
  SearchState state = ml::search_state_from_dataset(data);
  ml::DatasetMeasurer measurer(data);
  SearchBudget budget;
  budget.per_problem = per_problem;
  run_search(state, strategy, measurer, budget);
  return state;
}

double mean_best_ratio(const Dataset& data, const SearchState& s) {
  const Eigen::VectorXd oracle = data.oracle_perf();
  double sum = 0;
  for (Eigen::Index r = 0; r < data.rows(); ++r) sum += s.perf.row(r).maxCoeff() / oracle[r];
  return sum / double(data.rows());
}

TEST(SearchBudget, ParsesCountsAndPercentages) {
  EXPECT_EQ(SearchBudget::parse("43").per_problem, 43);
  const SearchBudget pct = SearchBudget::parse("5%");
  EXPECT_DOUBLE_EQ(pct.fraction, 0.05);
  EXPECT_EQ(pct.limit(866), 44);  // ceil(43.3)
  EXPECT_EQ(pct.limit(10), 1);    // a positive fraction measures at least one config
  EXPECT_EQ(SearchBudget::parse("100").limit(40), 40);
  for (const char* bad : {"0", "-3", "2.5", "abc", "", "0%", "101%", "%", "nan"})
    EXPECT_THROW(SearchBudget::parse(bad), Error) << bad;
  EXPECT_THROW(SearchBudget::parse("5", -1), Error);
}

TEST(Search, SimulationReturnsExactlyTheStoredCells) {
  const Dataset data = synthetic();
  auto random = random_strategy(3);
  const SearchState s = simulate(data, *random, 10);
  for (Eigen::Index r = 0; r < data.rows(); ++r) {
    ASSERT_EQ(s.order[size_t(r)].size(), 10u);
    std::set<Eigen::Index> distinct(s.order[size_t(r)].begin(), s.order[size_t(r)].end());
    EXPECT_EQ(distinct.size(), 10u);
    for (Eigen::Index c = 0; c < data.cols(); ++c) {
      if (s.cell(r, c) == cell::unmeasured) continue;
      EXPECT_EQ(s.cell(r, c) == cell::ok, bool(data.valid(r, c)));
      EXPECT_EQ(s.perf(r, c), data.perf(r, c));  // bit-identical
    }
  }
}

TEST(Search, RandomIsDeterministicUnderASeed) {
  const Dataset data = synthetic();
  auto a = random_strategy(7), b = random_strategy(7), c = random_strategy(8);
  const auto sa = simulate(data, *a, 6), sb = simulate(data, *b, 6), sc = simulate(data, *c, 6);
  EXPECT_EQ(sa.order, sb.order);
  EXPECT_NE(sa.order, sc.order);
}

TEST(Search, ExhaustiveMeasuresEveryCellOnce) {
  const Dataset data = synthetic();
  auto e = exhaustive_strategy();
  const auto s = simulate(data, *e, 0);
  EXPECT_EQ((s.cell.array() == cell::unmeasured).count(), 0);
}

TEST(Search, ModelIsDeterministicAndBudgetPrefixesAgree) {
  const Dataset data = synthetic();
  ml::ModelStrategyOptions o;
  o.seed = 5;
  o.round_cap = 4;
  o.n_trees = 8;
  auto m1 = ml::model_strategy(o), m2 = ml::model_strategy(o), m3 = ml::model_strategy(o);
  const auto full = simulate(data, *m1, 12), again = simulate(data, *m2, 12),
             short_run = simulate(data, *m3, 5);
  EXPECT_EQ(full.order, again.order);
  // A run with a smaller budget measures exactly the head of the longer run (the evaluation's
  // premise for scoring every budget from one run).
  for (Eigen::Index r = 0; r < data.rows(); ++r) {
    const auto& f = full.order[size_t(r)];
    ASSERT_EQ(short_run.order[size_t(r)].size(), 5u);
    EXPECT_EQ(short_run.order[size_t(r)], std::vector<Eigen::Index>(f.begin(), f.begin() + 5));
  }
}

TEST(Search, ModelFindsBetterConfigsThanRandomOnStructuredData) {
  const Dataset data = synthetic(2);
  ml::ModelStrategyOptions o;
  o.n_trees = 8;
  double random_sum = 0;
  for (uint64_t seed = 0; seed < 3; ++seed) {
    auto r = random_strategy(seed);
    random_sum += mean_best_ratio(data, simulate(data, *r, 6)) / 3;
  }
  auto m = ml::model_strategy(o);
  const double model = mean_best_ratio(data, simulate(data, *m, 6));
  EXPECT_GT(model, random_sum + 0.05) << "model " << model << " random " << random_sum;
  EXPECT_GT(model, 0.9);
}

TEST(Search, SampledDatasetKeepsMeasuredCellsAndImputesTheRest) {
  const Dataset data = synthetic();
  auto m = ml::model_strategy({});
  const SearchState s = simulate(data, *m, 8);
  const Dataset kept = ml::sampled_dataset(data, s, 4, false, {});
  const Dataset filled = ml::sampled_dataset(data, s, 4, true, {});
  for (Eigen::Index r = 0; r < data.rows(); ++r) {
    EXPECT_LE(kept.valid.row(r).count(), 4);
    for (Eigen::Index c = 0; c < data.cols(); ++c) {
      const auto& head = s.order[size_t(r)];
      const bool measured = std::find(head.begin(), head.begin() + 4, c) != head.begin() + 4;
      if (measured) {
        EXPECT_EQ(kept.perf(r, c), data.perf(r, c));
        EXPECT_EQ(filled.perf(r, c), data.perf(r, c));
      } else {
        EXPECT_EQ(kept.perf(r, c), 0);
        EXPECT_GT(filled.perf(r, c), 0);
      }
    }
  }
}

TEST(Search, StrategyNamesAndBadOptionsAreErrors) {
  EXPECT_THROW(ml::make_search_strategy("annealing"), Error);
  ml::ModelStrategyOptions bad;
  bad.n_trees = 0;
  EXPECT_THROW(ml::model_strategy(bad), Error);
  EXPECT_THROW(ml::parse_acquisition("pi"), Error);
  for (const auto& n : ml::search_strategy_names())
    EXPECT_EQ(ml::make_search_strategy(n)->name(), n);
}

// The store is the state: replayed cells count against the budget, other problems and devices
// become prior rows.
TEST(SearchBench, StateReplaysTheStoreAndPrior) {
  register_builtin();
  const Family& gemm = find_family("gemm");
  const Workload tiny = load_workload(gemm, "tiny");
  std::vector<Config> configs;
  for (int64_t id : {0, 1, 2, 3}) configs.push_back(gemm.space().at(id));
  auto row = [&](const std::string& device, const std::string& problem, int64_t id, double perf) {
    Measurement m;
    m.device = device;
    m.family = "gemm";
    m.problem = problem;
    m.config = gemm.space().to_string(gemm.space().at(id));
    m.config_id = id;
    m.outcome.status = perf > 0 ? Status::ok : Status::wrong;
    m.perf = perf;
    return m;
  };
  const std::string other = "transa=0;transb=0;m=300;n=200;k=100;batch=1";
  const std::vector<Measurement> stored = {row("dev", tiny.problems[0].key(), 1, 10),
                                           row("dev", tiny.problems[0].key(), 2, 0),
                                           row("dev", other, 0, 5), row("elsewhere", other, 0, 7)};
  const std::vector<Measurement> prior = {row("gpu-b", other, 3, 9)};
  const SearchState s = make_search_state(gemm, tiny.problems, configs, "dev", stored, prior);
  ASSERT_EQ(s.rows(), Eigen::Index(tiny.problems.size()) + 2);  // + other@dev, other@gpu-b
  EXPECT_EQ(s.measured(0), 2);
  EXPECT_EQ(s.cell(0, 1), cell::ok);
  EXPECT_EQ(s.cell(0, 2), cell::invalid);
  const auto n = Eigen::Index(tiny.problems.size());
  EXPECT_FALSE(s.searched[size_t(n)]);
  EXPECT_EQ(s.source[size_t(n)], 0);
  EXPECT_EQ(s.source[size_t(n + 1)], 1);
  EXPECT_EQ(s.perf(n + 1, 3), 9);  // "elsewhere" is neither the device nor a prior file
  EXPECT_EQ(s.problem_features.cols(), Eigen::Index(s.problem_feature_names.size()));
}

// Stored rows of the tiny workload for configs 0..29 of a device "sim-dev".
std::vector<Measurement> stored_rows(const Family& gemm, const Workload& tiny) {
  std::vector<Measurement> data;
  for (const auto& p : tiny.problems)
    for (int64_t id = 0; id < 30; ++id) {
      Measurement m;
      m.device = "sim-dev";
      m.family = "gemm";
      m.problem = p.key();
      m.config = gemm.space().to_string(gemm.space().at(id));
      m.config_id = id;
      m.outcome.status = id % 7 == 3 ? Status::wrong : Status::ok;
      m.outcome.timing = {0.5 + 0.01 * double(id), 0.4, 0.9, 0.01, 5, {}};
      m.outcome.rel_error = 1e-7 * double(id);
      m.outcome.message = id % 7 == 3 ? "wrong result" : "";
      m.perf = m.outcome.status == Status::ok ? 100.0 / (1 + double(id % 11)) : 0;
      m.created_at = "2026-11-23 00:00:0" + std::to_string(id % 10);
      data.push_back(m);
    }
  return data;
}

TEST(SearchBench, SimulationStoresExactCopiesAndResumes) {
  register_builtin();
  const Family& gemm = find_family("gemm");
  const Workload tiny = load_workload(gemm, "tiny");
  const std::vector<Measurement> data = stored_rows(gemm, tiny);
  const std::string path = ::testing::TempDir() + "search-sim.sqlite";
  std::filesystem::remove(path);
  ml::ModelStrategyOptions mo;
  mo.n_trees = 4;
  auto model = ml::model_strategy(mo);
  SweepOptions o;
  o.strategy = model.get();
  o.budget.per_problem = 9;
  o.budget.total = 11;  // an interrupted run
  {
    Store store(path);
    ReplayBackend replay(gemm, data, "sim-dev");
    const auto s = run_sweep(gemm, replay, tiny, store, o);
    EXPECT_TRUE(s.total_exhausted);
    EXPECT_EQ(s.measured, 11u);
  }
  o.budget.total = 0;
  Store store(path);
  ReplayBackend replay(gemm, data, "sim-dev");
  const auto s = run_sweep(gemm, replay, tiny, store, o);
  EXPECT_EQ(s.skipped_existing, 11u);
  EXPECT_EQ(s.measured, 9 * tiny.problems.size() - 11);  // nothing repeated
  const auto rows = store.query("sim-dev", "gemm");
  ASSERT_EQ(rows.size(), 9 * tiny.problems.size());
  std::map<std::pair<std::string, std::string>, const Measurement*> by_key;
  for (const auto& m : data) by_key[{m.problem, m.config}] = &m;
  for (const auto& m : rows) {
    const Measurement& want = *by_key.at({m.problem, m.config});
    EXPECT_EQ(m.config_id, want.config_id);
    EXPECT_EQ(m.outcome.status, want.outcome.status);
    EXPECT_EQ(m.outcome.timing.median_ms, want.outcome.timing.median_ms);
    EXPECT_EQ(m.outcome.timing.min_ms, want.outcome.timing.min_ms);
    EXPECT_EQ(m.outcome.timing.reps, want.outcome.timing.reps);
    EXPECT_EQ(m.outcome.rel_error, want.outcome.rel_error);
    EXPECT_EQ(m.outcome.message, want.outcome.message);
    EXPECT_EQ(m.perf, want.perf);
  }
}

// The model's rounds on two workers (replays of one dataset under one slug) pick what they pick
// on one: a round's results enter the state in pick order, whoever measured them.
TEST(SearchBench, ModelPicksTheSameOnTwoWorkersAsOnOne) {
  register_builtin();
  const Family& gemm = find_family("gemm");
  const Workload tiny = load_workload(gemm, "tiny");
  const std::vector<Measurement> data = stored_rows(gemm, tiny);
  ml::ModelStrategyOptions mo;
  mo.n_trees = 4;
  mo.round_cap = 2;
  auto keys = [&](size_t workers) {
    const std::string path =
        ::testing::TempDir() + "search-workers-" + std::to_string(workers) + ".sqlite";
    std::filesystem::remove(path);
    auto model = ml::model_strategy(mo);
    SweepOptions o;
    o.strategy = model.get();
    o.budget.per_problem = 12;
    std::vector<SweepWorker> w;
    for (size_t i = 0; i < workers; ++i)
      w.push_back({[&] { return std::make_unique<ReplayBackend>(gemm, data, "sim-dev"); }, ""});
    Store store(path);
    const SweepSummary s = run_sweep(gemm, std::move(w), tiny, store, o);
    EXPECT_GT(s.rounds, 3u);
    std::set<std::pair<std::string, std::string>> out;
    for (const auto& m : store.query()) out.insert({m.problem, m.config});
    return out;
  };
  const auto one = keys(1);
  EXPECT_EQ(one.size(), 12 * tiny.problems.size());
  EXPECT_EQ(keys(2), one);
}

}  // namespace
}  // namespace ktune
