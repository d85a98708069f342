// run_sweep with sampled strategies (search.hpp) on fake devices: sharding, resume after an
// error or a spent total budget (nothing measured twice), several workers picking what one picks
// over several rounds, and the progress callback's counts.
#include <gtest/gtest.h>

#include <algorithm>

#include "cli_test_util.hpp"
#include "ktune/search.hpp"
#include "sweep_fakes.hpp"

namespace ktune::testing {
namespace {

using std::chrono::microseconds;

// One config per round: the open candidate of the lowest column whose index has the problem's
// measured count's parity, so each round depends on what the last one recorded.
class OnePerRound final : public SearchStrategy {
 public:
  std::string name() const override { return "one-per-round"; }
  int64_t round_size(int64_t) const override { return 1; }
  std::vector<std::vector<Eigen::Index>> propose(const SearchState& s,
                                                 const std::vector<Eigen::Index>& rows,
                                                 const std::vector<int64_t>&) override {
    std::vector<std::vector<Eigen::Index>> out;
    for (const Eigen::Index r : rows) {
      std::vector<Eigen::Index> pick;
      for (int parity : {int(s.measured(r) % 2), int(1 - s.measured(r) % 2)}) {
        for (Eigen::Index c = 0; c < s.cols() && pick.empty(); ++c)
          if (c % 2 == parity && s.candidate(r, c) && s.cell(r, c) == cell::unmeasured)
            pick.push_back(c);
      }
      out.push_back(pick);
    }
    return out;
  }
};

struct SampledSweep : FakeSweep {
  std::unique_ptr<SearchStrategy> random = random_strategy(11);
  SampledSweep() {
    options.vendors = false;
    options.strategy = random.get();
    options.budget.per_problem = 5;
  }
  size_t picks() const { return workload.problems.size() * 5; }
  SweepSummary run(const std::string& path, std::vector<SweepWorker> w) {
    Store store(path);
    return run_sweep(family, std::move(w), workload, store, options);
  }
};

TEST(SweepStrategies, RandomShardsTogetherPickWhatOneRunPicks) {
  SampledSweep s;
  Log log;
  const auto whole = temp_path("random_whole.sqlite"), shards = temp_path("random_shards.sqlite");
  std::vector<SweepWorker> w;
  w.push_back(s.worker(log, 0, microseconds(10)));
  EXPECT_EQ(s.run(whole, std::move(w)).measured, s.picks());
  size_t measured = 0;
  for (int i = 0; i < 2; ++i) {
    s.options.shard = {i, 2};
    std::vector<SweepWorker> one;
    one.push_back(s.worker(log, 0, microseconds(10)));
    const SweepSummary sum = s.run(shards, std::move(one));
    EXPECT_EQ(sum.measured, s.picks() / 2);
    EXPECT_EQ(sum.prior_rows, size_t(i) * 2);  // the first shard's problems, learned from
    measured += sum.measured;
  }
  EXPECT_EQ(measured, s.picks());
  EXPECT_EQ(keys_of(shards), keys_of(whole));
  EXPECT_LT(keys_of(whole).size(), s.expected_rows());  // a sample, not the whole space
}

TEST(SweepStrategies, AnInterruptedRandomRunResumesAndMeasuresNothingTwice) {
  SampledSweep s;
  Log failing, healthy, reference;
  const auto path = temp_path("random_resume.sqlite"), ref = temp_path("random_ref.sqlite");
  failing.runs_left_before_error = 7;
  {
    std::vector<SweepWorker> w = s.two_workers(failing, microseconds(100));
    EXPECT_THROW(s.run(path, std::move(w)), Error);
  }
  const size_t kept = Store(path, Store::Mode::read_only).count();
  EXPECT_GE(kept, 7u);
  EXPECT_LT(kept, s.picks());
  std::vector<SweepWorker> w = s.two_workers(healthy, microseconds(10));
  const SweepSummary rerun = s.run(path, std::move(w));
  EXPECT_EQ(rerun.skipped_existing, kept);
  EXPECT_EQ(rerun.measured, s.picks() - kept);
  for (const auto& [key, workers] : failing.runs)
    EXPECT_EQ(healthy.runs.count(key), 0u) << key.first << " " << key.second;
  std::vector<SweepWorker> one;
  one.push_back(s.worker(reference, 0, microseconds(10)));
  s.run(ref, std::move(one));
  EXPECT_EQ(keys_of(path), keys_of(ref));  // the same picks as a run never interrupted
}

TEST(SweepStrategies, ASpentTotalBudgetStopsAndARerunContinues) {
  SampledSweep s;
  Log first, second;
  const auto path = temp_path("random_total.sqlite");
  s.options.budget.total = 6;
  std::vector<SweepWorker> w = s.two_workers(first, microseconds(10));
  const SweepSummary cut = s.run(path, std::move(w));
  EXPECT_TRUE(cut.total_exhausted);
  EXPECT_EQ(cut.measured, 6u);
  s.options.budget.total = 0;
  std::vector<SweepWorker> again;
  again.push_back(s.worker(second, 0, microseconds(10)));
  const SweepSummary rest = s.run(path, std::move(again));
  EXPECT_FALSE(rest.total_exhausted);
  EXPECT_EQ(rest.measured, s.picks() - 6);
  EXPECT_EQ(Store(path, Store::Mode::read_only).count(), s.picks());
  for (const auto& [key, workers] : first.runs) EXPECT_EQ(second.runs.count(key), 0u);
}

TEST(SweepStrategies, SeveralWorkersPickWhatOneWorkerPicksRoundAfterRound) {
  SampledSweep s;
  OnePerRound strategy;
  s.options.strategy = &strategy;
  Log one_log, two_log;
  const auto one = temp_path("rounds_one.sqlite"), two = temp_path("rounds_two.sqlite");
  std::vector<SweepWorker> w1;
  w1.push_back(s.worker(one_log, 0, microseconds(10)));
  const SweepSummary a = s.run(one, std::move(w1));
  std::vector<SweepWorker> w2;
  w2.push_back(s.worker(two_log, 0, microseconds(300)));
  w2.push_back(s.worker(two_log, 1, microseconds(10)));
  const SweepSummary b = s.run(two, std::move(w2));
  EXPECT_EQ(a.rounds, 5u);  // one config per problem per round, 5 per problem
  EXPECT_EQ(b.rounds, 5u);
  EXPECT_EQ(b.measured, s.picks());
  EXPECT_EQ(keys_of(two), keys_of(one));
  EXPECT_GT(two_log.per_worker[0], 0u);
  EXPECT_GT(two_log.per_worker[1], 0u);
  // Rounds alternate parities: a problem's picks are columns 0, 1, 2, 3, 4.
  for (const auto& [device, problem, config] : keys_of(one))
    EXPECT_NE(config, s.family.space().to_string(s.family.space().at(5))) << problem;
}

TEST(SweepStrategies, TheProgressCallbackCountsEveryPickOfASampledStrategy) {
  SampledSweep s;
  s.options.vendors = true;  // a vendor row per problem on top of the picks
  Log log;
  std::vector<std::pair<size_t, size_t>> progress;
  s.options.on_progress = [&](size_t done, size_t total, const Measurement&) {
    progress.emplace_back(done, total);
  };
  std::vector<SweepWorker> w = s.two_workers(log, microseconds(10));
  const SweepSummary sum = s.run(temp_path("random_progress.sqlite"), std::move(w));
  const size_t rows = s.picks() + s.workload.problems.size();
  EXPECT_EQ(sum.measured, rows);
  EXPECT_EQ(sum.vendors, s.workload.problems.size());
  ASSERT_EQ(progress.size(), rows);
  for (size_t i = 0; i < progress.size(); ++i) {
    EXPECT_EQ(progress[i].first, i + 1);
    // The total is the picks the budget allows, until the vendor rows push the count past it.
    EXPECT_EQ(progress[i].second, std::max(s.picks(), i + 1));
  }
}

}  // namespace
}  // namespace ktune::testing
